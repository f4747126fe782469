"""`.ci/apt-install` waits for another apt's lock instead of failing (issue 11, finding 13).

A stand-in apt-get on PATH fails `update` on the lock twice, as a busy machine's would, then succeeds.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

FAKE_APT = """#!/bin/sh
echo "$*" >> "$CALLS"
case "$*" in
  *update*)
    n=$(cat "$COUNT" 2>/dev/null || echo 0); echo $((n + 1)) > "$COUNT"
    if [ "$n" -lt "$FAILURES" ]; then
      echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 1 (apt-get)" >&2; exit 100
    fi ;;
esac
exit 0
"""


def run(tmp_path: Path, failures: int, wait: int) -> subprocess.CompletedProcess[str]:
    fake = tmp_path / "apt-get"
    fake.write_text(FAKE_APT)
    fake.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{tmp_path}:{os.environ['PATH']}",
        "CALLS": str(tmp_path / "calls"),
        "COUNT": str(tmp_path / "count"),
        "FAILURES": str(failures),
        "APT_LOCK_WAIT": str(wait),
        "APT_LOCK_RETRY_SECONDS": "0.2",
    }
    return subprocess.run(
        ["bash", str(ROOT / ".ci" / "apt-install"), "bubblewrap"], env=env, capture_output=True, text=True, timeout=60
    )


def test_a_held_lock_is_waited_for_then_the_install_runs(tmp_path: Path) -> None:
    done = run(tmp_path, failures=2, wait=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("apt is busy") == 2
    calls = (tmp_path / "calls").read_text().splitlines()
    assert len(calls) == 4 and "install -y -qq bubblewrap" in calls[-1]
    assert all("DPkg::Lock::Timeout=60" in call for call in calls)


def test_a_lock_held_past_the_wait_fails_with_a_clear_message(tmp_path: Path) -> None:
    done = run(tmp_path, failures=1000, wait=4)
    assert done.returncode == 1
    assert "still failing after 4 s" in done.stderr
    assert "install" not in (tmp_path / "calls").read_text()
