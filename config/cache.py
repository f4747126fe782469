"""The shared cache on Redis, failing soft (docs/deploy.md, "When Redis or PostgreSQL is away").

Nothing kept in the cache is the truth: request counters, standings pages, public records, allauth's
counters. So while Redis cannot be reached, a read is a miss and a write is dropped, with one warning
in the log (config/outages.py), and the request goes on without it. Only an increment has no answer
that would do: it raises :class:`CacheUnavailable`, which the request rates take as "not counted"
(config/throttles.py). Django's own RedisCache would raise redis's ConnectionError into every request.
A Redis that refuses the password is not "away" but misconfigured: that error is raised (config/outages.py).

After a failure the cache is left alone for ``SKIP_SECONDS``, so that a Redis that does not answer
at all (a lost network, not a refused connection) costs one socket timeout per process every few
seconds, not one on every request.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache

from config.outages import Outage

T = TypeVar("T")

#: How long the cache is done without after it failed, before it is tried again.
SKIP_SECONDS = 5.0

OUTAGE = Outage(
    "the shared cache (CACHE_URL)",
    "request rates are not counted and cached pages are built afresh until it is back",
    skip_seconds=SKIP_SECONDS,
)


class CacheUnavailable(Exception):
    """An increment could not be made: the cache cannot be reached."""


class FailSoftRedisCache(RedisCache):
    """Django's RedisCache, where an unreachable Redis is a miss, not an error (see the module)."""

    def _soft(self, miss: T, call: Callable[[], T]) -> T:
        return OUTAGE.call(call, miss)

    def add(self, key: Any, value: Any, timeout: float | None = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        return self._soft(False, lambda: super(FailSoftRedisCache, self).add(key, value, timeout, version))

    def get(self, key: Any, default: Any | None = None, version: int | None = None) -> Any:
        return self._soft(default, lambda: super(FailSoftRedisCache, self).get(key, default, version))

    def set(self, key: Any, value: Any, timeout: float | None = DEFAULT_TIMEOUT, version: int | None = None) -> None:
        self._soft(None, lambda: super(FailSoftRedisCache, self).set(key, value, timeout, version))

    def touch(self, key: Any, timeout: float | None = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        return self._soft(False, lambda: super(FailSoftRedisCache, self).touch(key, timeout, version))

    def delete(self, key: Any, version: int | None = None) -> bool:
        return self._soft(False, lambda: super(FailSoftRedisCache, self).delete(key, version))

    def get_many(self, keys: Iterable[Any], version: int | None = None) -> dict[Any, Any]:
        return self._soft({}, lambda: super(FailSoftRedisCache, self).get_many(keys, version))

    def has_key(self, key: Any, version: int | None = None) -> bool:
        return self._soft(False, lambda: super(FailSoftRedisCache, self).has_key(key, version))

    def set_many(
        self, data: dict[Any, Any], timeout: float | None = DEFAULT_TIMEOUT, version: int | None = None
    ) -> list[Any]:
        return self._soft([], lambda: super(FailSoftRedisCache, self).set_many(data, timeout, version))

    def delete_many(self, keys: Iterable[Any], version: int | None = None) -> None:
        self._soft(None, lambda: super(FailSoftRedisCache, self).delete_many(keys, version))

    def clear(self) -> None:
        self._soft(None, lambda: super(FailSoftRedisCache, self).clear())

    def incr(self, key: Any, delta: int = 1, version: int | None = None) -> int:
        made: int | None = self._soft(None, lambda: super(FailSoftRedisCache, self).incr(key, delta, version))
        if made is None:
            raise CacheUnavailable("the shared cache cannot be reached")
        return made
