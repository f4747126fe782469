"""How often the SPRT (engine/sprt.py) accepts each hypothesis on matches of known strength.

    .venv/bin/python -m tournaments.bench_sprt        # or: make bench-sprt

Simulates many sequential tests, each a match played game by game until :func:`engine.sprt.sprt`
decides (or the cap is reached). Each game is a win, a draw or a loss for the first entrant, drawn
from the logistic Elo model: with a true strength gap ``elo`` the expected score is
s = 1/(1 + 10^(-elo/400)), draws happen at the given rate d, and wins at s − d/2 (so the score's mean
is s). It prints, for true gaps at elo0, between the bounds and at elo1 (and a little outside), the
share of tests accepting H1 and H0, the share stopped at the cap, and the mean number of games,
beside the configured alpha and beta, for both ways of computing the LLR. At elo0 the share
accepting H1 is the false-positive rate (to compare with alpha); at elo1 the share accepting H0 is
the false-negative rate (beta).
A fixed seed makes every run print the same figures.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import cast

from engine.sprt import Method, SprtSettings, SprtState, expected_score, sprt


@dataclass(frozen=True)
class Summary:
    tests: int
    h1: int
    h0: int
    cap: int
    games: int  # over all tests

    @property
    def h1_rate(self) -> float:
        return self.h1 / self.tests

    @property
    def h0_rate(self) -> float:
        return self.h0 / self.tests

    @property
    def mean_games(self) -> float:
        return self.games / self.tests


def simulate(settings: SprtSettings, elo: float, draw_rate: float, tests: int, rng: random.Random) -> Summary:
    """Run ``tests`` sequential tests on matches with true gap ``elo`` and the given draw rate."""
    score = expected_score(elo)
    win = score - draw_rate / 2
    if win < 0 or score + draw_rate / 2 > 1:
        raise ValueError(f"draw_rate: {draw_rate} is impossible at a {elo} Elo gap")
    # One uniform draw per game: below `win` a win, then a draw, then a loss.
    win_or_draw = win + draw_rate
    counts = {"H1": 0, "H0": 0, "cap": 0}
    games = 0
    for _ in range(tests):
        wins = draws = losses = 0
        while True:
            u = rng.random()
            if u < win:
                wins += 1
            elif u < win_or_draw:
                draws += 1
            else:
                losses += 1
            verdict = sprt(SprtState(wins, draws, losses), settings)
            if verdict.decision != "continue":
                counts[verdict.decision] += 1
                games += verdict.games
                break
    return Summary(tests=tests, h1=counts["H1"], h0=counts["H0"], cap=counts["cap"], games=games)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tournaments.bench_sprt", description=__doc__.split("\n\n")[0])
    parser.add_argument("--tests", type=int, default=2000, help="sequential tests per true gap (2000)")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=50.0)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--max-games", type=int, default=2000)
    parser.add_argument("--draw-rates", default="0,0.3", help="comma-separated draw rates (0,0.3)")
    parser.add_argument("--methods", default="exact,normal", help="LLR methods to compare (exact,normal)")
    args = parser.parse_args(argv)
    settings = SprtSettings(args.elo0, args.elo1, args.alpha, args.beta, args.max_games)
    methods = [cast(Method, method) for method in args.methods.split(",")]
    gap = settings.elo1 - settings.elo0
    points = [
        ("elo0 - gap/2", settings.elo0 - gap / 2),
        ("elo0", settings.elo0),
        ("midpoint", settings.elo0 + gap / 2),
        ("elo1", settings.elo1),
        ("elo1 + gap/2", settings.elo1 + gap / 2),
    ]
    print(
        f"SPRT elo0={settings.elo0:g} elo1={settings.elo1:g} alpha={settings.alpha:g} beta={settings.beta:g} "
        f"max_games={settings.max_games}; bounds [{settings.lower:.4f}, {settings.upper:.4f}]; "
        f"{args.tests} tests per row, seed {args.seed}"
    )
    columns = ("method", 6), ("draw rate", 9), ("true gap", 14), ("Elo", 7), ("accept H1", 10), ("accept H0", 10)
    print(" ".join(f"{name:>{width}}" for name, width in (*columns, ("cap", 6), ("mean games", 11))))
    started = time.perf_counter()
    for method in methods:
        # Each method sees the same games: the seed restarts for it.
        rng = random.Random(args.seed)
        with_method = replace(settings, method=method)
        for draw_rate in (float(rate) for rate in args.draw_rates.split(",")):
            for label, elo in points:
                summary = simulate(with_method, elo, draw_rate, args.tests, rng)
                note = ""
                if label == "elo0":
                    note = f"  false positives; alpha = {settings.alpha:g}"
                elif label == "elo1":
                    note = f"  false negatives; beta = {settings.beta:g}"
                print(
                    f"{method:>6} {draw_rate:>9.2f} {label:>14} {elo:>7.1f} {summary.h1_rate:>10.4f} "
                    f"{summary.h0_rate:>10.4f} {summary.cap / summary.tests:>6.4f} {summary.mean_games:>11.1f}{note}"
                )
    print(f"({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
