"""Production settings refuse to start with a secret key anyone can read (issue 11, finding 9)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GOOD_KEY = "k" * 20 + "3vT9_random-enough_for-a-test-only-xyz"


def start(secret_key: str, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": secret_key,
        "DATABASE_URL": "postgres://cardclub@127.0.0.1:5432/cardclub",
        "DJANGO_ALLOWED_HOSTS": "club.example.org",
        "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0",
        "CACHE_URL": "redis://127.0.0.1:6379/1",
        **extra,
    }
    return subprocess.run(
        [sys.executable, "-c", "import django; django.setup(); print('started')"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    "key",
    ["insecure-development-key-change-me", "CHANGE-ME-to-50-random-characters", "change-me-please", "short-key"],
)
def test_a_known_or_short_secret_key_is_refused(key: str) -> None:
    started = start(key)
    assert started.returncode != 0
    assert "DJANGO_SECRET_KEY is the development key, the placeholder, or shorter than 32 characters" in started.stderr


def test_a_long_random_key_starts() -> None:
    started = start(GOOD_KEY)
    assert started.returncode == 0, started.stderr
    assert started.stdout.strip() == "started"


def test_a_cache_per_process_is_refused() -> None:
    """Request rates are counted in the cache; one per process would multiply them (issue 11, finding 3)."""
    started = start(GOOD_KEY, CACHE_URL="locmem://")
    assert started.returncode != 0
    assert "CACHE_URL must name the shared Redis in production" in started.stderr
