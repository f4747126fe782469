"""Pairing formats: who meets whom, round by round.

A format is a pluggable step: given the entrants (ids, in seeding order) and the
table size, it returns the rounds of tables known at the start. Round robin pairs every
group once (twice for double), all at the start; Swiss returns its first round only, and
pairs each later one from the standings once the round before it is over
(services/swiss_rounds.py); so does a knockout, from its bracket (services/knockout_rounds.py).
An entrant without a table in a round has a bye.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from itertools import combinations
from typing import Protocol

from tournaments.knockout import Settings, bracket
from tournaments.swiss import SwissEntrant, pair_swiss

Table = tuple[int, ...]

#: A schedule bigger than this is refused: a club would wait weeks for it.
MAX_MATCHES = 20_000


class PairingError(ValueError):
    pass


class PairingFormat(Protocol):
    #: True for formats whose next round depends on the last one's results (Swiss): the workers
    #: then get one round at a time. A fixed schedule is released whole, so workers never idle
    #: at a round's end waiting for its slowest match.
    pairs_round_by_round: bool

    def schedule(self, entrants: Sequence[int], table_size: int) -> list[list[Table]]: ...


class RoundRobin:
    """Every group of ``table_size`` entrants meets once per cycle; ``cycles=2`` is a double round robin."""

    pairs_round_by_round = False

    def __init__(self, cycles: int = 1) -> None:
        self.cycles = cycles

    def schedule(self, entrants: Sequence[int], table_size: int) -> list[list[Table]]:
        if table_size < 2 or len(entrants) < table_size:
            raise PairingError(f"a round robin of tables of {table_size} needs at least {table_size} entrants")
        cycle = _circle_rounds(list(entrants)) if table_size == 2 else _group_rounds(list(entrants), table_size)
        if sum(len(r) for r in cycle) * self.cycles > MAX_MATCHES:
            raise PairingError(f"this round robin would need more than {MAX_MATCHES} matches")
        rounds = [list(r) for r in cycle]
        for _ in range(1, self.cycles):
            # The second cycle swaps seats, so each pair plays once from each side.
            rounds += [[tuple(reversed(t)) for t in r] for r in cycle]
        return rounds


def _circle_rounds(entrants: list[int]) -> list[list[Table]]:
    """The circle method: n-1 rounds (n even), each entrant plays once a round; a bye if n is odd."""
    slots: list[int | None] = [*entrants, None] if len(entrants) % 2 else list(entrants)
    n = len(slots)
    rounds: list[list[Table]] = []
    for r in range(n - 1):
        tables: list[Table] = []
        for i in range(n // 2):
            a, b = slots[i], slots[n - 1 - i]
            if a is not None and b is not None:
                # Alternate who sits first so seat advantage evens out over the cycle.
                tables.append((a, b) if (r + i) % 2 == 0 else (b, a))
        rounds.append(tables)
        slots = [slots[0], slots[-1], *slots[1:-1]]
    return rounds


def _group_rounds(entrants: list[int], size: int) -> list[list[Table]]:
    """Every ``size``-subset once, packed greedily into rounds where nobody plays twice."""
    remaining = list(combinations(entrants, size))
    rounds: list[list[Table]] = []
    while remaining:
        busy: set[int] = set()
        this_round: list[Table] = []
        later: list[Table] = []
        for table in remaining:
            if busy.isdisjoint(table):
                this_round.append(table)
                busy.update(table)
            else:
                later.append(table)
        rounds.append(this_round)
        remaining = later
    return rounds


class Swiss:
    """The first round from the seeding; each later one from the standings (tournaments/swiss.py)."""

    pairs_round_by_round = True

    def schedule(self, entrants: Sequence[int], table_size: int) -> list[list[Table]]:
        if table_size < 2 or len(entrants) < table_size:
            raise PairingError(f"a Swiss of tables of {table_size} needs at least {table_size} entrants")
        seeded = [
            SwissEntrant(id=e, score=Fraction(0), rank=i, opponents=frozenset(), byes=0, seat_balance=0)
            for i, e in enumerate(entrants, start=1)
        ]
        return [pair_swiss(seeded, table_size=table_size, rng_seed=0).tables]


class Separation:
    """Two entrants, one match a round, until the sequential test decides (services/separation.py)."""

    pairs_round_by_round = True

    def schedule(self, entrants: Sequence[int], table_size: int) -> list[list[Table]]:
        if table_size != 2 or len(entrants) != 2:
            raise PairingError(
                f"play to separation is between exactly two entrants at a table of two, not {len(entrants)}"
            )
        return [[(entrants[0], entrants[1])]]


class Knockout:
    """The first round of the bracket from the entrants in seed order (tournaments/knockout.py)."""

    pairs_round_by_round = True

    def __init__(self, *, double: bool) -> None:
        self.double = double

    def schedule(self, entrants: Sequence[int], table_size: int, *, advance: int = 1) -> list[list[Table]]:
        try:
            first = bracket(entrants, Settings(table_size, advance, self.double)).next_round
        except ValueError as exc:
            raise PairingError(str(exc)) from None
        assert first is not None  # a new bracket always has a first round
        return [[table.entrants for table in first.tables]]


SWISS = "swiss"
SEPARATION = "separation"
SINGLE_ELIMINATION = "single_elimination"
DOUBLE_ELIMINATION = "double_elimination"
KNOCKOUTS = (SINGLE_ELIMINATION, DOUBLE_ELIMINATION)

FORMATS: dict[str, PairingFormat] = {
    "round_robin": RoundRobin(cycles=1),
    "double_round_robin": RoundRobin(cycles=2),
    SWISS: Swiss(),
    SEPARATION: Separation(),
    SINGLE_ELIMINATION: Knockout(double=False),
    DOUBLE_ELIMINATION: Knockout(double=True),
}

#: Ladders have no schedule: their matches come from challenges (challenge_ladder) or from Celery
#: beat's ticks (rating_ladder), and they never finish on their own (docs/ladders.md).
CHALLENGE_LADDER = "challenge_ladder"
RATING_LADDER = "rating_ladder"
LADDERS = (CHALLENGE_LADDER, RATING_LADDER)

#: Every value a competition's ``format`` takes.
COMPETITION_FORMATS = (*FORMATS, *LADDERS)


def is_ladder(format: str) -> bool:
    return format in LADDERS


def pairs_round_by_round(format: str) -> bool:
    """Whether a recorded match may release the next round: a scheduled format's own answer; a ladder makes
    its rounds as it goes."""
    pairing = FORMATS.get(format)
    return pairing is not None and pairing.pairs_round_by_round
