"""A thousand random games through each environment, every record verified by the engine (parity).

Each environment plays the same mix of 1,000 games over the four games and their rulesets, choosing
uniformly among the legal actions from the action mask, and hands every game's record to
:func:`engine.verify.verify`. Banter's long default games are kept to 50 of the 1,000 (the rest play
to ``max_rounds=2``) so that the whole file takes seconds (docs/training.md, "Environments", has the
speeds).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import numpy as np
import pytest

from engine.env import aec_env, gym_env, parallel_env
from engine.verify import verify

#: (game, seats, options, games): 1,000 games in all.
MIX = [
    ("war", 2, {}, 100),
    ("1923", 2, {"mode": "set"}, 200),
    ("1923", 3, {"mode": "set"}, 100),
    ("banter", 2, {"max_rounds": 2}, 150),
    ("banter", 2, {}, 50),
    ("punk", 4, {}, 200),
    ("punk", 3, {"dummy": True}, 200),
]


def pick(moves: random.Random, mask: np.ndarray[Any, Any]) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[moves.randrange(len(legal))])


def aec_games(game: str, seats: int, options: dict[str, Any], games: int, moves: random.Random) -> list[Any]:
    env, records = aec_env(game, seats, **options), []
    for seed in range(games):
        env.reset(seed=seed)
        for _ in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            env.step(None if terminated or truncated else pick(moves, observation["action_mask"]))
        records.append(env.record())
    return records


def parallel_games(game: str, seats: int, options: dict[str, Any], games: int, moves: random.Random) -> list[Any]:
    env, records = parallel_env(game, seats, **options), []
    for seed in range(games):
        observations, infos = env.reset(seed=seed)
        while env.agents:
            asked = [agent for agent in env.agents if infos[agent]["legal_actions"]]
            observations, _, _, _, infos = env.step(
                {agent: pick(moves, observations[agent]["action_mask"]) for agent in asked}
            )
        records.append(env.record())
    return records


def gym_games(game: str, seats: int, options: dict[str, Any], games: int, moves: random.Random) -> list[Any]:
    opponents = ["random"] * (seats - 1 - (1 if options.get("dummy") else 0))
    env, records = gym_env(game, opponents, players=seats, **options), []
    for seed in range(games):
        observation, _ = env.reset(seed=seed)
        done = False
        while not done:
            observation, _, done, _, _ = env.step(pick(moves, observation["action_mask"]))
        records.append(env.record())
    env.close()
    return records


@pytest.mark.slow
@pytest.mark.parametrize("play", [aec_games, parallel_games, gym_games], ids=["aec", "parallel", "gym"])
def test_a_thousand_random_games_all_verify(play: Any) -> None:
    moves = random.Random(26)
    played: Counter[str] = Counter()
    for game, seats, options, games in MIX:
        for record in play(game, seats, options, games, moves):
            verdict = verify(record)
            assert verdict.ok, f"{game} seed {record.seed}: {verdict}"
            assert record.forfeit is None and record.result is not None
            played[game] += 1
    assert sum(played.values()) == 1000
    assert set(played) == {"war", "1923", "banter", "punk"}
