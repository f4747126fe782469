"""Serving a busy standings table from a cache without ever serving a stale one.

The table changes only when a match is recorded, and recording bumps the
competition's ``results_version`` in the same transaction. A page is cached
under that version, so a new result makes a new key and an old page can never
be served for it.

Reading the version costs a database round trip, which is most of a cached
request. When the cache is shared by every process (Redis), the recording
service also publishes the new version there once its transaction commits,
and readers take it from the cache. A short time-to-live bounds the damage if
that publish were ever lost. A per-process cache (the embedded default) cannot
see another process's publish, so there the version always comes from the
database.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from functools import cache as cache_once

import redis
from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse

from config.cache import OUTAGE as CACHE_OUTAGE

#: How long an unchanged page stays cached; a new result makes a new key at once.
PAGE_SECONDS = 600
#: How long a published version is trusted before the database is asked again.
VERSION_SECONDS = 5


#: Store a version only if it is newer than the one already there: publishes may arrive out of
#: order (two workers' commits, or a reader that read the database just before a commit).
_RAISE_VERSION = """
local current = redis.call('GET', KEYS[1])
if (not current) or tonumber(current) < tonumber(ARGV[1]) then
    redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
end
"""


@cache_once
def _redis() -> redis.Redis | None:
    """The shared store for versions: the Redis behind CACHE_URL, or None for a per-process cache."""
    url = settings.CACHE_URL
    if not url.startswith("redis://"):
        return None
    # The cache's own short timeouts (config/settings/base.py): a table is read on many requests.
    timeout = settings.REDIS_TIMEOUT_SECONDS
    return redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)


def _version_key(competition_id: int) -> str:
    return f"cardclub:standings-version:{competition_id}"


def cached_results_version(competition_id: int) -> int | None:
    """The version published in a shared cache, or None: then the caller reads the database.

    While Redis is away (config/cache.py) the table is read from the database, as without a shared cache.
    """
    client = _redis()
    if client is None:
        return None
    version = CACHE_OUTAGE.call(lambda: client.get(_version_key(competition_id)), None)
    return None if version is None else int(version)


def publish_results_version(competition_id: int, version: int) -> None:
    """Called once the recording transaction has committed, and by readers after a database read.

    Never raises for a Redis that is away: a result recorded is recorded (this runs after the commit, on
    the request or task that recorded it). A version not published is a lost publish, as the module
    says: an older version still in Redis expires within VERSION_SECONDS, and readers then ask the database.
    """
    client = _redis()
    if client is not None:
        key = _version_key(competition_id)
        CACHE_OUTAGE.call(lambda: client.eval(_RAISE_VERSION, 1, key, version, VERSION_SECONDS), None)


class _RecentPages:
    """The last few hundred encoded pages this process served, by (competition, version, query).

    A page at a given version never changes, so a process may keep it as long as it likes;
    keeping it here spares a round trip to the shared cache on every request.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._pages: OrderedDict[str, bytes] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> bytes | None:
        with self._lock:
            page = self._pages.get(key)
            if page is not None:
                self._pages.move_to_end(key)
            return page

    def clear(self) -> None:
        with self._lock:
            self._pages.clear()

    def put(self, key: str, page: bytes) -> None:
        with self._lock:
            self._pages[key] = page
            if len(self._pages) > self.size:
                self._pages.popitem(last=False)


_recent = _RecentPages(256)


def forget_recent_pages() -> None:
    """For tests, whose rolled-back rows may hand the same ids and versions to the next test."""
    _recent.clear()


def recent_json_page(request: HttpRequest, competition_id: int) -> HttpResponse | None:
    """The hot read, answered before any API machinery runs: a JSON page this process already holds.

    Only when the shared cache knows the current version (so the page cannot be stale) and the
    client asked for JSON; anything else (a browser, a first read, a new result) goes the long way.
    """
    if request.method != "GET" or "text/html" in request.headers.get("Accept", "") or "format" in request.GET:
        return None
    version = cached_results_version(competition_id)
    if version is None:
        return None
    page = _recent.get(_page_key(competition_id, version, request.GET.urlencode()))
    return None if page is None else HttpResponse(page, content_type="application/json")


#: Bump when a standings row's shape changes, so a deploy never serves a page of the old shape.
ROW_FORMAT = 2


def _page_key(competition_id: int, version: int, query: str) -> str:
    return f"cardclub:standings:{ROW_FORMAT}:{competition_id}:{version}:{query}"


def cached_page(competition_id: int, version: int, query: str, build: Callable[[], bytes]) -> bytes:
    """One page of the table at ``version`` as encoded JSON, built at most once per version and process."""
    key = _page_key(competition_id, version, query)
    page = _recent.get(key)
    if page is None:
        page = cache.get(key)
        if page is None:
            page = build()
            cache.set(key, page, timeout=PAGE_SECONDS)
        _recent.put(key, page)
    return page
