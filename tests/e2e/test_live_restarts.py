"""A live table survives its web server being killed, and Redis restarted, mid-game: every move was stored.

The server is a real `manage.py runserver` process on the test's PostgreSQL database; the
people are HTTP clients with tokens. Killing it (SIGKILL, its whole process group) and
starting another leaves the table exactly where the last answered move put it.
"""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from rest_framework.authtoken.models import Token

from tests.e2e.conftest import wait_for
from tests.e2e.nodes import database_url, free_port
from tests.e2e.service_control import Redis
from tests.tournaments.live_support import assert_recorded_fairly, live_match
from tournaments.models import LiveMove, Match


class WebServer:
    def __init__(self, port: int) -> None:
        self.port = port
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "DATABASE_URL": database_url(),
            "CELERY_TASK_ALWAYS_EAGER": "false",
        }
        self.process = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{self.port}"],
            cwd=settings.BASE_DIR,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        wait_for(self._listening, timeout=30, what="the web server to listen")

    def _listening(self) -> bool:
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
            return True
        except OSError:
            return False

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


@pytest.fixture
def web(transactional_db: None) -> Iterator[WebServer]:
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (DATABASE_URL): the server is another process")
    server = WebServer(free_port())
    try:
        yield server
    finally:
        server.kill()


def call(server: WebServer, token: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{server.port}{path}",
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
        method="GET" if body is None else "POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def test_a_web_server_killed_mid_game_loses_no_move(web: WebServer) -> None:
    match, players = live_match("punk", people=3)
    tokens = [Token.objects.get_or_create(user=p.user)[0].key for p in players]
    rng = random.Random(4)
    web.start()
    moves = 0
    answered_version = 0
    while moves < 5:
        for token in tokens:
            _, table = call(web, token, f"/api/matches/{match.pk}/table/")
            if table["legal_actions"]:
                body = {"action": rng.choice(table["legal_actions"]), "version": table["version"]}
                status, after = call(
                    web, token, f"/api/matches/{match.pk}/moves/", {**body, "client_move_id": str(moves)}
                )
                assert status == 200, after
                answered_version = after["version"]
                moves += 1
    web.kill()
    assert Match.objects.get(pk=match.pk).version == answered_version
    web.start()
    _, table = call(web, tokens[0], f"/api/matches/{match.pk}/table/")
    assert table["version"] == answered_version
    assert LiveMove.objects.filter(match=match).count() == moves
    # Play on to the end through the new server.
    while Match.objects.get(pk=match.pk).status == Match.Status.LIVE:
        for token in tokens:
            _, table = call(web, token, f"/api/matches/{match.pk}/table/")
            if table["legal_actions"]:
                body = {"action": rng.choice(table["legal_actions"]), "version": table["version"]}
                status, _ = call(web, token, f"/api/matches/{match.pk}/moves/", {**body, "client_move_id": str(moves)})
                assert status == 200
                moves += 1
    assert_recorded_fairly(match)


def test_a_redis_restart_mid_game_loses_no_move(workers: Any, local_redis: Redis) -> None:
    """Redis keeps nothing across the restart (as CI runs it): the nudges and a bot's queued turn are lost,
    the moves are not, and the beat's sweep sends the bot's turn again."""
    from tests.e2e.test_drill import restart_redis
    from tests.e2e.test_live_play import play_as_people, status_of, token_client

    workers("w1", beat=True, extra_env={"LIVE_CLOCK_SECONDS": "1", "LIVE_BOT_GRACE": "2"})
    match, (alice,) = live_match("banter", people=1, bots=1)
    client = token_client(alice)
    rng = random.Random(2)
    for number in range(4):
        wait_for(
            lambda: bool(client.get(f"/api/matches/{match.pk}/table/").json()["legal_actions"]),
            what="alice's turn",
        )
        table = client.get(f"/api/matches/{match.pk}/table/").json()
        body = {
            "action": rng.choice(table["legal_actions"]),
            "version": table["version"],
            "client_move_id": f"r{number}",
        }
        assert client.post(f"/api/matches/{match.pk}/moves/", body, format="json").status_code == 200
    before = LiveMove.objects.filter(match=match).count()
    version = Match.objects.get(pk=match.pk).version
    restart_redis(local_redis)
    assert LiveMove.objects.filter(match=match).count() >= before
    assert Match.objects.get(pk=match.pk).version >= version
    play_as_people(match, [alice], seed=8)
    wait_for(lambda: status_of(match) == Match.Status.DONE, what="the match to be recorded")
    assert_recorded_fairly(match)
