from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    """Cached tables are keyed by row ids, which a rolled-back test may hand to the next one."""
    from django.core.cache import cache

    from tournaments import live_selectors, standings_cache
    from tournaments.services import live_tables

    cache.clear()
    standings_cache.forget_recent_pages()
    live_selectors.forget_snapshots()
    live_tables.match_participants.cache_clear()
    yield


@pytest.fixture
def bot_cache() -> Iterator[Path]:
    """A bot cache the sandbox's uids can reach (pytest's own tmp_path is private to root)."""
    path = Path(tempfile.mkdtemp(prefix="cardclub-test-bots-", dir="/tmp"))
    path.chmod(0o711)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def gauntlet() -> Iterator[str]:
    """The test-only gauntlet format (tests/tournaments/gauntlet.py) in this process, for this test only: tests
    that iterate the registry never see it. A worker learns it from COMPETITION_FORMATS. Its key."""
    from tests.tournaments.gauntlet import GAUNTLET
    from tournaments.formats.registry import register, unregister

    register(GAUNTLET)
    try:
        yield GAUNTLET.key
    finally:
        unregister(GAUNTLET.key)
