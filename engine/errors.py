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


def shown(value: object, limit: int = 80) -> str:
    """``repr(value)`` as a message quotes it: one line of at most ``limit`` characters, whatever the value.

    Messages quote what a record, a bot or a caller sent, which may be a megabyte of text, a list
    nested too deeply for ``repr`` (RecursionError) or an int past Python's 4,300-digit limit on
    converting ints to text (ValueError): the message must still come out, and stay readable.
    """
    if isinstance(value, int) and value.bit_length() > 4 * limit:
        return f"<a whole number of {value.bit_length()} bits>"
    try:
        text = repr(value)
    except (ValueError, RecursionError):
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 1] + "…"
