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


def _cgroups() -> bool:
    from engine.sandbox import cgroups

    probe = cgroups.create(f"probe-{os.getpid()}", memory_mb=64, processes=4)
    if probe is None:
        return False
    probe.remove()
    return True


#: Limits for the bot as a whole (all its processes) need a cgroup, which needs root; CI has both.
CGROUPS = not REASON and _cgroups()
if not CGROUPS and os.environ.get("CI") == "true":
    raise RuntimeError("CI must run the sandbox tests with per-bot cgroups (run as root)")
