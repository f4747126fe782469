"""Telling a database outage from a bug, and waiting one out: for the workers' tasks (docs/drill.md).

A worker whose PostgreSQL restarts or fails over meets an ``OperationalError`` (the server cut
the connection, or refuses new ones while it shuts down or starts) or an ``InterfaceError`` (the
connection is already closed). Neither says anything about the match being played: it is the
same match once the database answers again. So a task waits for the database and carries on,
rather than losing its message, spending one of the match's attempts, or marking it in error.

The web side's answer to the same errors is a 503 (config/outages.py, config/unavailable.py); a worker
has no client to answer, and nothing better to do than wait.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TypeVar

from django.db import InterfaceError, OperationalError, connection

from config.outages import Outage, is_outage

log = logging.getLogger(__name__)

T = TypeVar("T")

#: What a lost connection or a database going down or starting up raises through Django; which of them
#: mean "not now" rather than "not this" is :func:`is_database_outage`'s to say.
DATABASE_OUTAGE_ERRORS = (OperationalError, InterfaceError)
#: How often a waiting worker tries the database again.
POLL_SECONDS = 0.25


def is_database_outage(exc: BaseException) -> bool:
    """A database error that a try after the database answers again would not meet: a broken or refused
    connection, a shutdown or restart, a deadlock, no connections left (config/outages.py). A program
    limit, say, is a bug, and raised as one."""
    return isinstance(exc, DATABASE_OUTAGE_ERRORS) and is_outage(exc)


def may_wait_out(exc: BaseException) -> bool:
    """Whether ``exc`` is a database outage that this code may wait out and then repeat its work.

    Never inside a transaction (a task run eagerly, in its caller's): the transaction is lost with the
    connection, so the work is not ours to repeat, and whoever opened it must start again.
    """
    return not connection.in_atomic_block and is_database_outage(exc)


def wait_for_database(*, poll: float = POLL_SECONDS) -> float:
    """Block until the database answers a query again; the seconds waited.

    The broken connection is dropped first, as Django does between requests. Bounded only by the
    task's time limit, which raises inside the wait: a worker has nothing to do without its database.
    Never inside a transaction, which the lost connection took with it.
    """
    if connection.in_atomic_block:
        raise RuntimeError("waiting for the database inside a transaction: the transaction is lost already")
    start = time.monotonic()
    while True:
        connection.close()
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
            return time.monotonic() - start
        except DATABASE_OUTAGE_ERRORS:
            time.sleep(poll)


def when_database_answers(work: Callable[[], T], *, what: str, tries: int = 5) -> T:
    """``work()``, run again after the database comes back each time an outage interrupts it.

    Only for work that is safe to repeat from the start (a claim, a step of a live table). After
    ``tries`` interruptions the error is raised: an "outage" that keeps coming back at once is a bug.
    """
    for attempt in range(1, tries + 1):
        try:
            return work()
        except DATABASE_OUTAGE_ERRORS as exc:
            if attempt == tries or not may_wait_out(exc):
                raise
            log.warning("%s: the database went away (%s); trying again once it answers", what, exc)
            waited = wait_for_database()
            log.warning("%s: the database answers again after %.1f s", what, waited)
    raise AssertionError("unreachable")  # pragma: no cover


#: Beat's periodic sweeps in this worker process, while the database is away.
SWEEPS = Outage("the database", "beat's sweeps (reaper, clocks, ladders, deadlines) skip their turns until it is back")


def sweep(work: Callable[[], object]) -> None:
    """Run one of beat's periodic sweeps; one that meets a database outage skips its turn.

    Beat sends the next one a few seconds later, and each sweep picks up whatever waits, so nothing
    is lost by skipping. Logged once when the database goes and once when it is back, where each
    failed sweep used to log a traceback (three a second in the drills).
    """
    try:
        work()
    except DATABASE_OUTAGE_ERRORS as exc:
        if not may_wait_out(exc):
            raise  # a bug; or run inside a caller's transaction (eagerly), which is the caller's to handle
        SWEEPS.failed(exc)
        return
    SWEEPS.succeeded()
