"""Web nodes through outages of PostgreSQL and Redis (issue 21, findings 6, 7 and 2): a live-table node
(uvicorn, DATABASE_POOL=true) and a web node (gunicorn), each a real server on the test's database and
the suite's Redis.

The service reaches both through TCP proxies this test runs (tests/config/outage_support.py): stopping
one cuts every connection through it and refuses new ones, as a stopped server does, and leaves the
shared PostgreSQL and Redis running. A PostgreSQL restart is its backends terminated, for this test's
database only.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests
from django.db import connection
from rest_framework.authtoken.models import Token

from config.celery import app
from config.unavailable import RETRY_AFTER
from tests.config.outage_support import TcpProxy, closed_port
from tests.tournaments.live_support import live_match
from tournaments.models import Match

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]
BROKER = os.environ.get("CELERY_BROKER_URL", "")
#: The pool's wait for a connection (DATABASE_POOL_TIMEOUT) and a margin for the machine being busy.
FAILS_WITHIN = 2 + 1.5
#: How long PostgreSQL stays away in the outage test (OUTAGE_SECONDS=40 for a drill's length).
OUTAGE_SECONDS = float(os.environ.get("OUTAGE_SECONDS", "10"))


@dataclass
class Node:
    url: str
    database: TcpProxy
    redis: TcpProxy
    log: Path
    #: Its processes: each logs its own warning when Redis goes.
    processes: int

    def get(self, path: str, token: str | None = None, **kwargs: object) -> requests.Response:
        return requests.get(self.url + path, headers=_auth(token), timeout=15, **kwargs)  # type: ignore[arg-type]

    def post(self, path: str, body: dict[str, object], token: str | None = None) -> requests.Response:
        return requests.post(self.url + path, json=body, headers=_auth(token), timeout=15)


def _auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Token {token}"} if token else {}


#: The two kinds of web node docs/deploy.md runs: a live-table node (uvicorn, a pool of connections) and a
#: web node (gunicorn's sync workers, each keeping its connection and checking it before reuse).
SERVERS = {
    "uvicorn": (["-m", "uvicorn", "config.asgi:application", "--log-level", "warning"], {"DATABASE_POOL": "true"}),
    "gunicorn": (["-m", "gunicorn", "config.wsgi", "--worker-class", "sync", "--workers", "2"], {}),
}


@pytest.fixture(params=sorted(SERVERS))
def node(request: pytest.FixtureRequest, transactional_db: None, tmp_path: Path) -> Iterator[Node]:
    """One web node as docs/deploy.md runs it, on this test's database and the suite's Redis."""
    if connection.vendor != "postgresql" or not BROKER.startswith("redis://"):
        if os.environ.get("CI") == "true":
            pytest.fail("CI must run the outage tests on PostgreSQL and Redis")
        pytest.skip("needs PostgreSQL (DATABASE_URL) and Redis (CELERY_BROKER_URL)")
    db = connection.settings_dict
    broker = urlsplit(BROKER)
    broker_db = int(broker.path.strip("/") or 0)
    token = uuid.uuid4().hex[:8]
    with (
        TcpProxy((db["HOST"] or "127.0.0.1", int(db["PORT"] or 5432))) as database,
        TcpProxy((broker.hostname or "127.0.0.1", broker.port or 6379)) as redis_proxy,
    ):
        port = closed_port()
        password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
        redis_url = f"redis://127.0.0.1:{redis_proxy.port}"
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "DATABASE_URL": f"postgres://{db['USER']}{password}@127.0.0.1:{database.port}/{db['NAME']}",
            "DATABASE_POOL": "true",
            "CELERY_BROKER_URL": f"{redis_url}/{broker_db}",
            # The cache in the database beside the broker's, as deployed (db 0 and 1, here the suite's n and n+1).
            "CACHE_URL": f"{redis_url}/{broker_db + 1}",
            "CELERY_TASK_ALWAYS_EAGER": "false",
            "CELERY_GAMES_QUEUE": f"games-{token}",
            "CELERY_DEFAULT_QUEUE": f"default-{token}",
        }
        arguments, extra_env = SERVERS[request.param]
        env.update(extra_env)
        bind = ["--bind", f"127.0.0.1:{port}"] if request.param == "gunicorn" else ["--port", str(port)]
        log = tmp_path / f"{request.param}.log"
        with log.open("wb") as output:
            server = subprocess.Popen(
                [sys.executable, *arguments, *bind],
                cwd=ROOT,
                env=env,
                stdout=output,
                stderr=subprocess.STDOUT,
            )
        try:
            processes = 2 if request.param == "gunicorn" else 1
            started = Node(f"http://127.0.0.1:{port}", database, redis_proxy, log, processes)
            _wait_until(lambda: _answers(started), timeout=60, what="the server to start", log=log, server=server)
            yield started
        finally:
            server.kill()
            server.wait(timeout=10)
            with app.connection_for_write() as conn:
                for queue in (f"games-{token}", f"default-{token}"):
                    conn.default_channel.queue_delete(queue)


def _answers(node: Node) -> bool:
    try:
        return node.get("/api/").status_code == 200
    except requests.ConnectionError:
        return False


def _wait_until(
    condition: Callable[[], bool],
    *,
    timeout: float,
    what: str,
    log: Path,
    server: subprocess.Popen[bytes] | None = None,
) -> float:
    started = time.monotonic()
    while not condition():
        if server is not None and server.poll() is not None:
            raise AssertionError(f"the server exited: {log.read_text()[-3000:]}")
        if time.monotonic() - started > timeout:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}: {log.read_text()[-3000:]}")
        time.sleep(0.2)
    return time.monotonic() - started


@pytest.fixture
def live_game() -> tuple[Match, str]:
    """A live Banter match between a person (whose token is given) and a bot: the person moves first."""
    match, (person,) = live_match("banter", people=1, bots=1)
    return match, Token.objects.create(user=person.user).key


def move(node: Node, match: Match, token: str, number: int) -> requests.Response:
    view = node.get(f"/api/matches/{match.pk}/table/", token).json()
    # The person's turn: the bot answered at once (eager) when the test set the match up.
    assert view.get("legal_actions"), view
    body = {"action": view["legal_actions"][0], "version": view["version"], "client_move_id": f"m{number}"}
    return node.post(f"/api/matches/{match.pk}/moves/", body, token)


def terminate_backends() -> int:
    """A PostgreSQL restart, as the node's pooled connections see it: every backend of this test's
    database but the test's own is terminated. Never another database's."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        row = cursor.fetchone()
    return int(row[0]) if row else 0


def test_a_postgresql_restart_costs_no_request(node: Node, live_game: tuple[Match, str]) -> None:
    """The finding: about ten 500s over 6-7 s after a restart, one for each stale pooled connection."""
    match, token = live_game
    paths = ["/api/tournaments/", f"/api/matches/{match.pk}/table/", f"/api/tournaments/{match.competition_id}/"]
    with ThreadPoolExecutor(max_workers=8) as pool:
        # Enough at once that the pool holds several connections.
        warm = list(pool.map(lambda n: node.get(paths[n % 3], token).status_code, range(48)))
        assert set(warm) == {200}
        assert terminate_backends() >= 2
        after = list(pool.map(lambda n: node.get(paths[n % 3], token).status_code, range(48)))
    assert [code for code in after if code >= 500] == [], after
    assert terminate_backends() >= 1
    assert move(node, match, token, 1).status_code == 200


def test_while_postgresql_is_away_the_node_answers_503_at_once_and_recovers_by_itself(
    node: Node, live_game: tuple[Match, str]
) -> None:
    match, token = live_game
    assert node.get("/api/tournaments/").status_code == 200
    node.database.stop()
    stopped = time.monotonic()
    try:
        for path, who in (("/api/tournaments/", None), (f"/api/matches/{match.pk}/table/", token)):
            started = time.monotonic()
            answer = node.get(path, who)
            assert time.monotonic() - started < FAILS_WITHIN
            assert answer.status_code == 503, answer.text
            assert answer.headers["Retry-After"] == str(RETRY_AFTER)
            assert answer.headers["Content-Type"] == "application/json" and "detail" in answer.json()
        body = {"action": "STOP", "version": 1, "client_move_id": "away"}
        started = time.monotonic()
        refused = node.post(f"/api/matches/{match.pk}/moves/", body, token)
        assert refused.status_code == 503 and time.monotonic() - started < FAILS_WITHIN
        events = node.get(f"/api/matches/{match.pk}/events/", token)  # a plain Django view, async under ASGI
        assert events.status_code == 503 and events.headers["Retry-After"] == str(RETRY_AFTER)
        page = node.get(f"/competitions/{match.competition_id}/")
        assert page.status_code == 503 and "Back in a moment" in page.text
        assert page.headers["Retry-After"] == str(RETRY_AFTER)
        # Long enough for the pool to have given up connecting more than once.
        time.sleep(max(0.0, OUTAGE_SECONDS - (time.monotonic() - stopped)))
        assert node.get("/api/tournaments/").status_code == 503
    finally:
        node.database.start()
    # Nobody restarts the node: its pool connects again by itself.
    back = _wait_until(
        lambda: node.get("/api/tournaments/").status_code == 200, timeout=30, what="recovery", log=node.log
    )
    print(f"PostgreSQL away {OUTAGE_SECONDS} s: the node answered again {back:.1f} s after it was back")
    assert back < 5
    assert move(node, match, token, 2).status_code == 200


def test_while_redis_is_away_moves_sign_ins_and_reads_go_on_at_once(node: Node, live_game: tuple[Match, str]) -> None:
    """Finding 2, on a real server: a move that makes it the bot's turn sends a task to the broker, which is
    away; the move is taken at once all the same (a sweep sends the bot's turn again, test_live_sweeps.py)."""
    match, token = live_game
    node.redis.stop()
    try:
        started = time.monotonic()
        moved = move(node, match, token, 1)
        took = time.monotonic() - started
        assert moved.status_code == 200, moved.text
        assert took < 1.0, took
        assert node.get("/api/tournaments/").status_code == 200
        assert node.get(f"/api/tournaments/{match.competition_id}/standings/").status_code == 200
        bot = node.post("/api/bots/", {"name": "made while Redis was away", "game": "war"}, token)
        assert bot.status_code == 201, bot.text
    finally:
        node.redis.start()
    assert node.get("/api/tournaments/").status_code == 200
    # One warning a process, not one a request.
    assert 1 <= node.log.read_text().count("shared cache (CACHE_URL) unreachable") <= node.processes


def database_settings(**env: str) -> dict[str, object]:
    """DATABASES["default"] as a fresh process loads it with this environment."""
    show = "from django.conf import settings as s; import json; print(json.dumps(s.DATABASES['default'], default=str))"
    loaded = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {show}"],
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.local", **env},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert loaded.returncode == 0, loaded.stderr
    settings: dict[str, object] = json.loads(loaded.stdout.strip().splitlines()[-1])
    return settings


def test_every_postgresql_connection_is_checked_and_fails_fast() -> None:
    """gunicorn and the workers keep a connection and ping it before reuse; the pool checks each loan."""
    url = "postgres://cardclub@db.example:5432/cardclub"
    kept = database_settings(DATABASE_URL=url)
    assert kept["CONN_HEALTH_CHECKS"] is True and kept["CONN_MAX_AGE"] == 60
    assert kept["OPTIONS"]["connect_timeout"] == 2  # type: ignore[index]
    pooled = database_settings(DATABASE_URL=url, DATABASE_POOL="true", DATABASE_POOL_TIMEOUT="3")
    assert pooled["ENGINE"] == "config.pooled_postgresql" and pooled["CONN_HEALTH_CHECKS"] is True
    assert pooled["OPTIONS"]["pool"]["timeout"] == 3  # type: ignore[index]
    assert pooled["OPTIONS"]["connect_timeout"] == 2  # type: ignore[index]
