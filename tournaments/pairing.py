"""Round robin schedules: every group of a table's size meets once a cycle, all made at the start.

The formats (tournaments/formats/) make their rounds from these and from tournaments/swiss.py and
tournaments/knockout.py. An entrant without a table in a round has a bye.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

Table = tuple[int, ...]

#: A schedule bigger than this is refused: a club would wait weeks for it.
MAX_MATCHES = 20_000


class PairingError(ValueError):
    pass


def round_robin(entrants: Sequence[int], table_size: int, *, cycles: int = 1) -> list[list[Table]]:
    """Every group of ``table_size`` entrants meets once per cycle; ``cycles=2`` is a double round robin."""
    if table_size < 2 or len(entrants) < table_size:
        raise PairingError(f"a round robin of tables of {table_size} needs at least {table_size} entrants")
    cycle = _circle_rounds(list(entrants)) if table_size == 2 else _group_rounds(list(entrants), table_size)
    if sum(len(r) for r in cycle) * cycles > MAX_MATCHES:
        raise PairingError(f"this round robin would need more than {MAX_MATCHES} matches")
    rounds = [list(r) for r in cycle]
    for _ in range(1, cycles):
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
