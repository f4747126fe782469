"""The local harness: ``python -m engine play GAME --bots ./mybot.py,random``.

A bot file runs in the same sandbox, with the same limits and clock, as on
the server, so its author sees the failures the server would record. A URL
plays an HTTP bot; loopback is allowed here, since the author's own machine
is the point.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from engine.agents import Agent
from engine.bots import make_bot, seat_agents
from engine.errors import EngineError
from engine.games import get_game, seats_for
from engine.remote import RemoteBot
from engine.sandbox.bot import SandboxedBot
from engine.sandbox.code import bot_code

CACHE_DIR = Path(tempfile.gettempdir()) / "cardclub-bots-local"


class BotFileError(EngineError, ValueError):
    pass


def is_external(spec: str) -> bool:
    return spec.startswith(("http://", "https://")) or "/" in spec or spec.endswith((".py", ".zip"))


def remote_bot(spec: str, *, game: str, players: int, options: Mapping[str, object]) -> RemoteBot:
    if spec.startswith(("http://", "https://")):
        from engine.http_bot import HttpBot

        return HttpBot(url=spec, game=game, players=players, options=options, allow_private=True)
    path = Path(spec)
    try:
        content = path.read_bytes()
    except OSError as exc:
        raise BotFileError(f"bot {spec}: {exc.strerror or exc}") from None
    return SandboxedBot(
        code=bot_code(filename=path.name, content=content),
        cache_dir=CACHE_DIR,
        game=game,
        players=players,
        options=options,
    )


def harness_agents(
    game_name: str, specs: Sequence[str], options: Mapping[str, object], seed: int
) -> tuple[list[Agent | None], dict[str, RemoteBot]]:
    """Agents by seat, as :func:`engine.bots.seat_agents` lays them out, and the external bots by name."""
    game = get_game(game_name)
    remotes: dict[str, RemoteBot] = {}
    if not game.DECISIONS:
        # Nobody is asked anything (War): start each bot file, as the server's validation does.
        seats = seats_for(game, len(specs), options)
        parsed = game.parse_options(options, seats)
        for seat, spec in enumerate(specs):
            bot = remote_bot(spec, game=game.NAME, players=seats, options=parsed)
            bot.start()
            remotes[f"{spec} (seat {seat})"] = bot
        return [None] * seats, remotes

    def placed(spec: str, seat: int, seats: int, parsed: Mapping[str, Any]) -> Agent:
        if not is_external(spec):
            return make_bot(spec, game=game.NAME, seat=seat, players=seats, options=parsed, seed=seed)
        bot = remote_bot(spec, game=game.NAME, players=seats, options=parsed)
        remotes[f"{spec} (seat {seat})"] = bot
        return bot.seated(seat, 0)

    return seat_agents(game.NAME, specs, options, seed, make=placed), remotes
