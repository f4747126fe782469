"""Reads: standings with each game's tiebreaks, 1923 set tables and Banter's race to 40.

Selectors own their joins; a list is a fixed number of queries however long it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from django.db.models import Count, QuerySet

from league.standings import TIEBREAKS, Tiebreak, shared_ranks
from tournaments.models import Competition, Game, Match, MatchSet, Standing, units_per_point

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
    return [
        StandingRow(
            rank=rank,
            standing=row,
            match_points=Fraction(row.match_units, per_point),
            tiebreaks=[
                (t, Fraction(row.match_units, per_point) if t.field == "match_units" else getattr(row, t.field))
                for t in tiebreaks
            ],
        )
        for rank, row in zip(shared_ranks(keys), rows, strict=True)
    ]


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


def competition_progress(competition: Competition) -> dict[str, int]:
    """Matches by status, plus the total."""
    counts = dict.fromkeys(Match.Status.values, 0)
    for row in competition.matches.order_by().values("status").annotate(n=Count("id")):
        counts[row["status"]] = row["n"]
    counts["total"] = sum(counts.values())
    return counts
