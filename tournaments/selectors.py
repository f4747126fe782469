"""Reads: standings in each game's order, and each match's breakdown (sets, or a race to a target).

Selectors own their joins; a list is a fixed number of queries however long it is.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import Any, cast

from django.db.models import Count, Prefetch, Q, QuerySet
from django.utils import timezone

from engine.games import game_names, get_game
from engine.games.profile import MATCH_POINTS, Breakdown, Race, SetTable
from league.models import Membership, Player
from league.ratings import Skill
from league.standings import Tiebreak, shared_ranks, tiebreaks
from tournaments.formats.registry import format_of
from tournaments.models import (
    BotRun,
    Competition,
    Entrant,
    Game,
    Match,
    MatchParticipant,
    MatchSet,
    Round,
    Standing,
    units_per_point,
)


@dataclass(frozen=True)
class StandingRow:
    rank: int
    standing: Standing
    match_points: Fraction
    #: The tiebreak columns that decide the order, with their values, in order.
    tiebreaks: list[tuple[Tiebreak, Any]] = field(default_factory=list)
    #: Match points from matches played: byes left out.
    played_points: Fraction = Fraction(0)


def standings_queryset(competition: Competition) -> QuerySet[Standing]:
    order = [t.column if not t.higher_first else f"-{t.column}" for t in tiebreaks(competition.game)]
    return (
        Standing.objects.filter(competition=competition)
        .select_related("entrant")
        .order_by(*format_of(competition).standings_sql_order(), *order, "entrant__name", "entrant_id")
    )


def standings_order(competition: Competition) -> tuple[Tiebreak, ...]:
    """The figures that order the table, first first: the game's (RULES.md), with the format's own where it has
    them (a Swiss's tiebreaks straight after match points, tournaments/formats/swiss.py)."""
    return format_of(competition).standings_figures(tiebreaks(competition.game))


def competition_standings(competition: Competition) -> list[StandingRow]:
    """The table in the competition's order; rows level on every tiebreak share a rank.

    The format says what ranks before the game's figures (``Format.ranking``): a challenge ladder's places
    (those who left follow, by the game's order), a rating ladder's ratings, a knockout's places from its
    bracket (those still in first, then those out, by the place they went out with); and a Swiss computes
    its own tiebreaks here.
    """
    order = standings_order(competition)
    rows = list(standings_queryset(competition))
    per_point = units_per_point(competition.players_per_match)
    ranking = format_of(competition).ranking(competition)

    def value(row: Standing, tiebreak: Tiebreak) -> Any:
        if tiebreak.key == MATCH_POINTS.key:
            # Shown in points, not the exact units it is stored in.
            return Fraction(row.match_units, per_point)
        if not tiebreak.column:
            return ranking.computed.get(row.entrant_id, {}).get(tiebreak.key, Fraction(0))
        return getattr(row, tiebreak.column)

    table = [(row, [(t, value(row, t)) for t in order]) for row in rows]
    if ranking.resort:
        # Stable: rows level on every figure keep the SQL order (the game's, then name).
        table.sort(key=lambda item: (*ranking.first_key(item[0]), *(-v if t.higher_first else v for t, v in item[1])))
    # A settled row's rank is its first key alone (a knockout's place, shared by those out in one round); the
    # figures order the rest, and within a place.
    keys = [
        ranking.first_key(row) if ranking.settled(row) else ranking.first_key(row) + tuple(v for _, v in shown)
        for row, shown in table
    ]
    return [
        StandingRow(
            rank=rank,
            standing=row,
            match_points=Fraction(row.match_units, per_point),
            tiebreaks=shown,
            played_points=Fraction(row.match_units - row.bye_units, per_point),
        )
        for rank, (row, shown) in zip(shared_ranks(keys), table, strict=True)
    ]


def breakdown_of(game: str) -> Breakdown | None:
    """How the game's results break down on the match pages (its league profile says), if they do."""
    return get_game(game).PROFILE.breakdown


def games_broken_down(kind: type[Race] | type[SetTable]) -> list[str]:
    """The games whose results break down into this kind (a race, or sets)."""
    return [name for name in game_names() if isinstance(breakdown_of(name), kind)]


@dataclass(frozen=True)
class BreakdownRow:
    """One set or race round of a game: per entrant id, its figures by column key."""

    number: int
    cells: dict[int, dict[str, int]]
    #: A marked row: a race round played on past the target.
    marked: bool
    #: In a race, the entrants whose total has reached the target by this round.
    past_target: list[int]


@dataclass(frozen=True)
class GameBreakdown:
    game: Game
    rows: list[BreakdownRow]


def _breakdown_row(breakdown: Breakdown, row: MatchSet) -> BreakdownRow:
    cells = {int(entrant): figures for entrant, figures in row.scores.items()}
    past = (
        sorted(e for e, figures in cells.items() if figures.get("total", 0) >= breakdown.target)
        if isinstance(breakdown, Race)
        else []
    )
    return BreakdownRow(number=row.number, cells=cells, marked=row.play_on, past_target=past)


def _game_breakdowns(breakdown: Breakdown, games: list[tuple[Game, list[MatchSet]]]) -> list[GameBreakdown]:
    return [GameBreakdown(game=game, rows=[_breakdown_row(breakdown, row) for row in rows]) for game, rows in games]


def match_breakdown(match: Match) -> list[GameBreakdown]:
    """Per game of the match, its sets or its race in order; empty for a game without a breakdown."""
    breakdown = breakdown_of(match.competition.game)
    if breakdown is None:
        return []
    games = match.games.defer("record", "deal").order_by("number").prefetch_related("sets")
    return _game_breakdowns(breakdown, [(game, sorted(game.sets.all(), key=lambda s: s.number)) for game in games])


@dataclass(frozen=True)
class RatingPoint:
    """An entrant's rating once one of its matches was rated."""

    match_id: int
    round_number: int
    finished_at: datetime | None
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return Skill(self.mu, self.sigma).ordinal


@dataclass(frozen=True)
class RatingHistory:
    entrant: Entrant
    #: In rating order: (round, match id), the order the ratings were computed in.
    points: list[RatingPoint]


def rating_points(seats: QuerySet[MatchParticipant]) -> dict[int, list[RatingPoint]]:
    """The rated ones of these seats as rating points by entrant, each entrant's in rating order; one query."""
    rows = (
        seats.filter(mu_after__isnull=False)
        .order_by("entrant_id", "match__round__number", "match_id")
        .values_list("entrant_id", "match_id", "match__round__number", "match__finished_at", "mu_after", "sigma_after")
    )
    points: dict[int, list[RatingPoint]] = {}
    for entrant_id, match_id, round_number, finished_at, mu, sigma in rows:
        # Both are written together, and the filter keeps only rated seats.
        point = RatingPoint(match_id, round_number, finished_at, cast(float, mu), cast(float, sigma))
        points.setdefault(entrant_id, []).append(point)
    return points


def rating_history(competition: Competition, *, entrant_ids: Collection[int] | None = None) -> list[RatingHistory]:
    """Every entrant's rating after each of its rated matches (or only these entrants'); two queries however long
    the competition."""
    seats = MatchParticipant.objects.filter(match__competition=competition)
    entrants = Entrant.objects.filter(competition=competition).order_by("id")
    if entrant_ids is not None:
        seats, entrants = seats.filter(entrant_id__in=entrant_ids), entrants.filter(pk__in=entrant_ids)
    points = rating_points(seats)
    return [RatingHistory(entrant=entrant, points=points.get(entrant.pk, [])) for entrant in entrants]


@dataclass(frozen=True)
class Meetings:
    """How one entrant fared against another in the matches both played: placed ahead, level, or behind."""

    ahead: int = 0
    level: int = 0
    behind: int = 0


@dataclass(frozen=True)
class HeadToHeadRow:
    entrant: Entrant
    #: Against each entrant of the competition in turn (HeadToHead.entrants); None against itself.
    cells: list[Meetings | None]


@dataclass(frozen=True)
class HeadToHead:
    #: The columns: every entrant, in entry order.
    entrants: list[Entrant]
    rows: list[HeadToHeadRow]


def head_to_head(competition: Competition, *, only: int | None = None) -> HeadToHead:
    """Results between every two entrants, from their places in the done matches they shared.

    A two-player match gives a win, a draw or a loss; a table of more counts each pair of its
    seats the same way (1923's or Punk's finishing order). ``only``: that entrant's row alone.
    Two queries however many matches.
    """
    entrants = list(Entrant.objects.filter(competition=competition).order_by("id"))
    index = {entrant.pk: i for i, entrant in enumerate(entrants)}
    counts = [[[0, 0, 0] for _ in entrants] for _ in entrants]
    seats = (
        MatchParticipant.objects.filter(match__competition=competition, match__status=Match.Status.DONE)
        .order_by("match_id")
        .values_list("match_id", "entrant_id", "rank")
    )
    tables: dict[int, list[tuple[int, int]]] = {}
    for match_id, entrant_id, rank in seats:
        tables.setdefault(match_id, []).append((index[entrant_id], rank or 0))
    for table in tables.values():
        for i, rank_i in table:
            for j, rank_j in table:
                if i != j:
                    counts[i][j][0 if rank_i < rank_j else 1 if rank_i == rank_j else 2] += 1
    shown = range(len(entrants)) if only is None else [index[only]]
    rows = [
        HeadToHeadRow(entrants[i], [None if i == j else Meetings(*counts[i][j]) for j in range(len(entrants))])
        for i in shown
    ]
    return HeadToHead(entrants=entrants, rows=rows)


def competition_progress(competition: Competition) -> dict[str, Any]:
    """Matches by status and in total, games recorded, and games per second since the start."""
    counts: dict[str, Any] = dict.fromkeys(Match.Status.values, 0)
    for row in competition.matches.order_by().values("status").annotate(n=Count("id")):
        counts[row["status"]] = row["n"]
    counts["total"] = sum(counts.values())
    counts["games_played"] = Game.objects.filter(match__competition=competition).count()
    counts["games_per_second"] = _games_per_second(competition, counts["games_played"])
    return counts


def _games_per_second(competition: Competition, games: int) -> float:
    if competition.started_at is None or games == 0:
        return 0.0
    end = competition.finished_at or timezone.now()
    seconds = (end - competition.started_at).total_seconds()
    return round(games / seconds, 1) if seconds > 0 else 0.0


# --- Reads behind the REST API (tournaments/api/): each owns its joins. ---


def competition_list() -> QuerySet[Competition]:
    return (
        Competition.objects.select_related("club", "created_by")
        .annotate(entrant_count=Count("entrants", distinct=True))
        .prefetch_related(
            Prefetch("organisers", queryset=Player.objects.only("id")),
            Prefetch("referees", queryset=Player.objects.only("id")),
        )
        .order_by("-created_at", "-id")
    )


def competition_role(*, competition: Competition, player: Player | None) -> str | None:
    """What ``player`` may do in ``competition``: ``organiser``, ``referee``, or None (nothing more than anyone).

    The one place a competition's powers are decided: every permission check (the API's, the transcript
    services', the live tables') asks competition_organiser or competition_referee, which ask this.

    - Organisers: the organisers of its club, and the players named on it (``Competition.organisers``).
    - Referees: the club's referees, the players named on it (``Competition.referees``), and its organisers.
    - Only while a member of its club (issue 21, finding 4): a name on a competition gives nothing to
      someone who has left the club or been removed, whatever became of the name.
    """
    if player is None:
        return None
    club_role = (
        Membership.objects.filter(club_id=competition.club_id, player=player).values_list("role", flat=True).first()
    )
    if club_role is None:
        return None
    if club_role == Membership.Role.ORGANISER or competition.organisers.filter(pk=player.pk).exists():
        return Membership.Role.ORGANISER
    if club_role == Membership.Role.REFEREE or competition.referees.filter(pk=player.pk).exists():
        return Membership.Role.REFEREE
    return None


def competition_organiser(*, competition: Competition, player: Player | None) -> bool:
    """Runs the competition: changes it, enters anyone, starts, plays, retries and cancels it.

    The club's organisers run every competition of the club; naming a member on a competition lets them
    run that one only.
    """
    return competition_role(competition=competition, player=player) == Membership.Role.ORGANISER


def competition_referee(*, competition: Competition, player: Player | None) -> bool:
    """Settles its transcripts for everyone (confirms on everyone's behalf, accepts, voids): referees and
    organisers."""
    return competition_role(competition=competition, player=player) is not None


def competition_entrants(*, competition: Competition) -> QuerySet[Entrant]:
    return Entrant.objects.filter(competition=competition).select_related("bot_version__bot", "player").order_by("id")


def _participants_with_entrants() -> QuerySet[MatchParticipant]:
    return MatchParticipant.objects.select_related("entrant").order_by("seat")


def competition_rounds(*, competition: Competition) -> QuerySet[Round]:
    # The competition rides along so each participant's match points (which depend on table size) cost no query.
    matches = (
        Match.objects.select_related("competition")
        .order_by("number")
        .prefetch_related(Prefetch("participants", queryset=_participants_with_entrants()))
    )
    return (
        Round.objects.filter(competition=competition)
        .order_by("number")
        .prefetch_related(Prefetch("matches", queryset=matches))
    )


def match_list() -> QuerySet[Match]:
    """Matches with their participants and a summary of each game; the records stay in the database."""
    games = Game.objects.defer("record", "deal").order_by("number")
    return (
        Match.objects.select_related("competition", "round")
        .prefetch_related(
            Prefetch("participants", queryset=_participants_with_entrants()),
            Prefetch("games", queryset=games),
        )
        .order_by("-competition_id", "round__number", "number", "id")
    )


def match_detail() -> QuerySet[Match]:
    return match_list().prefetch_related(Prefetch("sets", queryset=MatchSet.objects.order_by("game__number", "number")))


def matches_of_player(player_id: int) -> QuerySet[Match, Mapping[str, object]]:
    """Matches where the player sat in person or through one of their bots (ids only, for a subquery)."""
    return Match.objects.filter(
        participants__entrant__in=Entrant.objects.filter(
            Q(player_id=player_id) | Q(bot_version__bot__owner_id=player_id)
        )
    ).values("id")


def competitions_of_player(player_id: int) -> QuerySet[Entrant, Mapping[str, object]]:
    """Competitions the player entered in person or through one of their bots (ids only, for a subquery)."""
    return Entrant.objects.filter(Q(player_id=player_id) | Q(bot_version__bot__owner_id=player_id)).values(
        "competition_id"
    )


def game_list() -> QuerySet[Game]:
    return Game.objects.select_related("match__competition").defer("record", "deal").order_by("-match_id", "number")


def game_insider(*, game: Game, player: Player | None) -> bool:
    """Whether ``player`` may see the game's private record: whoever sat at it, and its competition's organisers.

    "Whoever sat at it" is the owner of each bot version that played, and a person who played in their own seat.
    """
    if player is None:
        return False
    seated = [entrant for entrant in game.seating if entrant is not None]
    sat = Entrant.objects.filter(pk__in=seated).filter(Q(player=player) | Q(bot_version__bot__owner=player)).exists()
    return sat or competition_organiser(competition=game.match.competition, player=player)


# --- Reads behind the admin site (tournaments/admin/). ---


@dataclass(frozen=True)
class MatchSheet:
    """One match as a competition's admin page shows it: who sat where, and its games' breakdown."""

    match: Match
    #: In seat order, each with its entrant loaded.
    participants: list[MatchParticipant]
    #: Per game, its sets or race (what match_breakdown gives); empty for a game without a breakdown.
    games: list[GameBreakdown]


def competition_match_sheets(competition: Competition, *, latest: int | None = None) -> list[MatchSheet]:
    """Every match in (round, id) order with its participants and breakdown, or only the ``latest`` (the last
    rounds' matches, still in that order): four queries however many matches."""
    breakdown = breakdown_of(competition.game)
    prefetches: list[Prefetch[str]] = [
        Prefetch("participants", queryset=MatchParticipant.objects.select_related("entrant").order_by("seat"))
    ]
    if breakdown is not None:
        # The records can be long (a 1923 match is thousands of steps) and the page never shows them.
        games = (
            Game.objects.defer("record", "deal")
            .order_by("number")
            .prefetch_related(Prefetch("sets", queryset=MatchSet.objects.order_by("number")))
        )
        prefetches.append(Prefetch("games", queryset=games))
    matches = competition.matches.select_related("round").prefetch_related(*prefetches).order_by("round__number", "id")
    if latest is not None:
        matches = matches.order_by("-round__number", "-id")[:latest]
    shown = list(matches) if latest is None else list(reversed(matches))
    return [
        MatchSheet(
            match=match,
            participants=list(match.participants.all()),
            games=[]
            if breakdown is None
            else _game_breakdowns(breakdown, [(game, list(game.sets.all())) for game in match.games.all()]),
        )
        for match in shown
    ]


def bot_runs_owned(*, match: Match, user: Any) -> QuerySet[BotRun]:
    """The external bots' runs in a match whose bots ``user`` owns."""
    return (
        BotRun.objects.filter(participant__match=match, participant__entrant__bot_version__bot__owner__user_id=user.pk)
        .select_related("participant__entrant")
        .order_by("participant__seat")
    )
