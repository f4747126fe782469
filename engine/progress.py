"""A progress line for long runs, on stderr so stdout stays clean for records."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """Redraws one line on a terminal; elsewhere prints a line every few seconds."""

    def __init__(self, total: int, unit: str, *, stream: TextIO | None = None, enabled: bool = True) -> None:
        self.total = total
        self.unit = unit
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = self.stream.isatty()
        self.start = time.perf_counter()
        self._last = self.start
        self._interval = 0.25 if self.tty else 5.0

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self._last < self._interval and done < self.total:
            return
        self._last = now
        rate = done / (now - self.start) if now > self.start else 0.0
        line = f"{done:,}/{self.total:,} {self.unit}  {rate:,.0f} {self.unit}/s"
        if self.tty:
            self.stream.write("\r" + line + "\x1b[K")
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def finish(self) -> None:
        if self.enabled and self.tty:
            self.stream.write("\n")
            self.stream.flush()
