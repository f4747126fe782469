"""What a built-in bot is given, apart from the registry so that each game's bots can import it.

engine/bots/__init__.py imports every game's bots to build its registry; were these types
there, each game's bot module would import its own package back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.agents import Agent
from engine.rng import Rng


@dataclass(frozen=True)
class BotContext:
    game: str
    seat: int
    players: int
    options: Mapping[str, Any]
    rng: Rng


BotFactory = Callable[[BotContext], Agent]
