"""Typed errors raised by the engine.

Every boundary of the engine (cards, options, deals, actions, records) raises a
subclass of :class:`EngineError` with a message meant for a person, so the CLI
and the service can show it as-is instead of a traceback.
"""

from __future__ import annotations


class EngineError(Exception):
    """Base class for every error the engine raises on bad input."""


class CardError(EngineError, ValueError):
    """A card or a list of cards could not be parsed or has the wrong size."""


class OptionError(EngineError, ValueError):
    """A ruleset option is unknown or out of range."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"option '{name}': {reason}")
        self.name = name
        self.reason = reason


class DealError(EngineError, ValueError):
    """An explicit deal does not fit the game, its options or its players."""


class PlayerCountError(EngineError, ValueError):
    """The number of seats does not suit the game."""


class IllegalAction(EngineError):
    """A seat tried an action the rules do not allow in this state."""

    def __init__(self, seat: int, action: object, reason: str) -> None:
        super().__init__(f"seat {seat}: illegal action {action!r}: {reason}")
        self.seat = seat
        self.action = action
        self.reason = reason


class RecordError(EngineError, ValueError):
    """A game record is malformed (not a rule breach: that is a verify failure)."""


class WorkerFault(EngineError, RuntimeError):
    """This machine cannot play a bot (no sandbox, an unusable cache): the worker's fault, never the bot's."""
