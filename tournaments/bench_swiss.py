"""How long Swiss pairing takes mid-tournament: ``python -m tournaments.bench_swiss`` (``make bench-swiss``).

No Django: pairing is pure (tournaments/swiss.py). For each field size and table size it plays
three rounds with random results (every round paired by :func:`pair_swiss`), then times the
pairing of the fourth round, the median of ``--runs`` runs, and prints one line per case.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from tournaments.swiss import SwissEntrant, SwissRound, pair_swiss, seat_balance_change, swiss_rounds


@dataclass
class Record:
    """One simulated entrant's history (the tests' tournament simulator too)."""

    score: Fraction = Fraction(0)
    opponents: set[int] = field(default_factory=set)
    byes: int = 0
    seat_balance: int = 0


def standings(records: dict[int, Record], rng: random.Random) -> list[SwissEntrant]:
    """The entrants ranked by score; equal scores in a random order (standing in for the tiebreaks)."""
    draws = {entrant_id: rng.random() for entrant_id in records}
    ranked = sorted(records, key=lambda i: (-records[i].score, draws[i]))
    return [
        SwissEntrant(
            id=i,
            score=records[i].score,
            rank=place,
            opponents=frozenset(records[i].opponents),
            byes=records[i].byes,
            seat_balance=records[i].seat_balance,
        )
        for place, i in enumerate(ranked, start=1)
    ]


def play(records: dict[int, Record], paired: SwissRound, table_size: int, rng: random.Random) -> None:
    """Random results: placing points (table_size - 1 for first, 0 for last); a bye scores as a win."""
    for table in paired.tables:
        finish = list(table)
        rng.shuffle(finish)
        for place, entrant_id in enumerate(finish):
            records[entrant_id].score += table_size - 1 - place
        for seat, entrant_id in enumerate(table):
            records[entrant_id].opponents.update(other for other in table if other != entrant_id)
            records[entrant_id].seat_balance += seat_balance_change(seat, table_size)
    for entrant_id in paired.byes:
        records[entrant_id].score += table_size - 1
        records[entrant_id].byes += 1


def mid_tournament(count: int, table_size: int, rounds: int, seed: int) -> list[SwissEntrant]:
    """The standings after ``rounds`` rounds of random results."""
    rng = random.Random(seed)
    records = {entrant_id: Record() for entrant_id in range(1, count + 1)}
    for number in range(rounds):
        paired = pair_swiss(standings(records, rng), table_size=table_size, rng_seed=seed + number)
        play(records, paired, table_size, rng)
    return standings(records, rng)


def time_pairing(entrants: Sequence[SwissEntrant], table_size: int, runs: int) -> list[float]:
    """Seconds per call of ``pair_swiss``, ``runs`` times."""
    times = []
    for run in range(runs):
        started = time.perf_counter()
        pair_swiss(entrants, table_size=table_size, rng_seed=run)
        times.append(time.perf_counter() - started)
    return times


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", default="128,1024", help="field sizes, comma-separated")
    parser.add_argument("--tables", default="2,4", help="table sizes, comma-separated")
    parser.add_argument("--runs", type=int, default=5, help="timed runs per case (the median is printed)")
    parser.add_argument("--seed", type=int, default=14)
    options = parser.parse_args(argv)
    print("entrants  table  rounds  after  median ms  min ms  max ms")
    for count in (int(size) for size in options.sizes.split(",")):
        for table_size in (int(size) for size in options.tables.split(",")):
            entrants = mid_tournament(count, table_size, 3, options.seed)
            times = [seconds * 1000 for seconds in time_pairing(entrants, table_size, options.runs)]
            print(
                f"{count:>8}  {table_size:>5}  {swiss_rounds(count):>6}  {3:>5}  "
                f"{statistics.median(times):>9.1f}  {min(times):>6.1f}  {max(times):>6.1f}"
            )


if __name__ == "__main__":
    main()
