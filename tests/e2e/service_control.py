"""Stopping and starting the PostgreSQL and Redis a test runs on, for the drills (docs/drill.md).

The drills take down the very services the test's DATABASE_URL and CELERY_BROKER_URL name, so
those must run on this machine and be ones this process can control: a PostgreSQL cluster that
Debian's ``pg_lsclusters`` lists on that port (restarted with ``pg_ctlcluster``, as .ci/services.sh
starts it), and a Redis whose process is on this machine (started again with .ci/services.sh's
command, on its own port). In CI they are the real ones on 5432 and 6379, which nothing else uses
while the suite runs. When they cannot be controlled, a drill is skipped, or fails with CI=true.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import NoReturn
from urllib.parse import urlsplit

import pytest
from django.db import connection
from django.db.utils import Error as DatabaseError
from django.utils import timezone

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
#: .ci/services.sh's Redis, for a server that cannot say where it keeps its files.
CI_REDIS_DIR = "/var/lib/redis"
CI_REDIS_LOG = "/var/log/redis/ci.log"


class Uncontrollable(Exception):
    """The service is not one this process can stop and start: the drill cannot run here."""


def skip_or_fail(reason: str) -> NoReturn:
    """Skip the drill, or fail it under CI=true, which must run every drill (like the real-worker tests)."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI must run the drills: {reason}")
    pytest.skip(reason)


def port_open(host: str, port: int) -> bool:
    try:
        socket.create_connection((host, port), timeout=0.5).close()
        return True
    except OSError:
        return False


def wait_for_port(host: str, port: int, *, open_: bool, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while port_open(host, port) != open_:
        if time.monotonic() > deadline:
            raise AssertionError(f"{host}:{port} still {'closed' if open_ else 'open'} after {timeout} s")
        time.sleep(0.05)


@dataclass
class Downtime:
    """When a service's port closed and opened again, as a thread watching it every 10 ms saw it."""

    went: datetime | None = None
    back: datetime | None = None

    @property
    def seconds(self) -> float:
        return 0.0 if self.went is None or self.back is None else (self.back - self.went).total_seconds()


@contextmanager
def watching(host: str, port: int) -> Iterator[Downtime]:
    """Watch the port while the block takes the service down (and maybe up): when it went, when it came back.

    A restart's own tools take seconds around a downtime of a fraction of one (pg_ctlcluster's restart
    takes 2.4 s here, PostgreSQL is down for 0.2 s of it), so the drills time recovery from the port.
    """
    seen = Downtime()
    done = threading.Event()

    def watch() -> None:
        while not done.is_set() or (seen.went is not None and seen.back is None):
            is_open = port_open(host, port)
            if seen.went is None and not is_open:
                seen.went = timezone.now()
            elif seen.went is not None and seen.back is None and is_open:
                seen.back = timezone.now()
            if done.is_set() and seen.went is None:
                return
            time.sleep(0.01)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield seen
    finally:
        done.set()
        watcher.join(timeout=120)


@dataclass(frozen=True)
class Postgres:
    """The PostgreSQL cluster serving the test database, found by its port."""

    version: str
    cluster: str
    host: str
    port: int

    @classmethod
    def of_this_test(cls) -> Postgres:
        db = connection.settings_dict
        if connection.vendor != "postgresql":
            raise Uncontrollable("the drill restarts PostgreSQL: set DATABASE_URL=postgres://...")
        host, port = str(db.get("HOST") or "localhost"), int(db.get("PORT") or 5432)
        if host not in LOCAL_HOSTS:
            raise Uncontrollable(f"the drill restarts PostgreSQL, which must run on this machine, not on {host}")
        if shutil.which("pg_lsclusters") is None or shutil.which("pg_ctlcluster") is None:
            raise Uncontrollable("the drill restarts PostgreSQL with pg_ctlcluster (Debian's postgresql-common)")
        listed = subprocess.run(["pg_lsclusters", "--json"], capture_output=True, text=True, timeout=30)
        try:
            clusters = json.loads(listed.stdout or "[]")
        except ValueError:
            clusters = []
        for cluster in clusters:
            if int(cluster.get("port", 0)) == port and cluster.get("running"):
                return cls(str(cluster["version"]), str(cluster["cluster"]), host, port)
        raise Uncontrollable(f"no running cluster of pg_lsclusters listens on port {port}")

    def _ctl(self, action: str) -> None:
        # Fast mode (pg_ctlcluster's default): open transactions roll back, clients are cut off at once.
        subprocess.run(
            ["pg_ctlcluster", "--skip-systemctl-redirect", self.version, self.cluster, action],
            check=True,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=120,
        )

    def restart(self) -> Downtime:
        """Stop and start at once, as an operator's restart does; returns once the database answers."""
        with watching(self.host, self.port) as downtime:
            try:
                self._ctl("restart")
            finally:
                self.start_if_down()
        return downtime

    def stop_for(self, seconds: float) -> Downtime:
        """Stopped for ``seconds``, then started; returns once the database answers."""
        with watching(self.host, self.port) as downtime:
            try:
                self._ctl("stop")
                wait_for_port(self.host, self.port, open_=False)
                time.sleep(seconds)
            finally:
                self.start_if_down()
        return downtime

    def start_if_down(self) -> None:
        """Whatever happened, the rest of the suite needs the database: start it if it is not answering."""
        if not port_open(self.host, self.port):
            self._ctl("start")
        self.wait_ready()

    def wait_ready(self, timeout: float = 60) -> None:
        """Until the test database answers a query (a started cluster may still be recovering)."""
        deadline = time.monotonic() + timeout
        while not database_answers():
            if time.monotonic() > deadline:
                raise AssertionError(f"PostgreSQL on port {self.port} did not answer within {timeout} s")
            time.sleep(0.05)


def database_answers() -> bool:
    """Whether the test database answers now, from this process: a connection broken by a restart is
    dropped first, as a request's start does in a server (close_old_connections)."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return True
    except DatabaseError:
        connection.close()
        return False


@dataclass(frozen=True)
class Redis:
    """The Redis at a URL, with where it keeps its files, to start it again as it ran."""

    host: str
    port: int
    directory: str
    logfile: str

    @classmethod
    def at(cls, url: str) -> Redis:
        if not url.startswith("redis://"):
            raise Uncontrollable("the drill takes Redis down: set CELERY_BROKER_URL=redis://...")
        parts = urlsplit(url)
        host, port = parts.hostname or "localhost", parts.port or 6379
        if host not in LOCAL_HOSTS:
            raise Uncontrollable(f"the drill takes Redis down, which must run on this machine, not on {host}")
        missing = [tool for tool in ("redis-server", "redis-cli") if shutil.which(tool) is None]
        if missing:
            raise Uncontrollable(f"the drill restarts Redis with {' and '.join(missing)}, not installed")
        pid = _redis_info(host, port).get("process_id", "")
        comm = Path(f"/proc/{pid}/comm")
        if not pid.isdigit() or not comm.exists() or "redis" not in comm.read_text():
            raise Uncontrollable(f"the Redis on port {port} is not a process of this machine")
        directory = _redis_config(host, port, "dir") or CI_REDIS_DIR
        return cls(host, port, directory, _redis_config(host, port, "logfile") or CI_REDIS_LOG)

    def kill(self) -> None:
        """SIGKILL, as a crash or the OOM killer would: nothing saved, every queued task gone."""
        pid = _redis_info(self.host, self.port).get("process_id", "")
        if pid.isdigit():
            os.kill(int(pid), signal.SIGKILL)
        wait_for_port(self.host, self.port, open_=False)

    def kill_for(self, seconds: float) -> Downtime:
        """SIGKILLed, then started again after ``seconds``; returns once it answers PING."""
        with watching(self.host, self.port) as downtime:
            try:
                self.kill()
                time.sleep(seconds)
            finally:
                self.start_if_down()
        return downtime

    def shutdown(self) -> None:
        """A shutdown without saving: everything queued is lost, as with CI's Redis (save "")."""
        _redis_cli(self.host, self.port, "shutdown", "nosave")
        wait_for_port(self.host, self.port, open_=False)

    def start(self) -> None:
        """Start it again with .ci/services.sh's command on this port; returns once it answers PING."""
        Path(self.directory).mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                "redis-server", "--daemonize", "yes", "--bind", "127.0.0.1", "-::1", "--port", str(self.port),
                "--save", "", "--appendonly", "no", "--dir", self.directory, "--logfile", self.logfile,
            ],
            check=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            timeout=10,
        )  # fmt: skip
        self.wait_ready()

    def start_if_down(self) -> None:
        if not port_open(self.host, self.port):
            self.start()

    def wait_ready(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while _redis_cli(self.host, self.port, "ping") != "PONG":
            if time.monotonic() > deadline:
                raise AssertionError(f"Redis on port {self.port} did not answer PING within {timeout} s")
            time.sleep(0.05)


def _redis_cli(host: str, port: int, *command: str) -> str:
    try:
        answer = subprocess.run(
            ["redis-cli", "-h", host, "-p", str(port), *command], capture_output=True, text=True, timeout=10
        )
    except subprocess.TimeoutExpired:
        return ""
    return answer.stdout.strip()


def _redis_info(host: str, port: int) -> dict[str, str]:
    lines = _redis_cli(host, port, "info", "server").splitlines()
    return dict(line.strip().split(":", 1) for line in lines if ":" in line)


def _redis_config(host: str, port: int, name: str) -> str:
    answer = _redis_cli(host, port, "config", "get", name).splitlines()
    return answer[1] if len(answer) == 2 else ""
