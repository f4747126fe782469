"""Background work is enqueued one way (config/background.py): by task name, after commit, and inline in eager mode.

The broker here is the suite's own (Redis when reachable, else the embedded one); each test that
puts messages on it uses a queue of its own and empties it after.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from config.background import enqueue_on_commit, queue_depth, queue_lost_some, registered_task, send_now
from config.celery import app
from league import validation
from league.models import BotVersion
from tests.config.outage_support import SilentServer
from tests.factories import BotVersionFactory
from tournaments.services import live_tables, scheduling, transcripts

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]

CALLS: list[tuple[object, ...]] = []


@app.task(name="tests.config.test_background.record_call")
def record_call(*args: object) -> None:
    CALLS.append(args)


@pytest.fixture
def calls() -> Iterator[list[tuple[object, ...]]]:
    CALLS.clear()
    yield CALLS
    CALLS.clear()


@pytest.fixture
def queue() -> Iterator[str]:
    """A broker queue no worker reads, emptied after the test."""
    name = f"test-background-{uuid.uuid4().hex[:8]}"
    yield name
    with app.connection_for_write() as connection:
        connection.default_channel.queue_purge(name)


@pytest.fixture
def not_eager() -> Iterator[None]:
    # Celery's settings take a change but not monkeypatch's delete, so the old value is put back by hand.
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = False
    yield
    app.conf.task_always_eager = eager


def timed_sends(port: int, count: int) -> tuple[subprocess.CompletedProcess[str], list[float]]:
    """``count`` task sends, timed, from a fresh process whose broker is Redis at ``port`` (so that no
    outage state of this process is shared): the process and each send's seconds."""
    script = (
        "import time, django; django.setup()\n"
        "from config.background import send_now\n"
        f"for n in range({count}):\n"
        "    started = time.monotonic()\n"
        "    send_now('tournaments.tasks.advance_live_match', (n,), queue='games')\n"
        "    print(f'took {time.monotonic() - started:.3f}')\n"
    )
    sent = subprocess.run(
        [sys.executable, "-c", script],
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "CELERY_BROKER_URL": f"redis://127.0.0.1:{port}/6",
            "CELERY_TASK_ALWAYS_EAGER": "false",
        },
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert sent.returncode == 0, sent.stderr
    return sent, [float(line.split()[1]) for line in sent.stdout.splitlines() if line.startswith("took")]


def test_in_eager_mode_the_task_runs_inline_once_the_transaction_commits(
    calls: list[tuple[object, ...]], queue: str, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        enqueue_on_commit(record_call.name, 7, "x", queue=queue)
    assert calls == []  # nothing runs before the commit
    for callback in callbacks:
        callback()
    assert calls == [(7, "x")]
    assert queue_depth(queue) == 0  # and nothing went to the broker


@pytest.mark.usefixtures("not_eager")
def test_outside_eager_mode_the_task_is_sent_by_name_to_its_queue(
    calls: list[tuple[object, ...]], queue: str, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        enqueue_on_commit(record_call.name, 7, queue=queue)
        enqueue_on_commit("no.module.imports.this", 8, queue=queue)  # a name is enough to send
    assert calls == []
    assert queue_depth(queue) == 2


def test_every_task_a_service_enqueues_by_name_is_a_registered_task() -> None:
    names = [scheduling.RUN_MATCHES, live_tables.ADVANCE_LIVE_MATCH, transcripts.VERIFY_TRANSCRIPT]
    names.append(validation.VALIDATE_BOT_VERSION)
    assert [registered_task(name).name for name in names] == names


@pytest.mark.usefixtures("not_eager")
def test_a_queue_lost_some_only_when_it_holds_fewer_messages_than_items_waiting(queue: str) -> None:
    assert not queue_lost_some(queue, waiting=0)
    assert queue_lost_some(queue, waiting=1)  # an empty queue (Redis drops empty lists)
    send_now(record_call.name, (), queue=queue)
    send_now(record_call.name, (), queue=queue)
    assert not queue_lost_some(queue, waiting=2)
    assert queue_lost_some(queue, waiting=3)


@pytest.mark.usefixtures("not_eager")
def test_the_validation_reaper_resends_only_what_the_games_queue_lost(
    queue: str, settings: Any, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    settings.CELERY_GAMES_QUEUE = queue
    long_ago = timezone.now() - timedelta(seconds=settings.BOT_VALIDATION_GRACE + 5)
    version = BotVersionFactory(status=BotVersion.Status.PENDING)
    BotVersion.objects.filter(pk=version.pk).update(queued_at=long_ago)
    # Its task is still in the queue (a busy games queue): nothing was lost.
    send_now(validation.VALIDATE_BOT_VERSION, (version.pk,), queue=queue)
    assert validation.validations_reap() == 0
    with app.connection_for_write() as connection:
        connection.default_channel.queue_purge(queue)
    # The broker restarted empty: the reaper sends it again, once the re-send commits.
    with django_capture_on_commit_callbacks(execute=True):
        assert validation.validations_reap() == 1
    assert queue_depth(queue) == 1
    version.refresh_from_db()
    assert version.queued_at is not None and version.queued_at > long_ago


def test_a_send_to_a_broker_that_is_away_is_given_up_at_once_with_one_warning() -> None:
    """Issue 21, finding 2: sends run after a commit, on a request that must be answered. Given up, they
    raise nothing (a sweep sends the work again) and cost a fraction of a second, in a fresh process
    whose broker is a port nobody listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    sent, took = timed_sends(port, 5)
    assert len(took) == 5 and max(took) < 0.5, took
    assert sent.stderr.count("the broker (CELERY_BROKER_URL) unreachable") == 1, sent.stderr


def test_a_broker_that_never_answers_holds_one_send_and_then_none_for_a_while() -> None:
    """Review 1.3: a Redis that takes connections and never answers held every send for two socket
    timeouts (about 4 s), so every move handing the turn to a bot hung. The first send waits them out;
    the sends after it, within the skip window, are given up at once (beat's sweeps send the work again)."""
    with SilentServer() as silent:
        sent, took = timed_sends(silent.port, 3)
    assert len(took) == 3, sent.stdout
    assert took[0] < 10, took  # the silent server's timeouts, once
    assert max(took[1:]) < 0.1, took
    assert sent.stderr.count("the broker (CELERY_BROKER_URL) unreachable") == 1, sent.stderr
