"""Skips for machines without the sandbox; CI always has it (the set-up installs bubblewrap)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.sandbox import SandboxUnavailable, check_sandbox


def _reason() -> str:
    try:
        check_sandbox()
    except SandboxUnavailable as exc:
        return str(exc)
    return ""


REASON = _reason()
if REASON and os.environ.get("CI") == "true":
    raise RuntimeError(f"CI must run the sandbox tests: {REASON}")

needs_sandbox = pytest.mark.skipif(bool(REASON), reason=REASON or "sandbox available")


@pytest.fixture
def bot_cache() -> Iterator[Path]:
    """A bot cache the sandbox's uids can reach (pytest's own tmp_path is private to root)."""
    path = Path(tempfile.mkdtemp(prefix="cardclub-test-bots-", dir="/tmp"))
    path.chmod(0o711)
    yield path
    shutil.rmtree(path, ignore_errors=True)
