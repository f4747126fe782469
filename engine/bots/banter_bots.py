"""Strategy bots (placeholder until the game module lands)."""

from __future__ import annotations

from engine.bots import BotFactory

BOTS: dict[str, BotFactory] = {}
