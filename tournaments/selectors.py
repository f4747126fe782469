"""Reads: standings with each game's tiebreaks, 1923 set tables and Banter's race to 40.

Selectors own their joins; a list is a fixed number of queries however long it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from django.db.models import Count, Prefetch, Q, QuerySet
from django.utils import timezone

from league.models import Membership, Player
from league.standings import TIEBREAKS, Tiebreak, shared_ranks
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

BANTER_TARGET = 40


@dataclass(frozen=True)
class StandingRow:
    rank: int
    standing: Standing
    match_points: Fraction
    #: The tiebreak columns that decide the order, with their values, in order.
    tiebreaks: list[tuple[Tiebreak, Any]] = field(default_factory=list)


def standings_queryset(competition: Competition) -> QuerySet[Standing]:
    order = [f"-{t.field}" if t.descending else t.field for t in TIEBREAKS[competition.game]]
    return (
        Standing.objects.filter(competition=competition)
        .select_related("entrant")
        .order_by(*order, "entrant__name", "entrant_id")
    )


def competition_standings(competition: Competition) -> list[StandingRow]:
    """The table in the game's order; rows level on every tiebreak share a rank."""
    tiebreaks = TIEBREAKS[competition.game]
    rows = list(standings_queryset(competition))
    keys = [tuple(getattr(row, t.field) for t in tiebreaks) for row in rows]
    per_point = units_per_point(competition.players_per_match)
    table = []
    for rank, row in zip(shared_ranks(keys), rows, strict=True):
        points = Fraction(row.match_units, per_point)
        # The match-points column is shown in points, not the exact units it is stored in.
        values = [(t, points if t.field == "match_units" else getattr(row, t.field)) for t in tiebreaks]
        table.append(StandingRow(rank=rank, standing=row, match_points=points, tiebreaks=values))
    return table


@dataclass(frozen=True)
class RaceRound:
    number: int
    #: entrant id → (points this round, total so far)
    points: dict[int, tuple[int, int]]
    play_on: bool
    passed_target: list[int]


@dataclass(frozen=True)
class GameRace:
    game: Game
    rounds: list[RaceRound]


def match_race(match: Match) -> list[GameRace]:
    """Banter: each side's points after every round on the way to 40, play-on rounds marked."""
    games = list(match.games.order_by("number").prefetch_related("sets"))
    races = []
    for game in games:
        rounds = []
        for row in sorted(game.sets.all(), key=lambda s: s.number):
            points = {int(e): (v["points"], v["total"]) for e, v in row.scores.items()}
            passed = sorted(e for e, (_, total) in points.items() if total >= BANTER_TARGET)
            rounds.append(RaceRound(number=row.number, points=points, play_on=row.play_on, passed_target=passed))
        races.append(GameRace(game=game, rounds=rounds))
    return races


def match_set_table(match: Match) -> list[tuple[Game, list[MatchSet]]]:
    """1923: per game, its sets with every entrant's cards, Aces and points."""
    games = list(match.games.order_by("number").prefetch_related("sets"))
    return [(game, sorted(game.sets.all(), key=lambda s: s.number)) for game in games]


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


def competition_organiser(*, competition: Competition, player: Player | None) -> bool:
    """A competition's organisers: those named on it, and the organisers of its club.

    The club's organisers run every competition of the club (from the API and the admin
    alike); naming someone on a competition lets them run that one only.
    """
    if player is None:
        return False
    return (
        competition.organisers.filter(pk=player.pk).exists()
        or Membership.objects.filter(
            club_id=competition.club_id, player=player, role=Membership.Role.ORGANISER
        ).exists()
    )


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


def game_insiders(*, game: Game) -> set[int]:
    """Player ids who may see the game's private record: the competition's organisers and whoever sat at it.

    "Whoever sat at it" is the owner of each bot version that played, and a person who played in their own seat.
    """
    seated = [entrant for entrant in game.seating if entrant is not None]
    owners = Entrant.objects.filter(pk__in=seated).values_list("bot_version__bot__owner_id", "player_id")
    insiders = {player for pair in owners for player in pair if player is not None}
    insiders.update(game.match.competition.organisers.values_list("id", flat=True))
    return insiders


# --- Reads behind the admin site (tournaments/admin/). ---


@dataclass(frozen=True)
class MatchSheet:
    """One match as a competition's admin page shows it: who sat where, and its sets or its race."""

    match: Match
    #: In seat order, each with its entrant loaded.
    participants: list[MatchParticipant]
    #: 1923: per game, its sets in order (what match_set_table gives); empty for the other games.
    set_table: list[tuple[Game, list[MatchSet]]]
    #: Banter: per game, the race to 40 (what match_race gives); empty for the other games.
    race: list[GameRace]


def _race_round(row: MatchSet) -> RaceRound:
    points = {int(e): (v["points"], v["total"]) for e, v in row.scores.items()}
    passed = sorted(e for e, (_, total) in points.items() if total >= BANTER_TARGET)
    return RaceRound(number=row.number, points=points, play_on=row.play_on, passed_target=passed)


def competition_match_sheets(competition: Competition) -> list[MatchSheet]:
    """Every match in (round, id) order with its participants, sets and race: four queries however many matches."""
    with_sets = competition.game in ("1923", "banter")
    prefetches: list[Prefetch[str]] = [
        Prefetch("participants", queryset=MatchParticipant.objects.select_related("entrant").order_by("seat"))
    ]
    if with_sets:
        # The records can be long (a 1923 match is thousands of steps) and the page never shows them.
        games = (
            Game.objects.defer("record", "deal")
            .order_by("number")
            .prefetch_related(Prefetch("sets", queryset=MatchSet.objects.order_by("number")))
        )
        prefetches.append(Prefetch("games", queryset=games))
    matches = competition.matches.select_related("round").prefetch_related(*prefetches).order_by("round__number", "id")
    sheets = []
    for match in matches:
        games_and_sets = [(game, list(game.sets.all())) for game in match.games.all()] if with_sets else []
        banter = competition.game == "banter"
        sheets.append(
            MatchSheet(
                match=match,
                participants=list(match.participants.all()),
                set_table=games_and_sets if competition.game == "1923" else [],
                race=[GameRace(game=g, rounds=[_race_round(row) for row in rows]) for g, rows in games_and_sets]
                if banter
                else [],
            )
        )
    return sheets


def bot_runs_owned(*, match: Match, user: Any) -> QuerySet[BotRun]:
    """The external bots' runs in a match whose bots ``user`` owns."""
    return (
        BotRun.objects.filter(participant__match=match, participant__entrant__bot_version__bot__owner__user_id=user.pk)
        .select_related("participant__entrant")
        .order_by("participant__seat")
    )
