"""Telling the pages at a live table that it changed: Redis pub/sub where there is Redis, polling where not.

A change is only a nudge, "match M is now at version V": each listener then builds
its own viewer's table (a seat sees its own cards, a spectator the public view), so
nothing secret ever goes through the broker. Without Redis (the embedded default)
listeners read the match's version every ``LIVE_POLL_SECONDS`` instead, which
still meets the half-second a move may take to show.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import AsyncIterator, Callable, Iterator
from functools import cache, partial
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings

from config.outages import Outage
from tournaments import live_json
from tournaments.live_nudges import Listener, Subscriber, channel, nudged, subscriber

log = logging.getLogger(__name__)

#: Given the version last sent, and the version a nudge announced (None: no nudge, look), one viewer's
#: table: (version, its data or None if unchanged), or None once the viewer may no longer watch.
TableBuilder = Callable[[int, "int | None"], "tuple[int, dict[str, Any] | None] | None"]


#: Publishing while Redis is away: the move is taken all the same, and the pages fall back on polling.
PUBLISHING = Outage(
    "live events (LIVE_EVENTS_URL)",
    "moves are taken, and pages watching a table see them by reading its version instead",
    skip_seconds=5.0,
)


@cache
def _redis() -> Any:
    import redis

    # Short timeouts: a move publishes once it has committed, and its answer must not wait on a dead Redis.
    timeout = settings.REDIS_TIMEOUT_SECONDS
    return redis.Redis.from_url(settings.LIVE_EVENTS_URL, socket_connect_timeout=timeout, socket_timeout=timeout)


def publish_change(match_id: int, version: int) -> None:
    """After a change has committed; best effort: listeners also re-read on their own every few seconds."""
    if not settings.LIVE_EVENTS_URL:
        return
    try:
        PUBLISHING.call(lambda: _redis().publish(channel(match_id), str(version)), None)
    except Exception:
        # Anything but Redis away (which PUBLISHING notes once), a wrong password included: the move stands.
        log.warning("could not publish live match %s version %s", match_id, version, exc_info=True)


def _event(data: dict[str, Any]) -> bytes:
    return b"event: table\ndata: " + live_json.dumps(data) + b"\n\n"


_KEEPALIVE = b": keep-alive\n\n"


class _Stream:
    """Where one viewer's stream stands: the version last sent, the nudge waited for, and when it ends."""

    def __init__(self) -> None:
        self.last = -1
        self.nudged: int | None = None
        self.deadline = time.monotonic() + settings.LIVE_STREAM_SECONDS

    def chunk(self, built: tuple[int, dict[str, Any] | None] | None) -> tuple[bytes | None, bool]:
        """What to send for what the builder said, and whether the stream ends after it."""
        if built is None:
            return None, True
        version, data = built
        expired = time.monotonic() >= self.deadline
        if data is None:
            return _KEEPALIVE, expired
        self.last = version
        return _event(data), expired or data.get("status") not in ("pending", "live")


def table_events(match_id: int, build: TableBuilder) -> Iterator[bytes]:
    """Server-sent events for a WSGI server: the table now, then after every change, for a while.

    The stream ends after ``LIVE_STREAM_SECONDS`` (the browser's EventSource reconnects at once),
    so a server thread is never held by a page long gone.
    """
    stream = _Stream()
    pubsub = _subscribe_sync(match_id)
    try:
        while True:
            chunk, done = stream.chunk(build(stream.last, stream.nudged))
            if chunk is not None:
                yield chunk
            if done:
                return
            stream.nudged = _wait_sync(pubsub)
    finally:
        if pubsub is not None:
            pubsub.close()


def table_once(build: TableBuilder) -> Iterator[bytes]:
    """The table now, and when to ask again: the stream a worker that serves one request at a time gives.

    Such a worker (gunicorn's sync workers, as the web nodes run) held by a stream is lost to every other
    request for as long as the page stays open, so a few pages would take a whole node. Event streams
    belong on the live-table node (docs/deploy.md); one that reaches a web node anyway is answered at
    once, and the browser, or any EventSource, comes back after ``retry``.
    """
    chunk, _ = _Stream().chunk(build(-1, None))
    if chunk is not None:
        yield chunk
    yield f"retry: {settings.LIVE_RETRY_MS}\n\n".encode()


def _subscribe_sync(match_id: int) -> Any:
    if not settings.LIVE_EVENTS_URL:
        return None
    try:
        pubsub = _redis().pubsub(ignore_subscribe_messages=True)
        pubsub.subscribe(channel(match_id))
        return pubsub
    except Exception:
        log.warning("live events: Redis unavailable, polling instead", exc_info=True)
        return None


def _wait_sync(pubsub: Any) -> int | None:
    """Until a nudge (its version), a keep-alive's time or a poll's (None)."""
    if pubsub is None:
        time.sleep(settings.LIVE_POLL_SECONDS)
        return None
    try:
        return nudged(pubsub.get_message(timeout=settings.LIVE_KEEPALIVE_SECONDS))
    except Exception:
        time.sleep(settings.LIVE_POLL_SECONDS)
        return None


async def table_events_async(
    match_id: int, build: TableBuilder, known: TableBuilder | None = None, read: MatchReader | None = None
) -> AsyncIterator[bytes]:
    """The same stream for an ASGI server, where waiting costs no thread.

    ``known`` answers without the database when it can (None when it cannot): it runs on the event
    loop itself, sparing the hop to a thread that ``build`` takes. Nudges come through the event
    loop's one subscription (tournaments/live_nudges.py). ``read`` reads a version that ``known``
    lacks for every stream of this process that the same nudge woke: one read, after which each
    stream answers from ``known``.
    """
    stream = _Stream()
    hub = subscriber()
    listener = None if hub is None else await hub.join(match_id)
    built_async = sync_to_async(build, thread_sensitive=False)
    try:
        while True:
            built = known(stream.last, stream.nudged) if known is not None else None
            if built is None and known is not None and read is not None and stream.nudged is not None:
                read_version = await _read_once(match_id, stream.nudged, read)
                if read_version is not None and read_version >= stream.nudged:
                    built = known(stream.last, read_version)
            if built is None:
                built = await built_async(stream.last, stream.nudged)
            chunk, done = stream.chunk(built)
            if chunk is not None:
                yield chunk
            if done:
                return
            stream.nudged = await _wait_async(hub, listener)
    finally:
        if hub is not None and listener is not None:
            await hub.leave(match_id, listener)


#: Reads a match into this process's snapshots (tournaments/live_selectors.py): the version it read, or None if
#: the match is gone.
MatchReader = Callable[[int], "int | None"]

#: Per event loop, the reads under way, by (match, version nudged).
_reads: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[int, int], asyncio.Task[int | None]]] = (
    weakref.WeakKeyDictionary()
)


async def _read_once(match_id: int, version: int, read: MatchReader) -> int | None:
    """``read(match_id)`` on a shared thread, once for all the streams a nudge about ``version`` wakes in this
    process together; None if it failed, and each stream then builds its table itself."""
    loop = asyncio.get_running_loop()
    under_way = _reads.setdefault(loop, {})
    key = (match_id, version)
    task = under_way.get(key)
    if task is None:
        task = under_way[key] = loop.create_task(sync_to_async(read, thread_sensitive=False)(match_id))
        task.add_done_callback(partial(_read_done, under_way, key))
    try:
        # Shielded: a page closing while it waits does not cancel the read the others wait for.
        return await asyncio.shield(task)
    except Exception:
        return None


def _read_done(under_way: dict[tuple[int, int], asyncio.Task[int | None]], key: tuple[int, int], task: Any) -> None:
    under_way.pop(key, None)
    if not task.cancelled() and task.exception() is not None:
        # Seen here, so that a failure no stream stayed to wait for is not reported as never retrieved; the
        # streams that waited build their tables themselves and meet it there.
        log.debug("reading live match %s for its pages failed", key[0], exc_info=task.exception())


async def _wait_async(hub: Subscriber | None, listener: Listener | None) -> int | None:
    """Until a nudge (its version), a keep-alive's time, or a poll's while Redis is away (None)."""
    if hub is None or listener is None or not hub.connected:
        await asyncio.sleep(settings.LIVE_POLL_SECONDS)
        return None
    return await listener.wait(settings.LIVE_KEEPALIVE_SECONDS)
