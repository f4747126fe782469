"""An uploaded bot in its sandbox, for one match: JSON lines over pipes, under the match's clock.

The process starts once per match (start-up costs more than a thousand
moves) and is killed, with everything it started, when the match ends or
the bot fails. Reading is non-blocking against a deadline, and stderr is
drained while waiting, so no bot can stall the worker by writing too much,
too little or nothing at all.
"""

from __future__ import annotations

import contextlib
import errno
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine.agents import AgentFailure
from engine.clock import TimeControl
from engine.protocol import MAX_REPLY_BYTES, decode_reply, encode
from engine.remote import RemoteBot
from engine.sandbox.code import BotCode, install, sdk_dir
from engine.sandbox.launch import SandboxLimits, kill_uid, spawn

SANDBOX_TIME_CONTROL = TimeControl(move_ms=1000, bank_ms=10_000, wall_ms=300_000, start_ms=5000)
_DEFAULT_PYTHON = "/usr/bin/python3"


class SandboxedBot(RemoteBot):
    def __init__(
        self,
        *,
        code: BotCode,
        cache_dir: Path,
        game: str,
        players: int,
        options: Mapping[str, Any],
        time_control: TimeControl = SANDBOX_TIME_CONTROL,
        limits: SandboxLimits | None = None,
        python: str = _DEFAULT_PYTHON,
    ) -> None:
        super().__init__(game=game, players=players, options=options, time_control=time_control)
        self.code = code
        self.cache_dir = cache_dir
        self.limits = limits or SandboxLimits()
        self.python = python
        self.process: subprocess.Popen[bytes] | None = None
        self.uid = 0
        self._selector: selectors.BaseSelector | None = None
        self._pending = b""
        self._log = bytearray()
        self._log_dropped = 0

    # Transport.
    def _launch(self) -> None:
        code_dir = install(self.code, self.cache_dir)
        self.process, self.uid = spawn(
            code_dir=code_dir,
            entry=self.code.entry,
            sdk_dir=sdk_dir(self.cache_dir),
            limits=self.limits,
            python=self.python,
        )
        assert self.process.stdout is not None and self.process.stderr is not None
        self._selector = selectors.DefaultSelector()
        for stream in (self.process.stdout, self.process.stderr):
            os.set_blocking(stream.fileno(), False)
            self._selector.register(stream.fileno(), selectors.EVENT_READ, stream)

    def _exchange(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        self._write(encode(message) + b"\n")
        return decode_reply(self._read_line(deadline, timeout))

    def _notify(self, message: dict[str, Any]) -> None:
        if self.process is None:
            return
        with contextlib.suppress(AgentFailure):
            self._write(encode(message) + b"\n")

    def _shutdown(self) -> None:
        process = self.process
        if process is None:
            return
        kill_uid(self.uid)
        process.wait()
        self._drain_stderr()
        if self._selector is not None:
            self._selector.close()
            self._selector = None
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    @property
    def log(self) -> str:
        text = self._log.decode("utf-8", "replace")
        if self._log_dropped:
            text += f"\n[… {self._log_dropped:,} more bytes of stderr dropped]"
        return text

    # Pipes.
    def _write(self, data: bytes) -> None:
        assert self.process is not None and self.process.stdin is not None
        try:
            self.process.stdin.write(data)
            self.process.stdin.flush()
        except (BrokenPipeError, ValueError):
            raise self._death("stopped reading its input") from None
        except OSError as exc:
            if exc.errno != errno.EPIPE:
                raise
            raise self._death("stopped reading its input") from None

    def _read_line(self, deadline: float, timeout: float) -> bytes:
        assert self.process is not None and self._selector is not None
        stdout_fd = self.process.stdout.fileno()  # type: ignore[union-attr]
        while True:
            newline = self._pending.find(b"\n")
            if newline >= 0:
                line, self._pending = self._pending[:newline], self._pending[newline + 1 :]
                return line
            if len(self._pending) > MAX_REPLY_BYTES:
                raise AgentFailure("bad_output", f"a reply of more than {MAX_REPLY_BYTES} bytes without a newline")
            left = deadline - time.monotonic()
            if left <= 0:
                raise AgentFailure("timeout", f"no answer within {timeout * 1000:.0f} ms")
            for key, _ in self._selector.select(left):
                chunk = self._read(key.fd)
                if chunk is None:
                    continue
                if key.fd == stdout_fd:
                    if not chunk:
                        raise self._death("closed its output")
                    self._pending += chunk
                else:
                    self._keep_log(chunk)

    @staticmethod
    def _read(fd: int) -> bytes | None:
        """A chunk, b"" at end of file, or None when a wakeup had nothing after all."""
        try:
            return os.read(fd, 65536)
        except BlockingIOError:
            return None

    def _keep_log(self, chunk: bytes) -> None:
        room = self.limits.log_bytes - len(self._log)
        self._log += chunk[: max(room, 0)]
        self._log_dropped += max(len(chunk) - room, 0)

    def _drain_stderr(self) -> None:
        """After the process is gone: whatever it left in the pipe (a traceback, most often)."""
        stderr = self.process.stderr if self.process is not None else None
        if stderr is None or stderr.closed:
            return
        try:
            while chunk := os.read(stderr.fileno(), 65536):
                self._keep_log(chunk)
        except (BlockingIOError, OSError):
            pass

    def _death(self, what: str) -> AgentFailure:
        """Why the bot stopped, as its owner needs to hear it: a crash, or a timeout if its CPU time ran out."""
        assert self.process is not None
        try:
            status = self.process.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            return AgentFailure("crash", f"the bot {what}")
        self._drain_stderr()
        # bwrap reports a child killed by a signal as 128 + the signal's number.
        signum = -status if status < 0 else status - 128 if status > 128 else 0
        if signum == signal.SIGXCPU:
            return AgentFailure("timeout", f"the bot used up its {self.limits.cpu_seconds} s of CPU time for the match")
        if signum in _SIGNALS:
            return AgentFailure("crash", f"the bot {what}: killed by {_SIGNALS[signum]}")
        return AgentFailure("crash", f"the bot {what}: exited with status {status}")


_SIGNALS = {int(s): s.name for s in signal.Signals}
