"""Engine throughput on one core, through the public interface (DESIGN.md, "Benchmarks").

Every decision builds the seat's observation and asks a bot, exactly as a
served game does, and every game's record is built and kept.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.bots import seat_agents
from engine.games import get_game
from engine.progress import Progress
from engine.record import Record
from engine.runner import play_game

#: What one game is called in each game's figure: a 1923 game in mode=set is a set, a Punk game a deal.
UNITS = {"war": "games", "1923": "games", "banter": "games", "punk": "deals"}


@dataclass(frozen=True)
class BenchResult:
    game: str
    games: int
    seconds: float
    bots: tuple[str, ...]
    records: list[Record]

    @property
    def rate(self) -> float:
        return self.games / self.seconds


def run_bench(
    game_name: str,
    *,
    games: int,
    bots: Sequence[str],
    options: Mapping[str, object],
    first_seed: int = 0,
    progress: bool = True,
) -> BenchResult:
    game = get_game(game_name)
    records: list[Record] = []
    meter = Progress(games, UNITS[game.NAME], enabled=progress)
    start = time.perf_counter()
    for index in range(games):
        seed = first_seed + index
        agents = seat_agents(game.NAME, bots, options, seed) if bots else [None, None]
        records.append(play_game(game.NAME, agents=agents, seed=seed, options=options))
        if index & 63 == 0:
            meter.update(index + 1)
    seconds = time.perf_counter() - start
    meter.update(games)
    meter.finish()
    return BenchResult(game=game.NAME, games=games, seconds=seconds, bots=tuple(bots), records=records)
