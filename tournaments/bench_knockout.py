"""How long replaying a knockout's bracket takes: ``python -m tournaments.bench_knockout`` (``make bench-knockout``).

No Django: the bracket is pure (tournaments/knockout.py). The service replays it from the seeds and every
result whenever a round ends and whenever the bracket or the standings are read, so this times the replay
of a whole played bracket, random results, the median of ``--runs`` runs, one line per case.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from tournaments.knockout import Played, Settings, bracket

#: (entrants, table size, going on per table, double elimination)
CASES = ((128, 2, 1, False), (1024, 2, 1, False), (1024, 2, 1, True), (1024, 4, 2, False), (1024, 4, 1, True))


def played_bracket(entrants: int, settings: Settings, rng: random.Random) -> list[list[Played]]:
    """Every round's results of a whole bracket, each table's order drawn at random."""
    seeds = list(range(1, entrants + 1))
    played: list[list[Played]] = []
    while (upcoming := bracket(seeds, settings, played).next_round) is not None:
        results = []
        for table in upcoming.tables:
            ranks = list(range(1, len(table.entrants) + 1))
            rng.shuffle(ranks)
            results.append(Played(table.entrants, tuple(ranks)))
        played.append(results)
    return played


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    rng = random.Random(7)
    for entrants, table_size, advance, double in CASES:
        settings = Settings(table_size, advance, double)
        played = played_bracket(entrants, settings, rng)
        times = []
        for _ in range(args.runs):
            started = time.perf_counter()
            bracket(list(range(1, entrants + 1)), settings, played)
            times.append(time.perf_counter() - started)
        kind = "double" if double else "single"
        print(
            f"{entrants:5} entrants, {kind} elimination, tables of {table_size}, {advance} on: "
            f"{len(played)} rounds replayed in {statistics.median(times) * 1000:.1f} ms"
        )


if __name__ == "__main__":
    main()
