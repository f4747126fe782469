"""Pairing one round of a rating ladder: a pure function of the ladder as it stands (no Django).

The service (services/rating_ladder.py) calls it once per round, with the ratings as the results of
every earlier round left them, and a random stream derived from the competition's seed: so the same
results give the same round, whichever worker recorded them and however often it was restarted.

The rate limit per bot is structural: an entrant plays at most one match a round, and a ladder gets
at most one new round per tick of Celery beat (``RATING_LADDER_TICK_SECONDS``), and only once the
round before it is over. When the batch (``RATING_LADDER_BATCH`` tables) cannot seat everyone, those
who have waited longest play first, so every bot keeps playing.

A round is built in three steps, from the entrants chosen to play:

1. placement: an entrant with fewer than ``placement`` matches gets opponents spread over the ladder,
   its i-th placement match near the quantile (i + ½) / placement of the rating order, so a new
   version finds its level in a few matches instead of climbing from the bottom one neighbour at a time;
2. exploration: ``exploration_percent`` of the remaining tables are drawn at random, so that distant
   parts of the ladder keep meeting and its ratings stay comparable;
3. neighbours: the rest sit in rating order, each table a run of neighbours.
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum


@dataclass(frozen=True)
class LadderEntrant:
    """What pairing knows of an active entrant."""

    id: int
    #: Its ordinal rating (mu − 3 sigma): higher is better.
    rating: float
    #: Matches it has played on this ladder.
    played: int
    #: The last round it played in, or None if it has not played yet.
    last_round: int | None


class TableKind(Enum):
    PLACEMENT = "placement"
    EXPLORATION = "exploration"
    NEIGHBOURS = "neighbours"


@dataclass(frozen=True)
class Table:
    #: Entrant ids in seat order.
    seats: tuple[int, ...]
    kind: TableKind


def pair_round(
    entrants: Sequence[LadderEntrant],
    *,
    table_size: int,
    batch: int,
    placement: int,
    exploration_percent: int,
    rng: random.Random,
) -> list[tuple[int, ...]]:
    """The round's tables, as entrant ids in seat order (see :func:`plan_round`)."""
    plan = plan_round(
        entrants,
        table_size=table_size,
        batch=batch,
        placement=placement,
        exploration_percent=exploration_percent,
        rng=rng,
    )
    return [table.seats for table in plan]


def plan_round(
    entrants: Sequence[LadderEntrant],
    *,
    table_size: int,
    batch: int,
    placement: int,
    exploration_percent: int,
    rng: random.Random,
) -> list[Table]:
    """The round's tables with the step that formed each: at most ``batch`` of ``table_size`` seats each.

    Only the order of ``entrants``' attributes matters, never the order of the sequence itself.
    """
    if table_size < 2 or batch < 0 or placement < 0 or not 0 <= exploration_percent <= 100:
        raise ValueError("table_size 2 or more, batch and placement 0 or more, exploration_percent 0 to 100")
    if len({entrant.id for entrant in entrants}) != len(entrants):
        raise ValueError("each entrant once")
    # The whole ladder, best first: placement quantiles are taken over it, not only over who plays.
    ladder = sorted(entrants, key=lambda e: (-e.rating, e.id))
    place = {entrant.id: index for index, entrant in enumerate(ladder)}
    playing = _longest_waiting(entrants, table_size, batch)
    unseated = _Unseated(sorted(playing, key=lambda e: place[e.id]), place)  # in ladder order throughout
    tables: list[Table] = []
    for newcomer in sorted(playing, key=_waiting_key):
        at = unseated.index(newcomer)
        if newcomer.played >= placement or at is None:
            continue
        unseated.take([at])
        target = min(len(ladder) - 1, math.floor((newcomer.played + 0.5) / placement * len(ladder)))
        # The nearest to the target place among those still free; the higher place on a tie.
        nearest = unseated.take(unseated.nearest(target, table_size - 1))
        tables.append(_table([newcomer, *nearest], TableKind.PLACEMENT, rng))
    free = unseated.entrants
    remaining = len(free) // table_size
    explored = (remaining * exploration_percent + 50) // 100  # rounded to the nearest table
    drawn = set(rng.sample(range(len(free)), explored * table_size))
    at_random = [free[i] for i in sorted(drawn)]
    rng.shuffle(at_random)
    for start in range(0, len(at_random), table_size):
        tables.append(_table(at_random[start : start + table_size], TableKind.EXPLORATION, rng))
    neighbours = [entrant for i, entrant in enumerate(free) if i not in drawn]
    for start in range(0, len(neighbours), table_size):
        tables.append(_table(neighbours[start : start + table_size], TableKind.NEIGHBOURS, rng))
    return tables


class _Unseated:
    """The round's entrants not seated yet, in ladder order, with their places alongside: placement seats
    a table at a time, and each of its look-ups is a bisection rather than a sort of everyone free."""

    def __init__(self, entrants: list[LadderEntrant], place: dict[int, int]) -> None:
        self.entrants = entrants
        self.places = [place[entrant.id] for entrant in entrants]
        self.place = place

    def index(self, entrant: LadderEntrant) -> int | None:
        """Where ``entrant`` is, or None once seated."""
        index = bisect.bisect_left(self.places, self.place[entrant.id])
        return index if index < len(self.places) and self.places[index] == self.place[entrant.id] else None

    def nearest(self, target: int, count: int) -> list[int]:
        """The indices of the ``count`` nearest to place ``target``, nearest first; the higher place on a tie."""
        chosen: list[int] = []
        above = bisect.bisect_left(self.places, target) - 1  # places < target, walking up the ladder
        below = above + 1  # places >= target, walking down it
        while len(chosen) < count and (above >= 0 or below < len(self.places)):
            up = target - self.places[above] if above >= 0 else math.inf
            down = self.places[below] - target if below < len(self.places) else math.inf
            if up <= down:
                chosen.append(above)
                above -= 1
            else:
                chosen.append(below)
                below += 1
        return chosen

    def take(self, indices: list[int]) -> list[LadderEntrant]:
        """Remove the entrants at ``indices``; them, in that order."""
        taken = [self.entrants[index] for index in indices]
        for index in sorted(indices, reverse=True):
            del self.entrants[index]
            del self.places[index]
        return taken


def _waiting_key(entrant: LadderEntrant) -> tuple[bool, int, int]:
    """Never played first, then the oldest last round, then the lower id."""
    return (entrant.last_round is not None, entrant.last_round or 0, entrant.id)


def _longest_waiting(entrants: Sequence[LadderEntrant], table_size: int, batch: int) -> list[LadderEntrant]:
    """Those who play this round: the longest waiting, as many as fill whole tables, at most ``batch`` of them."""
    seats = min(len(entrants) // table_size, batch) * table_size
    return sorted(entrants, key=_waiting_key)[:seats]


def _table(entrants: Sequence[LadderEntrant], kind: TableKind, rng: random.Random) -> Table:
    # Seats drawn, so that no entrant always opens (a match of one game does not rotate seats).
    ids = [entrant.id for entrant in entrants]
    rng.shuffle(ids)
    return Table(seats=tuple(ids), kind=kind)
