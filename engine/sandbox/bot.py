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
from engine.sandbox import cgroups
from engine.sandbox.code import BotCode, install, sdk_dir
from engine.sandbox.launch import SandboxLimits, UidLease, kill_uid, spawn

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
        self.lease: UidLease | None = None
        self.cgroup: cgroups.BotCgroup | None = None
        self._down = False
        self._readers: selectors.BaseSelector | None = None
        self._writers: selectors.BaseSelector | None = None
        self._stdin = self._stdout = self._stderr = -1
        self._pending = b""
        self._log = bytearray()
        self._log_dropped = 0

    # Transport.
    def _launch(self) -> None:
        code_dir = install(self.code, self.cache_dir)
        self.lease = UidLease(self.cache_dir / ".uids")
        self.uid = self.lease.uid
        self.cgroup = cgroups.create(
            f"bot-{self.uid}", memory_mb=self.limits.memory_mb, processes=self.limits.processes
        )
        self.process = spawn(
            code_dir=code_dir,
            entry=self.code.entry,
            sdk_dir=sdk_dir(self.cache_dir),
            limits=self.limits,
            python=self.python,
            uid=self.uid,
            cgroup=self.cgroup,
        )
        assert self.process.stdin and self.process.stdout and self.process.stderr
        self._stdin = self.process.stdin.fileno()
        self._stdout = self.process.stdout.fileno()
        self._stderr = self.process.stderr.fileno()
        # Every pipe is non-blocking and waited on against the move's deadline: a bot that stops
        # reading its input, or floods its output, can never block the worker.
        self._readers = selectors.DefaultSelector()
        self._writers = selectors.DefaultSelector()
        for fd in (self._stdin, self._stdout, self._stderr):
            os.set_blocking(fd, False)
        for selector in (self._readers, self._writers):
            selector.register(self._stdout, selectors.EVENT_READ)
            selector.register(self._stderr, selectors.EVENT_READ)
        self._writers.register(self._stdin, selectors.EVENT_WRITE)

    def _exchange(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        assert self._readers is not None
        self._check_cpu()
        self._pump(self._readers, 0)
        if self._pending:
            # Answers queued before the question could not have been about it.
            raise AgentFailure("bad_output", "the bot answered before it was asked")
        self._send(encode(message) + b"\n", deadline)
        return decode_reply(self._read_line(deadline, timeout))

    def _notify(self, message: dict[str, Any]) -> None:
        if self.process is None:
            return
        with contextlib.suppress(AgentFailure):
            self._send(encode(message) + b"\n", time.monotonic() + 0.1)

    def _shutdown(self) -> None:
        # Once only: after the lease is released the uid may belong to another bot, which a
        # second kill would hit.
        if self._down:
            return
        self._down = True
        process = self.process
        if process is None:
            if self.cgroup is not None:
                self.cgroup.remove()
            if self.lease is not None:
                self.lease.release()
            return
        kill_uid(self.uid)
        process.wait()
        if self.cgroup is not None:
            self.cgroup.remove()
        # Only now, with every process of the uid gone, may another sandbox have it.
        assert self.lease is not None
        self.lease.release()
        self._drain_stderr()
        for selector in (self._readers, self._writers):
            if selector is not None:
                selector.close()
        self._readers = self._writers = None
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

    def _check_cpu(self) -> None:
        """The match's CPU budget, counted over every process and thread the bot ran (with a cgroup)."""
        if self.cgroup is not None and self.cgroup.cpu_seconds() > self.limits.cpu_seconds:
            raise AgentFailure("timeout", f"the bot used up its {self.limits.cpu_seconds} s of CPU time for the match")

    # Pipes.
    def _send(self, data: bytes, deadline: float) -> None:
        assert self._writers is not None
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self._stdin, view) :]
                continue
            except BlockingIOError:
                pass
            except OSError as exc:
                if exc.errno != errno.EPIPE:
                    raise
                raise self._death("stopped reading its input") from None
            left = deadline - time.monotonic()
            if left <= 0:
                raise AgentFailure("timeout", "the bot did not read its input in time")
            self._pump(self._writers, left)

    def _read_line(self, deadline: float, timeout: float) -> bytes:
        assert self._readers is not None
        while True:
            newline = self._pending.find(b"\n")
            if newline >= 0:
                line, self._pending = self._pending[:newline], self._pending[newline + 1 :]
                return line
            left = deadline - time.monotonic()
            if left <= 0:
                raise AgentFailure("timeout", f"no answer within {timeout * 1000:.0f} ms")
            self._pump(self._readers, left)

    def _pump(self, selector: selectors.BaseSelector, timeout: float) -> None:
        """Wait up to ``timeout`` for the pipes, taking in whatever the bot wrote meanwhile."""
        for key, _ in selector.select(timeout):
            if key.fd == self._stdin:
                continue  # writable again: the caller writes
            chunk = self._read(key.fd)
            if chunk is None:
                continue
            if key.fd == self._stdout:
                if not chunk:
                    raise self._death("closed its output")
                self._pending += chunk
                if len(self._pending) > MAX_REPLY_BYTES and b"\n" not in self._pending:
                    raise AgentFailure("bad_output", f"a reply of more than {MAX_REPLY_BYTES} bytes without a newline")
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
        if signum == signal.SIGKILL and self.cgroup is not None and self.cgroup.out_of_memory():
            return AgentFailure("crash", f"the bot {what}: killed for using more than {self.limits.memory_mb} MB")
        if signum == signal.SIGXCPU:
            return AgentFailure("timeout", f"the bot used up its {self.limits.cpu_seconds} s of CPU time for the match")
        if signum in _SIGNALS:
            return AgentFailure("crash", f"the bot {what}: killed by {_SIGNALS[signum]}")
        return AgentFailure("crash", f"the bot {what}: exited with status {status}")


_SIGNALS = {int(s): s.name for s in signal.Signals}
