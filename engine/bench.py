"""Engine throughput on one core, through the public interface (DESIGN.md, "Benchmarks").

Every decision builds the seat's observation and asks a bot, exactly as a
served game does, and every game's record is built and kept.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.bots import seat_agents
from engine.games import get_game
from engine.progress import Progress
from engine.record import Record
from engine.runner import play_game

#: The game the service benchmarks play (make bench-service, make bench-api): War's games cost the engine
#: least, so the service's own cost shows most.
SERVICE_GAME = "war"
#: The game of the admin pages' benchmark (make bench-admin): Banter's games carry a breakdown by round (the
#: race to 40 tricks), the heaviest a match's admin page draws.
ADMIN_GAME = "banter"
#: The game of the training-data benchmark (make bench-training-data) and its table: short games with a
#: decision of every seat each trick, so a hundred thousand of them are quick to write and to replay.
TRAINING_DATA_GAME = ("punk", 3)
#: What the live-table benchmark's tables play, in turn, with their options (make bench-live).
LIVE_GAMES: tuple[tuple[str, dict[str, object]], ...] = (("1923", {"mode": "set"}), ("punk", {}))


def unit_of(game: str, options: Mapping[str, object]) -> str:
    """What one engine game is called in the figures: a 1923 game is a match or, in mode=set, a set."""
    if game == "1923":
        return "sets" if str(options.get("mode", "match")).lower() == "set" else "matches"
    return "deals" if game == "punk" else "games"


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
    meter = Progress(games, unit_of(game.NAME, options), enabled=progress)
    start = time.perf_counter()
    for index in range(games):
        seed = first_seed + index
        agents = seat_agents(game.NAME, bots, options, seed) if bots else [None, None]
        records.append(play_game(game.NAME, agents=agents, seed=seed, options=options))
        if index & 1023 == 1023:
            # The kept records only grow: move them out of the collector's way, as a
            # long-lived worker holding its results would, so later games are not
            # charged for re-scanning earlier records.
            gc.freeze()
        if index & 63 == 0:
            meter.update(index + 1)
    seconds = time.perf_counter() - start
    gc.unfreeze()
    meter.update(games)
    meter.finish()
    return BenchResult(game=game.NAME, games=games, seconds=seconds, bots=tuple(bots), records=records)
