from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    """Cached tables are keyed by row ids, which a rolled-back test may hand to the next one."""
    from django.core.cache import cache

    from tournaments import standings_cache

    cache.clear()
    standings_cache.forget_recent_pages()
    yield
