"""Starting, killing and restarting real Celery worker processes: for tests, the drill and benchmarks.

Each worker runs in its own process group, so a SIGKILL takes the pool's children
with it, as a machine's crash would.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

from django.conf import settings


def _die_with_parent() -> None:
    """Linux: the worker gets SIGTERM if whoever started it dies, so no worker outlives its owner."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except OSError:
        pass


_PR_SET_PDEATHSIG = 1


class WorkerProcess:
    def __init__(
        self,
        name: str,
        *,
        queues: str,
        concurrency: int = 1,
        beat: bool = False,
        env: Mapping[str, str] | None = None,
        log_path: Path | None = None,
    ) -> None:
        self.name = name
        self.queues = queues
        self.concurrency = concurrency
        self.beat = beat
        self.env = dict(env or {})
        self.log_path = log_path
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0
        #: Beat's schedule file (a shelve: the name may gain a suffix), removed when the worker ends.
        self.schedule: Path | None = None

    def start(self, *, timeout: float = 60) -> None:
        ready = Path(tempfile.mkstemp(prefix=f"worker-{self.name}-", suffix=".ready")[1])
        ready.unlink()
        command = [
            sys.executable, "-m", "celery", "-A", "config", "worker",
            "--queues", self.queues, "--concurrency", str(self.concurrency), "--pool", "prefork",
            "--hostname", f"{self.name}@%h", "--without-gossip", "--without-mingle", "--loglevel", "warning",
        ]  # fmt: skip
        if self.beat:
            self.schedule = ready.with_suffix(".beat")
            command += ["--beat", "--schedule", str(self.schedule)]
        env = {**os.environ, **self.env, "CARDCLUB_WORKER_READY_FILE": str(ready)}
        output = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL  # noqa: SIM115
        self.process = subprocess.Popen(
            command,
            env=env,
            cwd=settings.BASE_DIR,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
        self.starts += 1
        deadline = time.monotonic() + timeout
        while not ready.exists():
            if self.process.poll() is not None:
                raise RuntimeError(f"worker {self.name} exited with {self.process.returncode} before it was ready")
            if time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"worker {self.name} was not ready within {timeout} s")
            time.sleep(0.05)
        ready.unlink()

    def kill(self) -> None:
        """SIGKILL the worker and its pool: no clean-up, no acknowledgements, as in a crash."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self._remove_schedule()

    def stop(self, *, timeout: float = 30) -> None:
        """A warm shutdown: finish the current task within ``timeout`` seconds, else killed."""
        if self.process is None or self.process.poll() is not None:
            self._remove_schedule()
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
        self._remove_schedule()

    def _remove_schedule(self) -> None:
        if self.schedule is not None:
            for path in self.schedule.parent.glob(f"{self.schedule.name}*"):
                path.unlink(missing_ok=True)

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None
