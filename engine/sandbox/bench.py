"""``python -m engine bench-bots``: what the sandbox costs a bot (DESIGN.md, "Benchmarks").

- Start: from launching bubblewrap to the bot's answer to "start" (the
  interpreter, the SDK, the bot's imports), over many fresh sandboxes.
- Per move: the same decisions asked of a sandboxed random bot and of the
  in-process random bot; the difference of the medians is the round trip's
  added time (encode, pipe, the bot's decode and encode, pipe, decode).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.bots import make_bot
from engine.games import get_game
from engine.runner import play_game
from engine.sandbox.bot import SandboxedBot
from engine.sandbox.code import bot_code

_RANDOM_BOT = b"""import random


def act(turn):
    return random.choice(turn.legal_actions)
"""
GAME = "1923"


@dataclass(frozen=True)
class BotBench:
    starts_ms: list[float]
    sandboxed_us: list[float]
    in_process_us: list[float]

    @property
    def start_median(self) -> float:
        return statistics.median(self.starts_ms)

    @property
    def start_p95(self) -> float:
        return statistics.quantiles(self.starts_ms, n=20, method="inclusive")[-1]

    @property
    def overhead_us(self) -> float:
        return statistics.median(self.sandboxed_us) - statistics.median(self.in_process_us)


def decisions(count: int) -> list[tuple[dict[str, Any], list[str]]]:
    """Real 1923 decisions, collected from games between random bots."""
    collected: list[tuple[dict[str, Any], list[str]]] = []
    game = get_game(GAME)

    class Recorder:
        def __init__(self, seat: int, seed: int) -> None:
            self.bot = make_bot("random", game=GAME, seat=seat, players=2, options={}, seed=seed)

        def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
            collected.append((observation, legal_actions))
            return self.bot.act(observation, legal_actions)

    seed = 0
    while len(collected) < count:
        play_game(game.NAME, agents=[Recorder(0, seed), Recorder(1, seed)], seed=seed)
        seed += 1
    return collected[:count]


def run_bot_bench(*, starts: int = 40, moves: int = 5000, cache_dir: Path | None = None) -> BotBench:
    cache = cache_dir or Path(tempfile.gettempdir()) / "cardclub-bots-bench"
    code = bot_code(filename="bench_bot.py", content=_RANDOM_BOT)
    options: dict[str, Any] = {}

    starts_ms = []
    for _ in range(starts):
        with SandboxedBot(code=code, cache_dir=cache, game=GAME, players=2, options=options) as bot:
            bot.start()
            if bot.start_seconds is None:
                raise RuntimeError(f"the benchmark bot did not start: {bot.failure}\n{bot.log}")
            starts_ms.append(bot.start_seconds * 1000)

    asked = decisions(moves)
    in_process = make_bot("random", game=GAME, seat=0, players=2, options=options, seed=1)
    with SandboxedBot(code=code, cache_dir=cache, game=GAME, players=2, options=options) as bot:
        seated = bot.seated(0, 0)
        sandboxed_us = _timed(seated.act, asked)
        if bot.failure is not None:
            raise RuntimeError(f"the benchmark bot failed: {bot.failure}\n{bot.log}")
    in_process_us = _timed(in_process.act, asked)
    return BotBench(starts_ms=starts_ms, sandboxed_us=sandboxed_us, in_process_us=in_process_us)


def _timed(act: Any, asked: list[tuple[dict[str, Any], list[str]]]) -> list[float]:
    times = []
    clock = time.perf_counter
    for observation, legal in asked:
        began = clock()
        act(observation, legal)
        times.append((clock() - began) * 1_000_000)
    return times


def report(bench: BotBench) -> str:
    return (
        f"sandbox start ({len(bench.starts_ms)} sandboxes, launch to ready): "
        f"median {bench.start_median:.1f} ms, p95 {bench.start_p95:.1f} ms (goal: p95 under 50 ms)\n"
        f"per move ({len(bench.sandboxed_us):,} 1923 decisions): sandboxed median "
        f"{statistics.median(bench.sandboxed_us):.1f} µs, in-process median "
        f"{statistics.median(bench.in_process_us):.1f} µs, added {bench.overhead_us / 1000:.3f} ms "
        f"(goal: under 0.2 ms)"
    )
