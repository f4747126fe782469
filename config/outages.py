"""When PostgreSQL or Redis cannot be reached (docs/deploy.md, "When Redis or PostgreSQL is away").

Two things every part that touches them shares:

- :func:`is_outage`: which errors mean "the database or Redis is unreachable just now" (a 503 and
  ``Retry-After`` for the client, config/unavailable.py) rather than a bug (a 500): a database error
  of the connection, of a server shutting down or out of resources, or a deadlock; Redis's connection
  errors, but not a Redis refusing our credentials, which is a misconfiguration and must be loud;
- :class:`Outage`: one per process and dependency that the site can do without for a while (the
  cache, live-event publishing, the broker's sends). It notes a failure, logs one warning when the
  dependency goes away and one line when it is back (never a line per request), and, for the callers
  that ask, tells them to skip it for a few seconds after a failure, so that a dead Redis costs at
  most one timeout per process every few seconds rather than one per request. :meth:`Outage.call`
  is the one way a caller uses such a dependency.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TypeVar

import redis.exceptions
from django.db import InterfaceError, OperationalError

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Redis's errors that mean it is unreachable (a reply Redis gave, such as WRONGTYPE, is not one).
REDIS_DOWN: tuple[type[BaseException], ...] = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)
#: ... except these, which redis-py makes ConnectionErrors too: a wrong password or user. Taken for an
#: outage, they would turn every request rate off in silence for as long as the setting stays wrong.
REDIS_REFUSED: tuple[type[BaseException], ...] = (
    redis.exceptions.AuthenticationError,
    redis.exceptions.AuthorizationError,
)


def redis_refused(exc: BaseException) -> bool:
    """Whether ``exc``, or an error it was raised from (kombu wraps Redis's), is Redis refusing our credentials."""
    seen: BaseException | None = exc
    for _ in range(5):  # a short chain: kombu wraps once; a bound, in case a chain loops
        if seen is None:
            return False
        if isinstance(seen, REDIS_REFUSED):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


#: PostgreSQL's SQLSTATE classes of an OperationalError that mean "not now" rather than "not this":
#: 08 the connection failed or broke, 40 a deadlock or serialisation failure rolled the transaction back,
#: 53 out of connections, memory or disk, 57 a shutdown, a restart or a statement timeout, 58 an I/O
#: error. The other OperationalErrors (54 a program limit, such as a row too large; 55, F0, HV) are bugs.
_TRANSIENT_SQLSTATE_CLASSES = frozenset({"08", "40", "53", "57", "58"})
#: ... and one state of class 55: a lock asked for with NOWAIT was held.
_TRANSIENT_SQLSTATES = frozenset({"55P03"})
#: SQLite's (the embedded default) that mean another process holds the database just now.
_TRANSIENT_SQLITE = ("SQLITE_BUSY", "SQLITE_LOCKED")


def is_outage(exc: BaseException | None) -> bool:
    """Whether ``exc`` means the database or Redis cannot be reached just now (so: a 503, try again)."""
    if isinstance(exc, REDIS_DOWN):
        return not redis_refused(exc)
    if isinstance(exc, InterfaceError):
        return True
    if not isinstance(exc, OperationalError):
        return False
    cause = exc.__cause__
    sqlstate = getattr(cause, "sqlstate", None)
    if isinstance(sqlstate, str):
        return sqlstate[:2] in _TRANSIENT_SQLSTATE_CLASSES or sqlstate in _TRANSIENT_SQLSTATES
    sqlite_error = getattr(cause, "sqlite_errorname", None)
    if isinstance(sqlite_error, str):
        return sqlite_error.startswith(_TRANSIENT_SQLITE)
    # No word from a server: the connection was refused, closed or timed out, or the pool had none to lend.
    return True


class Outage:
    """The state of one dependency in this process: up, or down since a moment, with its log lines.

    ``skip_seconds``: after a failure, :meth:`skipping` is true for this long, and the caller does
    without the dependency rather than wait on it again; then one call tries it (and, if it fails,
    the next ``skip_seconds`` are skipped again). 0 means every call tries.
    """

    #: While it stays down, a reminder at most this often (with how many uses went without it).
    REMIND_SECONDS = 60.0

    def __init__(self, name: str, consequence: str, *, skip_seconds: float = 0.0) -> None:
        self.name = name
        self.consequence = consequence
        self.skip_seconds = skip_seconds
        self._lock = threading.Lock()
        self._down_since: float | None = None
        self._retry_at = 0.0
        self._reminded_at = 0.0
        self._missed = 0

    @property
    def down(self) -> bool:
        return self._down_since is not None

    def skipping(self) -> bool:
        """Whether to do without the dependency now, without trying it (it failed moments ago)."""
        if self._down_since is None or time.monotonic() >= self._retry_at:
            return False
        with self._lock:
            self._missed += 1
        return True

    def call(
        self, work: Callable[[], T], default: T, *, unreachable: tuple[type[BaseException], ...] = REDIS_DOWN
    ) -> T:
        """``work()``, or ``default`` without it: while :meth:`skipping`, or when it raises one of
        ``unreachable`` (noted with :meth:`failed`). Redis refusing our credentials is raised all the same."""
        if self.skipping():
            return default
        try:
            result = work()
        except unreachable as exc:
            if redis_refused(exc):
                raise
            self.failed(exc)
            return default
        self.succeeded()
        return result

    def failed(self, exc: BaseException) -> None:
        """A use failed because the dependency is unreachable: logged once, then once a minute at most."""
        now = time.monotonic()
        with self._lock:
            self._missed += 1
            self._retry_at = now + self.skip_seconds
            if self._down_since is None:
                self._down_since = self._reminded_at = now
                message = f"{self.name} unreachable ({exc}): {self.consequence}"
            elif now - self._reminded_at >= self.REMIND_SECONDS:
                self._reminded_at = now
                message = (
                    f"{self.name} still unreachable after {now - self._down_since:.0f} s "
                    f"({self._missed} uses went without it): {self.consequence}"
                )
            else:
                return
        log.warning(message)

    def succeeded(self) -> None:
        """A use worked: if the dependency had been down, say so once."""
        if not self.down:
            return  # the usual case, without taking the lock
        with self._lock:
            since = self._down_since
            if since is None:  # another thread said so first
                return
            away, missed = time.monotonic() - since, self._missed
            self._down_since, self._missed, self._retry_at = None, 0, 0.0
        log.warning("%s reachable again after %.1f s (%s uses went without it)", self.name, away, missed)

    def reset(self) -> None:
        """Forget any outage (tests)."""
        with self._lock:
            self._down_since, self._missed, self._retry_at = None, 0, 0.0
