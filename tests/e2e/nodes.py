"""Web servers in processes of their own, for the tests that need the service as deployed.

A node runs a command (a ``deploy/Procfile`` line, or the same server with other arguments) on the
test's database, in its own process group, on a port of its own; it is up once ``/api/`` answers.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path

from django.conf import settings

PROCFILE = Path(settings.BASE_DIR) / "deploy" / "Procfile"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def database_url() -> str:
    """The test database as another process reaches it (the suite's DATABASE_URL names the database it copies)."""
    from django.db import connection

    db = connection.settings_dict
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


def procfile() -> dict[str, str]:
    """The Procfile's processes: name to command line."""
    lines = (line.split(":", 1) for line in PROCFILE.read_text().splitlines() if line.strip())
    return {name.strip(): command.strip() for name, command in lines}


class Node:
    """A server process: started, waited for until it answers, and killed with its whole group."""

    def __init__(self, label: str, *, env: Mapping[str, str], log_path: Path, port: int | None = None) -> None:
        self.label = label
        self.port = port or free_port()
        self.env = dict(env)
        self.log_path = log_path
        self.process: subprocess.Popen[bytes] | None = None

    def command(self) -> Sequence[str]:
        raise NotImplementedError

    def start(self) -> None:
        # The virtualenv's bin first, as the deployment's units and Procfile expect.
        env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}", **self.env}
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                list(self.command()),
                cwd=settings.BASE_DIR,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + 60
        while not self.answers():
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.label} exited with {self.process.returncode}: see {self.log_path}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.label} did not answer within 60 s: see {self.log_path}")
            time.sleep(0.1)

    def answers(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/api/", timeout=2) as response:
                return bool(response.status == 200)
        except (OSError, urllib.error.URLError):
            return False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


class ProcfileNode(Node):
    """One ``deploy/Procfile`` process, as honcho would start it (``PORT`` and ``LIVE_PORT`` set to ours)."""

    def __init__(self, name: str, *, env: Mapping[str, str], log_path: Path) -> None:
        super().__init__(name, env=env, log_path=log_path)
        self.line = procfile()[name]
        self.env.update(PORT=str(self.port), LIVE_PORT=str(self.port))

    def command(self) -> Sequence[str]:
        return ["sh", "-c", f"exec {self.line}"]
