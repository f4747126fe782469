"""Shapes of competitions and play on the wire.

Input serializers only check types and shapes; the rules (the engine's options, a full
entrant list, too few entrants) live in the services, whose ValidationErrors become
field-level 400s in config/api.py. Seeds never appear here: a competition's or match's
seed derives every game's seed, which reveals every private card (see GameRecordView, which
reveals a game's seed and salt only once its live match is done).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from config.api_input import JSONInput
from engine.intervals import wilson_interval
from engine.match import deal_number
from league.models import BotVersion, Player
from tournaments.api.numbers import decimal_string, fraction_string, match_points
from tournaments.api.permissions import answerable_player_id
from tournaments.formats.common import MAX_ENTRANTS
from tournaments.gauntlet_opponents import MAX_TOP
from tournaments.models import BotRun, Competition, Entrant, Game, Match, MatchParticipant, MatchSet, Round
from tournaments.selectors import StandingRow

#: The largest seed a BigIntegerField holds.
MAX_SEED = 2**63 - 1


class CompetitionStartSerializer(JSONInput[Competition]):
    order = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_SEED),
        required=False,
        max_length=MAX_ENTRANTS,
        help_text="a challenge ladder's first places, or a knockout's seeds by hand: every entrant id once, "
        "the top first",
    )


class EntrantBriefSerializer(serializers.ModelSerializer[Entrant]):
    class Meta:
        model = Entrant
        fields = ["id", "name", "bot_version", "player", "position", "seed", "left_at"]
        read_only_fields = fields


class EntrantSerializer(serializers.ModelSerializer[Entrant]):
    bot = serializers.IntegerField(source="bot_version.bot_id", read_only=True, allow_null=True, default=None)
    owner = serializers.SerializerMethodField()

    class Meta:
        model = Entrant
        fields = [
            "id",
            "competition",
            "name",
            "bot_version",
            "bot",
            "player",
            "owner",
            "joined_at",
            "position",
            "seed",
            "left_at",
        ]
        read_only_fields = fields

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_owner(self, entrant: Entrant) -> int | None:
        return answerable_player_id(entrant)


class SeparationSerializer(serializers.Serializer[Any]):
    first = EntrantBriefSerializer(help_text="the entrant whose results are counted")
    second = EntrantBriefSerializer()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    games = serializers.IntegerField()
    llr = serializers.FloatField(help_text="the log-likelihood ratio of H1 against H0")
    lower = serializers.FloatField(help_text="at or below it, H0 is accepted")
    upper = serializers.FloatField(help_text="at or above it, H1 is accepted")
    decision = serializers.ChoiceField(choices=["H0", "H1", "continue", "cap"])
    elo0 = serializers.FloatField()
    elo1 = serializers.FloatField()
    alpha = serializers.FloatField()
    beta = serializers.FloatField()
    max_games = serializers.IntegerField()


class OpponentsQuerySerializer(serializers.Serializer[Any]):
    top = serializers.IntegerField(
        required=False, default=5, min_value=1, max_value=MAX_TOP, help_text="how many of the table's bot versions"
    )


class OpponentSerializer(serializers.Serializer[Any]):
    rank = serializers.IntegerField(help_text="the entrant's rank in the table (a ladder's place or rating)")
    entrant = serializers.IntegerField()
    name = serializers.CharField()
    bot_version = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=BotVersion.Kind.choices)
    strategy = serializers.CharField(allow_null=True, help_text="a built-in version's strategy; null for the others")
    url = serializers.CharField(
        allow_null=True,
        help_text="an HTTP version's address, to its owner only (it may carry a token); null otherwise. "
        "An uploaded version's code is never shown",
    )


class OpponentsSerializer(serializers.Serializer[Any]):
    game = serializers.CharField()
    options = serializers.DictField(help_text="the competition's complete ruleset")
    opponents = OpponentSerializer(many=True, help_text="the table's first bot versions, best first")


class EntrantJoinSerializer(JSONInput[Entrant]):
    """Exactly one of a bot version (by id) or a player (by id)."""

    bot_version = serializers.PrimaryKeyRelatedField(
        queryset=BotVersion.objects.select_related("bot"), required=False, allow_null=True, default=None
    )
    player = serializers.PrimaryKeyRelatedField(
        queryset=Player.objects.all(), required=False, allow_null=True, default=None
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if (attrs["bot_version"] is None) == (attrs["player"] is None):
            message = "give exactly one of bot_version or player"
            raise serializers.ValidationError({"bot_version": message, "player": message})
        return attrs


class ParticipantSerializer(serializers.ModelSerializer[MatchParticipant]):
    entrant = EntrantBriefSerializer(read_only=True)
    match_points = serializers.SerializerMethodField()
    match_points_exact = serializers.SerializerMethodField()

    class Meta:
        model = MatchParticipant
        fields = ["seat", "entrant", "score", "rank", "match_points", "match_points_exact"]
        read_only_fields = fields

    def _points(self, participant: MatchParticipant) -> Any:
        # The match (and its competition) are already attached by the selectors' prefetches.
        return match_points(participant.match_units, participant.match.competition.players_per_match)

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_match_points(self, participant: MatchParticipant) -> str | None:
        points = self._points(participant)
        return None if points is None else decimal_string(points)

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_match_points_exact(self, participant: MatchParticipant) -> str | None:
        points = self._points(participant)
        return None if points is None else fraction_string(points)


class MatchBriefSerializer(serializers.ModelSerializer[Match]):
    participants = ParticipantSerializer(many=True, read_only=True)

    class Meta:
        model = Match
        fields = ["id", "number", "status", "participants", "started_at", "finished_at"]
        read_only_fields = fields


class RoundSerializer(serializers.ModelSerializer[Round]):
    matches = MatchBriefSerializer(many=True, read_only=True)
    byes = serializers.SerializerMethodField(
        help_text="entrants without a table this round (a bye; a Swiss scores it as its bye_points say); "
        "a knockout's are the entrants still in who sit the round out; empty for a ladder, whose rounds seat "
        "only those who play"
    )

    class Meta:
        model = Round
        fields = ["id", "number", "matches", "byes"]
        read_only_fields = fields

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField()))
    def get_byes(self, round_: Round) -> list[int]:
        if "round_byes" in self.context:
            byes: list[int] = self.context["round_byes"].get(round_.number, [])
            return byes
        entrants: list[int] = self.context.get("bye_candidates", [])
        seated = {p.entrant_id for match in round_.matches.all() for p in match.participants.all()}
        return [entrant for entrant in entrants if entrant not in seated]


class GameSummarySerializer(serializers.ModelSerializer[Game]):
    # Stored as JSON text (tournaments/fields.py); shown as the JSON it is.
    seating = serializers.JSONField(read_only=True)
    result = serializers.JSONField(read_only=True)

    class Meta:
        model = Game
        fields = ["id", "number", "seating", "winner", "result"]
        read_only_fields = fields


class MatchSetSerializer(serializers.ModelSerializer[MatchSet]):
    class Meta:
        model = MatchSet
        fields = ["id", "game", "number", "scores", "play_on"]
        read_only_fields = fields


class MatchSerializer(serializers.ModelSerializer[Match]):
    game = serializers.CharField(source="competition.game", read_only=True)
    round = serializers.IntegerField(source="round.number", read_only=True)
    participants = ParticipantSerializer(many=True, read_only=True)
    games = GameSummarySerializer(many=True, read_only=True)

    class Meta:
        model = Match
        fields = [
            "id",
            "competition",
            "game",
            "round",
            "number",
            "status",
            "error",
            "participants",
            "games",
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields


class MatchDetailSerializer(MatchSerializer):
    """One match with its 1923 sets or Banter rounds as stored (race/ and sets/ give them arranged)."""

    sets = MatchSetSerializer(many=True, read_only=True)

    class Meta(MatchSerializer.Meta):
        fields = [*MatchSerializer.Meta.fields, "sets"]
        read_only_fields = fields


class GameSerializer(serializers.ModelSerializer[Game]):
    """A game without its seed and deal; its record is at /api/games/{id}/record/."""

    competition = serializers.IntegerField(source="match.competition_id", read_only=True)
    game = serializers.CharField(source="match.competition.game", read_only=True)
    deal_number = serializers.SerializerMethodField(
        help_text="which deal of the match it was dealt from: with duplicate deals, the games of one rotation of "
        "the seats share one"
    )

    seating = serializers.JSONField(read_only=True)
    options = serializers.JSONField(read_only=True)
    result = serializers.JSONField(read_only=True)

    class Meta:
        model = Game
        fields = [
            "id",
            "match",
            "competition",
            "game",
            "number",
            "deal_number",
            "seating",
            "options",
            "result",
            "winner",
            "recorded_at",
        ]
        read_only_fields = fields

    def get_deal_number(self, game: Game) -> int:
        competition = game.match.competition
        return deal_number(game.number, competition.players_per_match, duplicate=competition.duplicate_deals)


class GameRecordSerializer(serializers.Serializer[Any]):
    visibility = serializers.ChoiceField(choices=["public", "private"])
    record = serializers.JSONField(
        help_text="public: no seed or deal; views: a spectator's view at the start and what each step changed in it "
        "(docs/records.md, Public views)"
    )
    # Present only once a live match is done: what a player needs to check the deal (docs/fair-play.md).
    seed = serializers.IntegerField(required=False, help_text="revealed when the live match is done")
    salt = serializers.CharField(required=False, help_text="revealed when the live match is done")
    commitment = serializers.CharField(
        required=False, help_text="the commitment to this game's seed published when the match started"
    )


class RecordQuerySerializer(serializers.Serializer[Any]):
    view = serializers.ChoiceField(choices=["public", "private"], required=False)


class TiebreakSerializer(serializers.Serializer[Any]):
    field = serializers.CharField()
    # DRF's metaclass takes declared fields off the class, but the stubs read this as Field.label.
    label = serializers.CharField()  # type: ignore[assignment]
    #: A string so a fraction's decimal form stays as written; whole-number columns read the same.
    value = serializers.CharField()
    exact = serializers.CharField()
    #: Which way the column ranks: War's rounds needed is lower-first, every other higher-first.
    order = serializers.ChoiceField(choices=["higher_first", "lower_first"])


# Serializes StandingRows, but as the serializer of StandingViewSet (whose queryset is of Standing) and of
# whole pages (many=True, which the stubs' instance type cannot express), so its instance type is Any.
class StandingRowSerializer(serializers.Serializer[Any]):
    rank = serializers.IntegerField()
    entrant = EntrantBriefSerializer(source="standing.entrant")
    played = serializers.IntegerField(source="standing.played")
    won = serializers.IntegerField(source="standing.won")
    drawn = serializers.IntegerField(source="standing.drawn")
    lost = serializers.IntegerField(source="standing.lost")
    match_points = serializers.SerializerMethodField()
    match_points_exact = serializers.SerializerMethodField()
    tiebreaks = serializers.SerializerMethodField()
    score_rate = serializers.SerializerMethodField(
        help_text="match points per match played (byes left out), 0 to 1; null before the first match"
    )
    score_interval = serializers.SerializerMethodField(
        help_text="the score rate's 95% Wilson interval [low, high]: whether an entrant is really ahead"
    )
    mu = serializers.FloatField(source="standing.mu")
    sigma = serializers.FloatField(source="standing.sigma")
    ordinal = serializers.FloatField(source="standing.ordinal")

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_score_rate(self, row: StandingRow) -> float | None:
        played = row.standing.played
        return None if not played else round(float(row.played_points) / played, 6)

    @extend_schema_field(serializers.ListField(child=serializers.FloatField(), min_length=2, max_length=2))
    def get_score_interval(self, row: StandingRow) -> list[float]:
        played = row.standing.played
        # Recording keeps the points within the matches played; a row edited by hand must still read.
        low, high = wilson_interval(min(max(row.played_points, Fraction(0)), Fraction(played)), played)
        return [round(low, 6), round(high, 6)]

    def get_match_points(self, row: StandingRow) -> str:
        return decimal_string(row.match_points)

    def get_match_points_exact(self, row: StandingRow) -> str:
        return fraction_string(row.match_points)

    @extend_schema_field(TiebreakSerializer(many=True))
    def get_tiebreaks(self, row: StandingRow) -> list[dict[str, str]]:
        return [
            {
                "field": tiebreak.key,
                "label": tiebreak.label,
                "value": decimal_string(Fraction(value)),
                "exact": fraction_string(Fraction(value)),
                "order": "higher_first" if tiebreak.higher_first else "lower_first",
            }
            for tiebreak, value in row.tiebreaks
        ]


class ProgressSerializer(serializers.Serializer[Any]):
    pending = serializers.IntegerField()
    running = serializers.IntegerField()
    done = serializers.IntegerField()
    error = serializers.IntegerField()
    cancelled = serializers.IntegerField()
    total = serializers.IntegerField()
    games_played = serializers.IntegerField(help_text="games recorded so far")
    games_per_second = serializers.FloatField(help_text="games recorded per second since the start")


class PlayOutcomeSerializer(serializers.Serializer[Any]):
    queued = serializers.IntegerField(help_text="pending matches sent to the workers by this call")
    status = serializers.ChoiceField(choices=Competition.Status.choices, help_text="the competition's status now")
    progress = ProgressSerializer()


class EntrantPointsSerializer(serializers.Serializer[Any]):
    entrant = serializers.IntegerField()
    name = serializers.CharField()
    points = serializers.IntegerField(help_text="points scored this round")
    total = serializers.IntegerField(help_text="points so far")


class RaceRoundSerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField()
    play_on = serializers.BooleanField(help_text="a round played on past the target (Banter: both level at 40 or more)")
    passed_target = serializers.ListField(
        child=serializers.IntegerField(), help_text="entrants at the target or past it after this round"
    )
    points = EntrantPointsSerializer(many=True)


class GameRaceSerializer(serializers.Serializer[Any]):
    game = serializers.IntegerField()
    number = serializers.IntegerField()
    target = serializers.IntegerField()
    winner = serializers.IntegerField(allow_null=True)
    rounds = RaceRoundSerializer(many=True)


class ColumnSerializer(serializers.Serializer[Any]):
    key = serializers.CharField(help_text="the key of this figure in each entrant's figures")
    label = serializers.CharField()  # type: ignore[assignment]  # as TiebreakSerializer.label


class EntrantSetScoreSerializer(serializers.Serializer[Any]):
    entrant = serializers.IntegerField()
    name = serializers.CharField()
    figures = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="the entrant's figures in this set, by column key (1923: cards, aces, points)",
    )


class SetRowSerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField()
    scores = EntrantSetScoreSerializer(many=True)


class GameSetTableSerializer(serializers.Serializer[Any]):
    game = serializers.IntegerField()
    number = serializers.IntegerField()
    winner = serializers.IntegerField(allow_null=True)
    columns = ColumnSerializer(many=True, help_text="the figures of a set, in order, as the game's profile names them")
    sets = SetRowSerializer(many=True)


class BotRunSerializer(serializers.ModelSerializer[BotRun]):
    entrant = serializers.IntegerField(source="participant.entrant_id")
    bot_version = serializers.IntegerField(source="participant.entrant.bot_version_id")
    seat = serializers.IntegerField(source="participant.seat")

    class Meta:
        model = BotRun
        fields = ["entrant", "bot_version", "seat", "failure", "detail", "start_ms", "log"]
        read_only_fields = fields


class RatingPointSerializer(serializers.Serializer[Any]):
    match = serializers.IntegerField(source="match_id")
    round = serializers.IntegerField(source="round_number")
    finished_at = serializers.DateTimeField(allow_null=True)
    mu = serializers.FloatField(help_text="the rating's mean once this match was rated")
    sigma = serializers.FloatField(help_text="its uncertainty")
    ordinal = serializers.FloatField(help_text="mu - 3 sigma, what the standings show")


class RatingHistorySerializer(serializers.Serializer[Any]):
    entrant = EntrantBriefSerializer()
    points = RatingPointSerializer(
        many=True, help_text="after each rated match, in rating order; every entrant starts at mu 25, sigma 25/3"
    )


#: The most entrants a whole head-to-head matrix is served for; past it, one entrant's row at a time.
MAX_MATRIX_ENTRANTS = 100


class HeadToHeadQuerySerializer(serializers.Serializer[Any]):
    entrant = serializers.IntegerField(
        required=False, min_value=1, max_value=2**63 - 1, help_text="only this entrant's row"
    )


class MeetingsSerializer(serializers.Serializer[Any]):
    entrant = serializers.IntegerField(help_text="the opponent")
    ahead = serializers.IntegerField(help_text="matches the row's entrant finished ahead of this one (2 players: won)")
    level = serializers.IntegerField(help_text="matches level (2 players: drawn)")
    behind = serializers.IntegerField(help_text="matches behind (2 players: lost)")


class HeadToHeadRowSerializer(serializers.Serializer[Any]):
    entrant = EntrantBriefSerializer()
    against = MeetingsSerializer(many=True, help_text="every other entrant, in entry order")


class HeadToHeadSerializer(serializers.Serializer[Any]):
    entrants = EntrantBriefSerializer(many=True)
    rows = HeadToHeadRowSerializer(many=True)


class BracketEntrantSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    seed = serializers.IntegerField(help_text="1 the best")


class BracketSeatSerializer(serializers.Serializer[Any]):
    entrant = BracketEntrantSerializer()
    finish = serializers.IntegerField(
        allow_null=True, help_text="once played: the entrant's finish at the table (level ranks split by seed)"
    )
    advanced = serializers.BooleanField(help_text="went on from the table (won it, at a table of two)")


class BracketTableSerializer(serializers.Serializer[Any]):
    side = serializers.ChoiceField(choices=["upper", "lower", "final", "third_place", "grand_final", "reset"])
    side_name = serializers.CharField()
    match_id = serializers.IntegerField(allow_null=True, help_text="null until the table's round is paired")
    status = serializers.CharField(help_text='the match\'s status, or "unpaired"')
    seats = BracketSeatSerializer(many=True, help_text="seat order until played, then best first")


class BracketByesSerializer(serializers.Serializer[Any]):
    side_name = serializers.CharField()
    entrants = BracketEntrantSerializer(many=True)


class BracketRoundSerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField()
    played = serializers.BooleanField()
    tables = BracketTableSerializer(many=True)
    byes = serializers.SerializerMethodField(help_text="entrants still in who sit the round out, by bracket side")
    wildcards = BracketEntrantSerializer(many=True, help_text="non-advancers kept in to fill the next round")
    dropped = BracketEntrantSerializer(many=True, help_text="double elimination: sent to the lower bracket")
    eliminated = BracketEntrantSerializer(many=True)

    @extend_schema_field(BracketByesSerializer(many=True))
    def get_byes(self, round_: Any) -> list[dict[str, Any]]:
        return [
            {"side_name": side, "entrants": BracketEntrantSerializer(entrants, many=True).data}
            for side, entrants in round_.byes
        ]


class BracketPlaceSerializer(serializers.Serializer[Any]):
    place = serializers.IntegerField()
    entrant = BracketEntrantSerializer()


class BracketSerializer(serializers.Serializer[Any]):
    double = serializers.BooleanField(help_text="a double elimination")
    finished = serializers.BooleanField()
    seeds = BracketEntrantSerializer(many=True)
    rounds = BracketRoundSerializer(many=True, help_text="the rounds played, then the one being played")
    places = serializers.SerializerMethodField(help_text="everyone placed so far, best first")

    @extend_schema_field(BracketPlaceSerializer(many=True))
    def get_places(self, view: Any) -> list[dict[str, Any]]:
        return [{"place": place, "entrant": BracketEntrantSerializer(e).data} for place, e in view.places]
