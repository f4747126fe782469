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

import pytest
from django.db import connection

from config.celery import app
from tournaments.worker_processes import WorkerProcess

BROKER = os.environ.get("CELERY_BROKER_URL", "")


@pytest.fixture
def workers(transactional_db: None, settings: object, tmp_path: Path) -> Iterator[Callable[..., WorkerProcess]]:
    """Start real workers with ``start(name)``; all are stopped (killed) at the end of the test."""
    if connection.vendor != "postgresql" or not BROKER.startswith("redis://"):
        if os.environ.get("CI") == "true":
            pytest.fail("CI must run the worker tests on PostgreSQL and Redis")
        pytest.skip("needs PostgreSQL (DATABASE_URL) and Redis (CELERY_BROKER_URL)")
    token = uuid.uuid4().hex[:8]
    games_queue, default_queue = f"games-{token}", f"default-{token}"
    settings.CELERY_GAMES_QUEUE = games_queue  # type: ignore[attr-defined]
    app.conf.task_always_eager = False
    db = connection.settings_dict
    env = {
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "CELERY_BROKER_URL": BROKER,
        "CELERY_GAMES_QUEUE": games_queue,
        "CELERY_DEFAULT_QUEUE": default_queue,
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "MATCH_HEARTBEAT_SECONDS": "1",
        "MATCH_HEARTBEAT_GRACE": "4",
        "MATCH_QUEUE_GRACE": "2",
        "MATCH_REAP_SECONDS": "1",
    }
    started: list[WorkerProcess] = []

    def start(
        name: str, *, beat: bool = False, concurrency: int = 1, extra_env: dict[str, str] | None = None
    ) -> WorkerProcess:
        worker = WorkerProcess(
            f"{name}-{token}",
            queues=f"{games_queue},{default_queue}",
            concurrency=concurrency,
            beat=beat,
            env={**env, **(extra_env or {})},
            log_path=tmp_path / f"{name}.log",
        )
        worker.start()
        started.append(worker)
        return worker

    try:
        yield start
    finally:
        for worker in started:
            worker.kill()
        app.conf.task_always_eager = True
        with app.connection_for_write() as conn:
            for queue in (games_queue, default_queue):
                conn.default_channel.queue_delete(queue)


def wait_for(condition: Callable[[], bool], *, timeout: float = 90, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.2)
