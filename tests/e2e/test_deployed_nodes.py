"""The nodes as deployed cannot be starved by live tables' event streams (issue 21, finding 1).

Each node is started from its line in ``deploy/Procfile`` (the same command the systemd units run), on
the test's PostgreSQL database. Clients hold twice as many event streams open as the node has workers,
reconnecting as a browser's EventSource does whenever a stream ends, while the standings are read.
"""

from __future__ import annotations

import re
import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection

from tests.e2e.conftest import wait_for
from tests.e2e.nodes import ProcfileNode, database_url, procfile
from tests.tournaments.live_support import live_match

UNITS = Path(settings.BASE_DIR) / "deploy" / "systemd"
DEPLOY_DOC = Path(settings.BASE_DIR) / "docs" / "deploy.md"


def worker_count(command: str) -> int:
    found = re.search(r"--workers (\d+)", command)
    assert found, command
    return int(found.group(1))


class DeployedNode(ProcfileNode):
    """A Procfile node on the test's PostgreSQL database, with as many workers as its line starts."""

    def __init__(self, name: str, tmp_path: Path) -> None:
        env = {
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "DATABASE_URL": database_url(),
            "CELERY_TASK_ALWAYS_EAGER": "false",
        }
        super().__init__(name, env=env, log_path=tmp_path / f"{name}.log")
        self.workers = worker_count(self.line)


def get(url: str, *, timeout: float) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.status, response.read()


class Watchers:
    """Pages watching a table: each holds its stream open and comes back whenever it ends, as EventSource does."""

    def __init__(self, port: int, path: str, count: int) -> None:
        self.port, self.path = port, path
        self.stopping = threading.Event()
        self.opened = 0
        self.events = 0
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self._watch, daemon=True) for _ in range(count)]

    def __enter__(self) -> Watchers:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *_: Any) -> None:
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=10)

    def _watch(self) -> None:
        request = f"GET {self.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".encode()
        while not self.stopping.is_set():
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
                    sock.sendall(request)
                    with self.lock:
                        self.opened += 1
                    self._read(sock)
            except OSError:
                pass
            self.stopping.wait(0.2)  # a browser waits `retry` (LIVE_RETRY_MS); sooner is the harder test

    def _read(self, sock: socket.socket) -> None:
        while not self.stopping.is_set():
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                continue
            if not chunk:
                return
            with self.lock:
                self.events += chunk.count(b"event: table")


@pytest.fixture
def live_table(transactional_db: None) -> Iterator[tuple[int, int]]:
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (DATABASE_URL): the nodes are other processes")
    match, _ = live_match("1923", options={"mode": "set"})
    yield match.pk, match.competition_id


@pytest.mark.parametrize("name", ["web", "live"])
def test_open_event_streams_leave_a_node_free_for_everything_else(
    live_table: tuple[int, int], tmp_path: Path, name: str
) -> None:
    match_id, competition_id = live_table
    node = DeployedNode(name, tmp_path)
    node.start()
    standings = f"{node.url}/api/tournaments/{competition_id}/standings/"
    try:
        for _ in range(node.workers * 2):  # every worker warmed up: the first request of each imports more
            assert get(standings, timeout=10)[0] == 200
        with Watchers(node.port, f"/api/matches/{match_id}/events/", 2 * node.workers) as pages:
            wait_for(lambda: pages.opened >= 2 * node.workers, timeout=10, what="every stream to open")
            time.sleep(1)  # the streams are being held (or answered and reopened) while we read
            took = []
            for _ in range(5):
                started = time.monotonic()
                status, _ = get(standings, timeout=30)
                took.append(time.monotonic() - started)
                assert status == 200
            assert pages.events >= 2 * node.workers  # every page got its table
        report = f"{name} node, {node.workers} workers, {2 * node.workers} streams open: standings in " + ", ".join(
            f"{seconds * 1000:.0f} ms" for seconds in took
        )
        print(report)
        assert max(took) < 1.0, report
    finally:
        node.kill()


def test_the_deployment_routes_event_streams_to_the_live_table_node() -> None:
    """The proxy example sends the streams to the node the Procfile's ``live`` and the systemd unit start."""
    live = procfile()["live"]
    assert live.startswith("env DATABASE_POOL=true uvicorn config.asgi:application")
    live_port = re.search(r"\$\{LIVE_PORT:-(\d+)\}", live)
    unit = (UNITS / "cardclub-live.service").read_text()
    unit_command = re.search(r"^ExecStart=/srv/cardclub/\.venv/bin/(.*)$", unit, re.M)
    assert live_port and unit_command and "Environment=DATABASE_POOL=true" in unit
    assert unit_command.group(1) == live.removeprefix("env DATABASE_POOL=true ").replace(
        "${LIVE_PORT:-8001}", live_port.group(1)
    )
    nginx = DEPLOY_DOC.read_text().split("```nginx", 1)[1].split("```", 1)[0]
    upstream = re.search(r"upstream cardclub_live \{ server [\d.]+:(\d+); \}", nginx)
    assert upstream and upstream.group(1) == live_port.group(1)
    routes = re.findall(r"location ~ (\S+) \{\s*proxy_pass http://(\w+);", nginx)
    to_live = [pattern for pattern, upstream_name in routes if upstream_name == "cardclub_live"]
    assert to_live, routes
    for what in ("events", "table", "moves"):
        assert re.match(to_live[0], f"/api/matches/12/{what}/"), to_live
    assert not re.match(to_live[0], "/api/tournaments/3/standings/")
    assert "systemctl enable --now cardclub-live" in DEPLOY_DOC.read_text()
