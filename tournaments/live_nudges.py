"""One Redis subscription per process for all the events streams it serves (docs/live-play.md).

Each stream used to open a Redis connection of its own and subscribe on it. When 590 pages opened at
once (``make bench-live``) on a busy machine, a third of them took longer than Redis's connect timeout,
and each of those read its match's version five times a second for as long as it stayed open, which
cost the machine more than the moves. Here an event loop (one per uvicorn worker) holds one connection,
subscribed to the matches its streams watch, and hands each nudge to the streams of that match.

While Redis cannot be reached, streams read their match's version every ``LIVE_POLL_SECONDS`` as
before; the connection is made again every ``RETRY_SECONDS`` and the channels subscribed anew.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from django.conf import settings

log = logging.getLogger(__name__)

#: How long after losing Redis the subscriber tries again.
RETRY_SECONDS = 1.0


def channel(match_id: int) -> str:
    return f"cardclub:live:{match_id}"


class Listener:
    """One stream's mailbox: the highest version announced since it last looked, and a wake-up."""

    def __init__(self) -> None:
        self._event = asyncio.Event()
        self._version: int | None = None

    def nudge(self, version: int | None) -> None:
        if version is not None and (self._version is None or version > self._version):
            self._version = version
        self._event.set()

    async def wait(self, timeout: float) -> int | None:
        """The version announced (at once if one came meanwhile); None after ``timeout`` or if Redis was lost."""
        try:
            await asyncio.wait_for(self._event.wait(), timeout)
        except TimeoutError:
            return None
        self._event.clear()
        version, self._version = self._version, None
        return version


class Subscriber:
    """The event loop's subscription: channels with their listeners, and a task reading what Redis sends."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.loop = asyncio.get_running_loop()
        self.connected = False
        self._listeners: dict[str, set[Listener]] = {}
        self._pubsub: Any = None
        self._reader = self.loop.create_task(self._read())

    async def join(self, match_id: int) -> Listener:
        listener = Listener()
        name = channel(match_id)
        first = name not in self._listeners
        self._listeners.setdefault(name, set()).add(listener)
        if first and self.connected:
            await self._send("subscribe", name)
        return listener

    async def leave(self, match_id: int, listener: Listener) -> None:
        name = channel(match_id)
        listeners = self._listeners.get(name, set())
        listeners.discard(listener)
        if not listeners:
            self._listeners.pop(name, None)
            if self.connected:
                await self._send("unsubscribe", name)

    def close(self) -> None:
        self._reader.cancel()

    async def _send(self, command: str, name: str) -> None:
        try:
            await getattr(self._pubsub, command)(name)
        except Exception:
            await self._lost()

    async def _connect(self) -> None:
        import redis.asyncio

        # Not on any request's path: on a busy machine a connection may take longer than REDIS_TIMEOUT_MS.
        timeout = max(2.0, settings.REDIS_TIMEOUT_SECONDS)
        client = redis.asyncio.Redis.from_url(self.url, socket_connect_timeout=timeout, socket_timeout=None)
        self._pubsub = client.pubsub(ignore_subscribe_messages=True)
        await self._pubsub.connect()
        # Connected before subscribing: a stream that joins meanwhile subscribes for itself (twice is harmless).
        self.connected = True
        names = list(self._listeners)
        if names:
            await self._pubsub.subscribe(*names)
        log.info("live events: subscribed to Redis for %d matches", len(names))

    async def _lost(self) -> None:
        if self.connected:
            log.warning("live events: Redis unavailable, pages read their tables' versions instead", exc_info=True)
        self.connected = False
        pubsub, self._pubsub = self._pubsub, None
        for listeners in self._listeners.values():
            for listener in listeners:
                listener.nudge(None)  # go and look: a change may have been missed
        if pubsub is not None:
            with contextlib.suppress(Exception):  # the connection is gone already
                await pubsub.aclose()

    async def _read(self) -> None:
        while True:
            try:
                if self._pubsub is None:
                    await self._connect()
                message = await self._pubsub.get_message(timeout=settings.LIVE_KEEPALIVE_SECONDS)
            except asyncio.CancelledError:
                await self._lost()
                raise
            except Exception:
                await self._lost()
                await asyncio.sleep(RETRY_SECONDS)
                continue
            if message is None or message.get("type") != "message":
                continue
            name = message["channel"].decode() if isinstance(message["channel"], bytes) else message["channel"]
            version = nudged(message)
            for listener in list(self._listeners.get(name, ())):
                listener.nudge(version)


def nudged(message: Any) -> int | None:
    try:
        return int(message["data"]) if message else None
    except (KeyError, TypeError, ValueError):
        return None


_subscribers: dict[int, Subscriber] = {}


def subscriber() -> Subscriber | None:
    """The running event loop's subscriber (made on first use); None without LIVE_EVENTS_URL."""
    url = settings.LIVE_EVENTS_URL
    if not url:
        return None
    loop = asyncio.get_running_loop()
    found = _subscribers.get(id(loop))
    if found is not None and found.loop is loop and found.url == url:
        return found
    if found is not None and found.loop is loop:
        found.close()  # the setting changed (tests)
    for key in [key for key, each in _subscribers.items() if each.loop.is_closed()]:
        del _subscribers[key]
    made = _subscribers[id(loop)] = Subscriber(url)
    return made
