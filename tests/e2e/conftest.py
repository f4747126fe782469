"""Real parts: a `celery worker` process on the test's PostgreSQL database and the real Redis.

A worker in another process cannot see a test's uncommitted transaction, so these
tests use transactional_db (DESIGN.md, "Tests with a real worker"). Each test
gets queues of its own, so no task leaks from one test into the next.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.db import connection

from config.celery import app
from tests.e2e.nodes import database_url
from tests.e2e.service_control import Postgres, Redis, Uncontrollable, skip_or_fail
from tournaments.models import Competition, Match
from tournaments.worker_processes import WorkerProcess

BROKER = os.environ.get("CELERY_BROKER_URL", "")
CHROMIUM = "/usr/bin/chromium"
#: Where browser tests leave their screenshots, to be looked at.
SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
#: A desktop's width and a phone's (an iPhone 12 to 15: 390 × 844): every page of the site is tried at both.
WIDTHS = (1280, 390)
HEIGHTS = {1280: 900, 390: 844}


def viewport(width: int) -> dict[str, int]:
    return {"width": width, "height": HEIGHTS[width]}


@pytest.fixture(params=WIDTHS, ids=lambda w: f"{w}px")
def width(request: pytest.FixtureRequest) -> int:
    """A test that takes it runs once at each of WIDTHS."""
    return int(request.param)


@pytest.fixture
def page(browser: Any, live_server: Any, width: int) -> Iterator[Any]:
    """A page of its own (its own cookies) at the test's width, closed at the end. A test module may define its
    own ``page`` (test_signup_page.py does)."""
    context = browser.new_context(viewport=viewport(width))
    yield context.new_page()
    context.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's chromium, headless, through Playwright (which never downloads a browser here)."""
    playwright_sync = pytest.importorskip("playwright.sync_api")
    if not os.access(CHROMIUM, os.X_OK):
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the browser tests: {CHROMIUM} is missing (make browser)")
        pytest.skip(f"needs Debian's chromium at {CHROMIUM} (make browser)")
    # Playwright's sync API keeps an event loop in this thread, and Django refuses ORM calls from a thread
    # with a running loop; the test's own ORM calls (set-up, checks) are plain synchronous code.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with playwright_sync.sync_playwright() as playwright:
            launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
            yield launched
            launched.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


class Workers:
    """The ``workers`` fixture: ``workers(name)`` starts a real worker; ``env`` is what every one of them runs
    with (the test's database, broker and queues), for other processes of the test to share."""

    def __init__(self, env: dict[str, str], queues: str, log_dir: Path, token: str) -> None:
        self.env = env
        self.token = token
        self.queues = queues
        self.log_dir = log_dir
        self.started: list[WorkerProcess] = []

    def __call__(
        self, name: str, *, beat: bool = False, concurrency: int = 1, extra_env: dict[str, str] | None = None
    ) -> WorkerProcess:
        worker = WorkerProcess(
            f"{name}-{self.token}",
            queues=self.queues,
            concurrency=concurrency,
            beat=beat,
            env={**self.env, **(extra_env or {})},
            log_path=self.log_dir / f"{name}.log",
        )
        worker.start()
        self.started.append(worker)
        return worker


@pytest.fixture
def workers(transactional_db: None, settings: object, tmp_path: Path) -> Iterator[Workers]:
    """Start real workers with ``workers(name)``; all are stopped (killed) at the end of the test."""
    if connection.vendor != "postgresql" or not BROKER.startswith("redis://"):
        if os.environ.get("CI") == "true":
            pytest.fail("CI must run the worker tests on PostgreSQL and Redis")
        pytest.skip("needs PostgreSQL (DATABASE_URL) and Redis (CELERY_BROKER_URL)")
    token = uuid.uuid4().hex[:8]
    games_queue, default_queue, webhooks_queue = f"games-{token}", f"default-{token}", f"webhooks-{token}"
    settings.CELERY_GAMES_QUEUE = games_queue  # type: ignore[attr-defined]
    settings.CELERY_WEBHOOKS_QUEUE = webhooks_queue  # type: ignore[attr-defined]
    app.conf.task_always_eager = False
    env = {
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": BROKER,
        "CELERY_GAMES_QUEUE": games_queue,
        "CELERY_DEFAULT_QUEUE": default_queue,
        "CELERY_WEBHOOKS_QUEUE": webhooks_queue,
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "MATCH_HEARTBEAT_SECONDS": "1",
        "MATCH_HEARTBEAT_GRACE": "4",
        "MATCH_QUEUE_GRACE": "2",
        "MATCH_REAP_SECONDS": "1",
    }
    started = Workers(env, f"{games_queue},{default_queue},{webhooks_queue}", tmp_path, token)
    try:
        yield started
    finally:
        for worker in started.started:
            worker.kill()
        app.conf.task_always_eager = True
        try:
            with app.connection_for_write() as conn:
                for queue in (games_queue, default_queue, webhooks_queue):
                    conn.default_channel.queue_delete(queue)
        except Exception:
            # A drill may have left the broker down (it restarts it in its own clean-up): nothing to delete then.
            pass


@pytest.fixture
def local_postgres(transactional_db: None) -> Iterator[Postgres]:
    """The test database's PostgreSQL, for a drill to restart; skipped (failed with CI=true) if it cannot be.

    Whatever the drill did, the database is up again afterwards: the rest of the suite needs it.
    """
    try:
        server = Postgres.of_this_test()
    except Uncontrollable as exc:
        skip_or_fail(str(exc))
    try:
        yield server
    finally:
        server.start_if_down()


@pytest.fixture
def local_redis() -> Iterator[Redis]:
    """The broker's Redis, for a drill to take down; skipped (failed with CI=true) if it cannot be."""
    try:
        server = Redis.at(BROKER)
    except Uncontrollable as exc:
        skip_or_fail(str(exc))
    try:
        yield server
    finally:
        server.start_if_down()


def wait_for(condition: Callable[[], bool], *, timeout: float = 90, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.2)


def settled(competition: Competition) -> Callable[[], bool]:
    """For ``wait_for``: the competition finished, or stuck (a match in error will not finish, and the
    assertions after say why)."""

    def check() -> bool:
        competition.refresh_from_db()
        stuck = Match.objects.filter(competition=competition, status=Match.Status.ERROR).exists()
        return stuck or competition.status == Competition.Status.FINISHED

    return check
