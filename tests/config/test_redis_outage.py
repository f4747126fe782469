"""While Redis is away the club goes on (issue 21, finding 2): rates fail open with one warning, the
standings and records are built without the cache, live moves are taken, and nothing waits long on it.

Redis here is never the shared one stopped: the cache and the live events point at a port nobody
listens on (refused at once), or at a server that accepts and never answers (a lost network).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis.exceptions
from django.core.cache import cache
from django.db import connection
from rest_framework.test import APIClient

from config import cache as fail_soft_cache
from config.env import redis_cache
from config.outages import is_outage
from league.services import player_create
from tests.config.outage_support import SilentServer, closed_port
from tests.factories import BotFactory, CompetitionFactory, EntrantFactory, PlayerFactory
from tests.tournaments.live_support import live_match
from tournaments import live_events, standings_cache
from tournaments.models import Match
from tournaments.services.competitions import competition_start
from tournaments.services.play import match_play

pytestmark = pytest.mark.django_db

#: The cache's timeouts as production sets them (REDIS_TIMEOUT_MS).
TIMEOUT = 0.5


@pytest.fixture
def redis_at(settings: Any) -> Iterator[Callable[[int], None]]:
    """``redis_at(port)``: the cache, the standings versions and the live events all use Redis at that port."""

    def point(port: int) -> None:
        url = f"redis://127.0.0.1:{port}/7"
        settings.CACHE_URL = settings.LIVE_EVENTS_URL = url
        settings.CACHES = {"default": redis_cache(url, TIMEOUT)}
        settings.REDIS_TIMEOUT_SECONDS = TIMEOUT
        forget()

    def forget() -> None:
        standings_cache._redis.cache_clear()
        live_events._redis.cache_clear()
        standings_cache.forget_recent_pages()
        for outage in (fail_soft_cache.OUTAGE, live_events.PUBLISHING):
            outage.reset()

    yield point
    forget()


def outage_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "config.outages" and r.levelno == logging.WARNING]


def test_while_redis_is_away_writes_sign_ins_and_reads_go_on_with_one_warning(
    redis_at: Callable[[int], None], caplog: pytest.LogCaptureFixture
) -> None:
    """The finding: every signed-in POST, token sign-in and anonymous GET was an HTML 500."""
    player_create(username="alice", password="right-password-1")
    owner = PlayerFactory()
    redis_at(closed_port())
    caplog.set_level(logging.WARNING, logger="config.outages")
    signed_in = APIClient()
    signed_in.force_authenticate(owner.user)
    anonymous = APIClient()
    for n in range(3):
        assert signed_in.post("/api/bots/", {"name": f"b{n}", "game": "war"}, format="json").status_code == 201
        token = anonymous.post("/api/auth/token/", {"username": "alice", "password": "right-password-1"})
        assert token.status_code == 200
        assert anonymous.get("/api/tournaments/").status_code == 200
        assert anonymous.post("/accounts/login/", {"username": "alice", "password": "x"}).status_code == 200
    # One line for the whole outage, not one a request (each request above counted a rate or two).
    warnings = outage_warnings(caplog)
    assert len(warnings) == 1, warnings
    assert "shared cache (CACHE_URL) unreachable" in warnings[0] and "rates are not counted" in warnings[0]


def test_a_live_move_is_taken_while_redis_is_away_and_answered_at_once(redis_at: Callable[[int], None]) -> None:
    match, (alice,) = live_match("banter", people=1, bots=1)
    redis_at(closed_port())
    client = APIClient()
    client.force_authenticate(alice.user)
    for number in range(5):
        view = client.get(f"/api/matches/{match.pk}/table/").json()
        if not view["legal_actions"]:
            break
        started = time.monotonic()
        body = {"action": view["legal_actions"][0], "version": view["version"], "client_move_id": f"m{number}"}
        answer = client.post(f"/api/matches/{match.pk}/moves/", body, format="json")
        assert answer.status_code == 200, answer.content
        assert time.monotonic() - started < 1.0


def test_standings_and_results_are_recorded_and_served_while_redis_is_away(
    redis_at: Callable[[int], None], django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    """A recording publishes its results version once it commits: that must not fail the recording's caller."""
    competition = CompetitionFactory()
    for _ in range(3):
        EntrantFactory(competition=competition)
    competition_start(competition=competition)
    redis_at(closed_port())
    url = f"/api/tournaments/{competition.pk}/standings/"
    client = APIClient()
    assert client.get(url).status_code == 200
    first = competition.matches.order_by("id").first()
    assert first is not None
    with django_capture_on_commit_callbacks(execute=True):
        match_play(match_id=first.pk)
    assert Match.objects.get(pk=first.pk).status == Match.Status.DONE
    rows = client.get(url).json()["results"]
    assert sum(int(row["played"]) for row in rows) == 2
    game = first.games.order_by("number").first()
    assert game is not None
    assert client.get(f"/api/games/{game.pk}/record/").status_code == 200


def test_a_redis_that_never_answers_holds_no_request_long(redis_at: Callable[[int], None]) -> None:
    """A lost network: connections are taken but nothing comes back. Each process waits out the cache's
    timeout once, then does without it for a few seconds, rather than on every request."""
    with SilentServer() as silent:
        redis_at(silent.port)
        timings: list[float] = []

        def reads() -> None:
            client = APIClient()
            try:
                for _ in range(6):
                    started = time.monotonic()
                    assert client.get("/api/tournaments/").status_code == 200
                    timings.append(time.monotonic() - started)
            finally:
                connection.close()  # this thread's own, outside the test's transaction

        # In a thread, so that a request hanging on the silent server fails this test instead of hanging it.
        reader = threading.Thread(target=reads, daemon=True)
        reader.start()
        reader.join(timeout=10)
        assert not reader.is_alive(), "a request waited on a Redis that never answers"
    assert len(timings) == 6
    assert sum(timings) < 2 * TIMEOUT + 1.0, timings
    assert max(timings[1:]) < 0.5, timings


def test_the_cache_is_used_again_once_redis_is_back(redis_at: Callable[[int], None], settings: Any) -> None:
    url = settings.CELERY_BROKER_URL
    if not url.startswith("redis://"):
        pytest.skip("needs the suite's Redis (CELERY_BROKER_URL)")
    redis_at(closed_port())
    outage = fail_soft_cache.OUTAGE
    outage.skip_seconds, skip = 0.0, outage.skip_seconds  # try again at once, not in 5 s
    try:
        assert cache.get("outage-test") is None and outage.down
        # Redis is back: the cache's database beside the suite's broker (db 7 beside 6), as deployed.
        settings.CACHES = {"default": redis_cache(f"{url.rsplit('/', 1)[0]}/7", TIMEOUT)}
        cache.set("outage-test", 1, timeout=5)
        assert cache.get("outage-test") == 1
        assert not outage.down
    finally:
        outage.skip_seconds = skip


def test_bot_creation_is_still_counted_when_redis_is_there(rates_low: None) -> None:
    """Failing open is for an unreachable Redis only: with the cache there, rates still bind."""
    owner = BotFactory().owner
    client = APIClient()
    client.force_authenticate(owner.user)
    codes = [client.post("/api/bots/", {"name": f"c{n}", "game": "war"}, format="json").status_code for n in range(3)]
    assert codes == [201, 201, 429]


@pytest.fixture
def rates_low(settings: Any) -> None:
    rates = dict.fromkeys(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"])
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {**rates, "user_write": "2/hour"}}


def test_a_redis_that_refuses_the_password_is_an_error_not_an_outage(
    redis_at: Callable[[int], None], settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """Review 1.4: redis-py's AuthenticationError is a ConnectionError, so a wrong password was taken
    for an outage and every rate quietly stopped counting. A misconfiguration must be loud: the error is
    raised, the request is a 500 (not a 503 that says "try again"), and nothing is logged as an outage."""
    url = settings.CELERY_BROKER_URL
    if not url.startswith("redis://"):
        pytest.skip("needs the suite's Redis (CELERY_BROKER_URL)")
    redis_at(closed_port())  # for its clean-up; the cache then goes to the real Redis with a wrong user
    host = url.split("://", 1)[1].split("/", 1)[0].rsplit("@", 1)[-1]
    wrong = f"redis://nobody-here:wrong-password@{host}/7"
    settings.CACHE_URL = settings.LIVE_EVENTS_URL = wrong
    settings.CACHES = {"default": redis_cache(wrong, TIMEOUT)}
    caplog.set_level(logging.WARNING, logger="config.outages")
    with pytest.raises(redis.exceptions.AuthenticationError):
        cache.get("rates")
    with pytest.raises(redis.exceptions.AuthenticationError):
        cache.incr("rates")
    with pytest.raises(redis.exceptions.AuthenticationError):
        standings_cache.cached_results_version(1)
    assert not fail_soft_cache.OUTAGE.down
    assert not is_outage(redis.exceptions.AuthenticationError("WRONGPASS"))
    client = APIClient(raise_request_exception=False)
    client.force_authenticate(PlayerFactory().user)
    answer = client.post("/api/bots/", {"name": "b", "game": "war"}, format="json")
    assert answer.status_code == 500
    assert outage_warnings(caplog) == []
