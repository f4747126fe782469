"""Cached standings are never stale: a recorded match is visible on the very next read."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.factories import CompetitionFactory, EntrantFactory
from tournaments import standings_cache
from tournaments.services.competitions import competition_start
from tournaments.services.play import match_play

pytestmark = pytest.mark.django_db

REDIS_URL = os.environ.get("CELERY_BROKER_URL", "")


@pytest.fixture(params=["locmem", "redis"])
def cache_kind(request: pytest.FixtureRequest, settings: object) -> Iterator[str]:
    if request.param == "redis":
        if not REDIS_URL.startswith("redis://"):
            pytest.skip("Redis is not reachable (CELERY_BROKER_URL is not redis://)")
        settings.CACHE_URL = REDIS_URL  # type: ignore[attr-defined]
    standings_cache._redis.cache_clear()
    client = standings_cache._redis()
    if client is not None:
        client.delete(*[k for k in client.scan_iter("cardclub:standings-version:*")] or ["-"])
    yield request.param
    standings_cache._redis.cache_clear()


def played(table: list[dict[str, object]]) -> int:
    return sum(int(row["played"]) for row in table)  # type: ignore[call-overload]


def test_a_recorded_match_shows_in_the_next_standings_read(
    cache_kind: str, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    competition = CompetitionFactory()
    for _ in range(3):
        EntrantFactory(competition=competition)
    competition_start(competition=competition)
    url = f"/api/tournaments/{competition.pk}/standings/"
    client = APIClient()
    assert played(client.get(url).json()["results"]) == 0
    assert played(client.get(url).json()["results"]) == 0  # served from the cache
    for match in competition.matches.order_by("id"):
        # The version is published when the recording transaction commits.
        with django_capture_on_commit_callbacks(execute=True):
            match_play(match_id=match.pk)
        competition.refresh_from_db()
        done = competition.matches.filter(status="done").count()
        assert played(client.get(url).json()["results"]) == 2 * done


def test_versions_published_out_of_order_never_go_backwards(cache_kind: str) -> None:
    if cache_kind != "redis":
        assert standings_cache.cached_results_version(99) is None
        return
    standings_cache.publish_results_version(99, 5)
    standings_cache.publish_results_version(99, 3)
    assert standings_cache.cached_results_version(99) == 5
    standings_cache.publish_results_version(99, 6)
    assert standings_cache.cached_results_version(99) == 6
