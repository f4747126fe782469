"""One Redis subscription per event loop for every events stream (tournaments/live_nudges.py)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
from typing import Any

import pytest
from asgiref.sync import async_to_sync

from tournaments import live_events, live_nudges
from tournaments.live_events import _wait_async, publish_change

REDIS_URL = os.environ.get("CELERY_BROKER_URL", "")
needs_redis = pytest.mark.skipif(
    not REDIS_URL.startswith("redis://"), reason="Redis is not reachable (CELERY_BROKER_URL is not redis://)"
)


def match_ids(count: int) -> list[int]:
    # Channels are shared by every Redis database: ids no benchmark or other test uses.
    first = random.randrange(10**9, 2 * 10**9)
    return list(range(first, first + count))


@pytest.fixture(autouse=True)
def fresh_publisher() -> Any:
    live_events._redis.cache_clear()
    live_events.PUBLISHING.reset()
    yield
    live_events._redis.cache_clear()


async def until(condition: Any, seconds: float = 5.0) -> None:
    for _ in range(int(seconds / 0.01)):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("timed out")


@needs_redis
def test_a_nudge_reaches_every_stream_of_its_match_and_no_other(settings: Any) -> None:
    settings.LIVE_EVENTS_URL = REDIS_URL
    one, other = match_ids(2)

    async def run() -> None:
        hub = live_nudges.subscriber()
        assert hub is not None and hub is live_nudges.subscriber()  # one per event loop
        first, second, elsewhere = await hub.join(one), await hub.join(one), await hub.join(other)
        await until(lambda: hub.connected)
        await asyncio.sleep(0.1)  # the subscription reaches Redis
        publish_change(one, 7)
        assert await first.wait(2) == 7 and await second.wait(2) == 7
        assert await elsewhere.wait(0.2) is None
        await hub.leave(one, first)
        publish_change(one, 8)
        publish_change(one, 9)
        await asyncio.sleep(0.1)
        assert await second.wait(2) == 9  # the newest of what came meanwhile
        assert await first.wait(0.2) is None
        hub.close()

    async_to_sync(run)()


@needs_redis
def test_after_losing_redis_the_streams_look_for_themselves_and_the_subscription_comes_back(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.LIVE_EVENTS_URL = REDIS_URL
    monkeypatch.setattr(live_nudges, "RETRY_SECONDS", 0.05)
    (match,) = match_ids(1)

    async def run() -> None:
        hub = live_nudges.subscriber()
        assert hub is not None
        listener = await hub.join(match)
        await until(lambda: hub.connected)
        await hub._lost()  # as when Redis goes away
        assert not hub.connected
        assert await listener.wait(0.5) is None  # woken at once to read the table itself
        await until(lambda: hub.connected)
        await asyncio.sleep(0.1)
        publish_change(match, 3)
        assert await listener.wait(2) == 3  # subscribed again on the new connection
        hub.close()

    async_to_sync(run)()


def test_while_redis_cannot_be_reached_a_stream_polls(settings: Any) -> None:
    settings.LIVE_EVENTS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    settings.LIVE_POLL_SECONDS = 0.05

    async def run() -> None:
        hub = live_nudges.subscriber()
        assert hub is not None
        listener = await hub.join(1)
        await asyncio.sleep(0.1)
        assert not hub.connected
        started = asyncio.get_running_loop().time()
        assert await _wait_async(hub, listener) is None
        assert asyncio.get_running_loop().time() - started < 1  # a poll's wait, not a keep-alive's
        await hub.leave(1, listener)
        hub.close()

    async_to_sync(run)()


def test_without_redis_there_is_no_subscriber(settings: Any) -> None:
    settings.LIVE_EVENTS_URL = ""

    async def run() -> None:
        assert live_nudges.subscriber() is None

    async_to_sync(run)()


@needs_redis
@pytest.mark.django_db(transaction=True)
def test_an_events_stream_under_asgi_hears_a_move_through_the_shared_subscription(settings: Any) -> None:
    from asgiref.sync import sync_to_async
    from django.test import AsyncClient

    from tests.tournaments.live_support import live_match
    from tests.tournaments.test_api_live import client_of, move

    settings.LIVE_EVENTS_URL = REDIS_URL
    settings.LIVE_STREAM_SECONDS = 10
    # Neither a poll nor a keep-alive's look within the test: only the nudge can bring the change.
    settings.LIVE_POLL_SECONDS = settings.LIVE_KEEPALIVE_SECONDS = 60
    match, (alice, bob) = live_match("1923", options={"mode": "set"})

    async def read_two_events() -> list[dict[str, Any]]:
        hub = live_nudges.subscriber()
        assert hub is not None
        await until(lambda: hub.connected)
        client = AsyncClient()
        await sync_to_async(client.force_login)(alice.user)
        response = await client.get(f"/api/matches/{match.pk}/events/")
        events: list[dict[str, Any]] = []
        async for chunk in response.streaming_content:
            text = chunk.decode()
            if text.startswith("event: table"):
                events.append(json.loads(text.split("data: ", 1)[1]))
                if len(events) == 1:
                    await asyncio.sleep(0.1)  # the subscription reaches Redis
                    await sync_to_async(move)(client_of(bob), match, "LOCK", events[0]["version"], "b1")
            if len(events) == 2:
                break
        hub.close()
        return events

    first, second = async_to_sync(asyncio.wait_for)(read_two_events(), 20)
    assert second["version"] > first["version"] and second["seats"][1]["acted"] is True


@needs_redis
def test_the_streams_a_nudge_wakes_together_in_one_process_share_one_read(settings: Any) -> None:
    settings.LIVE_EVENTS_URL = REDIS_URL
    settings.LIVE_POLL_SECONDS = settings.LIVE_KEEPALIVE_SECONDS = 60
    (match_id,) = match_ids(1)
    reads: list[int] = []
    builds: list[int | None] = []
    read_versions: dict[int, int] = {}

    def build(last: int, nudged: int | None) -> tuple[int, dict[str, Any] | None]:
        builds.append(nudged)
        return 1, {"version": 1, "status": "live"}

    def known(last: int, nudged: int | None) -> tuple[int, dict[str, Any] | None] | None:
        if nudged is None or nudged not in read_versions:
            return None
        return nudged, {"version": nudged, "status": "live"}

    def read(match: int) -> int:
        reads.append(match)
        time.sleep(0.2)  # long enough that every stream the nudge woke is waiting for it
        read_versions[5] = 5
        return 5

    async def second_event(events: Any) -> dict[str, Any]:
        await events.__anext__()  # the table as the stream opened
        return json.loads((await events.__anext__()).decode().split("data: ", 1)[1])

    async def run() -> list[dict[str, Any]]:
        hub = live_nudges.subscriber()
        assert hub is not None
        await until(lambda: hub.connected)
        streams = [live_events.table_events_async(match_id, build, known, read) for _ in range(3)]
        waiting = [asyncio.ensure_future(second_event(stream)) for stream in streams]
        await asyncio.sleep(0.2)  # each has sent its first table and joined the subscription
        publish_change(match_id, 5)
        seen = await asyncio.wait_for(asyncio.gather(*waiting), 10)
        for stream in streams:
            await stream.aclose()
        hub.close()
        return list(seen)

    seen = async_to_sync(run)()
    assert [event["version"] for event in seen] == [5, 5, 5]
    assert reads == [match_id]  # one read for the three
    assert builds == [None, None, None]  # each built only its opening table


@needs_redis
def test_a_failed_shared_read_leaves_each_stream_to_build_its_table_itself(settings: Any) -> None:
    settings.LIVE_EVENTS_URL = REDIS_URL
    settings.LIVE_POLL_SECONDS = settings.LIVE_KEEPALIVE_SECONDS = 60
    (match_id,) = match_ids(1)
    builds: list[int | None] = []

    def build(last: int, nudged: int | None) -> tuple[int, dict[str, Any] | None]:
        builds.append(nudged)
        version = 1 if nudged is None else nudged
        return version, {"version": version, "status": "live"}

    def known(last: int, nudged: int | None) -> None:
        return None

    def read(match: int) -> int:
        raise RuntimeError("the database went away")

    async def run() -> dict[str, Any]:
        hub = live_nudges.subscriber()
        assert hub is not None
        await until(lambda: hub.connected)
        stream = live_events.table_events_async(match_id, build, known, read)
        await stream.__anext__()
        await asyncio.sleep(0.1)
        publish_change(match_id, 6)
        second = json.loads((await asyncio.wait_for(stream.__anext__(), 10)).decode().split("data: ", 1)[1])
        await stream.aclose()
        hub.close()
        return second

    assert async_to_sync(run)()["version"] == 6
    assert builds == [None, 6]
