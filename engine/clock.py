"""Time control for bots outside this process: a per-move limit, a per-match bank and a wall clock.

Each decision may take ``move_ms``; time beyond that is drawn from the match's
``bank_ms``, and a decision that would overdraw the bank is a timeout. The
wall clock bounds the whole match, however the bot spends its moves.
"""

from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass(frozen=True)
class TimeControl:
    move_ms: int = 1000
    bank_ms: int = 10_000
    #: The whole match, start-up included: no bot keeps a worker longer than this.
    wall_ms: int = 300_000
    #: Start-up: the sandbox, the interpreter, the bot's imports and its answer to "start".
    start_ms: int = 5000

    def __post_init__(self) -> None:
        for name in ("move_ms", "wall_ms", "start_ms"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, not {getattr(self, name)}")
        if self.bank_ms < 0:
            raise ValueError(f"bank_ms must not be negative, not {self.bank_ms}")


class Clock:
    """One match's clock for one bot."""

    def __init__(self, control: TimeControl) -> None:
        self.control = control
        self.bank_s = control.bank_ms / 1000
        self.wall_deadline = time.monotonic() + control.wall_ms / 1000

    def allowance(self) -> float:
        """Seconds the next decision may take: its move time plus the bank, within the wall clock."""
        return max(0.0, min(self.control.move_ms / 1000 + self.bank_s, self.wall_deadline - time.monotonic()))

    def start_allowance(self) -> float:
        return max(0.0, min(self.control.start_ms / 1000, self.wall_deadline - time.monotonic()))

    def spend(self, seconds: float) -> None:
        self.bank_s = max(0.0, self.bank_s - max(0.0, seconds - self.control.move_ms / 1000))

    def remaining(self) -> dict[str, int]:
        """What a bot is told before each decision (docs/bot-protocol.md, "Time")."""
        wall_ms = max(0, int((self.wall_deadline - time.monotonic()) * 1000))
        return {"move_ms": self.control.move_ms, "bank_ms": int(self.bank_s * 1000), "wall_ms": wall_ms}
