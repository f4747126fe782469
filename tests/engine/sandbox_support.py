"""Skips for machines without the sandbox; CI always has it (the set-up installs bubblewrap)."""

from __future__ import annotations

import os

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
