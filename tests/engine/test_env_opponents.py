"""The single-agent environment's opponents that live outside this process: an uploaded bot's file run in
the sandbox, and an HTTP bot, each started once and kept for every game, as the server keeps one for a match."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from engine.env import gym_env
from engine.record import Record
from engine.sandbox.bot import SandboxedBot
from engine.verify import verify
from tests.engine.sandbox_support import needs_sandbox
from tests.engine.test_http_bot import BotServer, player, serve  # noqa: F401 (serve is a fixture)


def play_out(env: Any, seed: int) -> tuple[Record, float]:
    observation, _ = env.reset(seed=seed)
    done, reward = False, 0.0
    while not done:
        observation, reward, done, _, _ = env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    return env.record(), reward


@needs_sandbox
def test_an_uploaded_bot_file_plays_in_the_sandbox_for_every_game(tmp_path: Path) -> None:
    bot = tmp_path / "mybot.py"
    bot.write_text("def act(turn):\n    return turn.legal_actions[-1]\n")
    env = gym_env("banter", [str(bot)], seat=1)
    try:
        records = [play_out(env, seed)[0] for seed in (3, 4)]
        remote = env.opponents.remote(0)
        assert isinstance(remote, SandboxedBot) and remote.failure is None
    finally:
        env.close()
    for record in records:
        assert record.forfeit is None and verify(record).ok
    # The bot's choices are in the record: the last legal action each time, so never STOP while it may SPEND.
    assert records[0].actions != records[1].actions


def test_an_http_bot_is_asked_over_one_connection_for_every_game(serve: Callable[..., BotServer]) -> None:  # noqa: F811
    server = serve(player())
    env = gym_env("1923", [server.url], mode="set")
    try:
        records = [play_out(env, seed)[0] for seed in (1, 2)]
    finally:
        env.close()
    for record in records:
        assert record.forfeit is None and verify(record).ok
    decisions = server.types().count("act")
    assert decisions >= 2
    assert server.types() == ["start"] + ["act"] * decisions + ["end"]
    assert server.connections == 1
