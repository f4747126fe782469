"""Built-in bots: the registry, and what a bot is given.

A bot sees only its seat's observation and the legal actions, never the state
(DESIGN.md). Its randomness comes from its own stream, derived from the game
seed and its seat, so a game with bots is reproducible and never touches the
engine's generator.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any

from engine.agents import Agent
from engine.bots.context import BotContext, BotFactory
from engine.errors import EngineError
from engine.games import UnknownGame, bots_module, get_game, seats_for
from engine.rng import bot_rng

# BotContext and BotFactory are re-exported: callers (the tests among them) take them from the package.
__all__ = [
    "BotContext",
    "BotFactory",
    "RandomBot",
    "SeatMaker",
    "UnknownBot",
    "bot_names",
    "bot_summaries",
    "make_bot",
    "seat_agents",
]


class UnknownBot(EngineError, ValueError):
    pass


class RandomBot:
    """Picks uniformly among the legal actions."""

    def __init__(self, context: BotContext) -> None:
        self._choice = context.rng.choice

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        return self._choice(legal_actions)


@cache
def _bots_in(module: str | None) -> dict[str, BotFactory]:
    """A game's built-in bots: ``random``, and those its bots module lists in ``BOTS``.

    Cached by module rather than by game, so a game registered again with other bots gets those.

    War has no bots module; its entrants still need a name to enter with, and it is never asked.
    """
    own: Mapping[str, BotFactory] = importlib.import_module(module).BOTS if module else {}
    return {"random": RandomBot, **own}


def _registry_of(game: str) -> dict[str, BotFactory]:
    try:
        return _bots_in(bots_module(get_game(game).NAME))
    except UnknownGame:
        return {}


def bot_names(game: str) -> list[str]:
    return sorted(_registry_of(game))


def bot_summaries(game: str) -> dict[str, str]:
    """Each built-in bot's name and how it plays, in one line (its class's docstring), for people choosing one."""
    return {
        name: ((factory.__doc__ or "").strip().splitlines() or [""])[0]
        for name, factory in sorted(_registry_of(game).items())
    }


def make_bot(name: str, *, game: str, seat: int, players: int, options: Mapping[str, Any], seed: int) -> Agent:
    """A built-in bot for ``seat``, with its own random stream."""
    bots = _registry_of(game)
    if name not in bots:
        choices = ", ".join(sorted(bots)) or "none (the game has no decisions)"
        raise UnknownBot(f"unknown bot {name!r} for {game}: choose one of {choices}")
    return bots[name](BotContext(game=game, seat=seat, players=players, options=options, rng=bot_rng(seed, seat)))


#: Makes the agent for one person's seat: (name, seat, seats at the table, parsed options).
SeatMaker = Callable[[str, int, int, Mapping[str, Any]], Agent]


def seat_agents(
    game_name: str,
    bots: Sequence[str],
    options: Mapping[str, object],
    seed: int,
    make: SeatMaker | None = None,
) -> list[Agent | None]:
    """One agent per seat: ``bots`` fill the people's seats in order, the engine's seats get None.

    Names are built-in strategies unless ``make`` reads them otherwise (a bot file, a URL).
    """
    game = get_game(game_name)
    seats = seats_for(game, len(bots), options)
    parsed = game.parse_options(options, seats)
    auto = game.auto_seats(parsed, seats)

    def builtin(name: str, seat: int, seats: int, parsed: Mapping[str, Any]) -> Agent:
        return make_bot(name, game=game.NAME, seat=seat, players=seats, options=parsed, seed=seed)

    maker = make or builtin
    names = iter(bots)
    return [None if seat in auto else maker(next(names), seat, seats, parsed) for seat in range(seats)]
