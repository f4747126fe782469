"""The hostile corpus (issue: "Hostile corpus"): every bot in tests/engine/hostile/ is contained.

Each file's first line says what the referee must record: ``# expect: CAUSE``
(one of several causes where the outcome races two limits), or ``ok`` for a
bot that probes the sandbox, raises at start if it got through anywhere, and
otherwise plays on. After each one the machine must hold none of its
processes, and a well-behaved bot must still play normally.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from engine.bots import make_bot
from engine.clock import TimeControl
from engine.record import Record
from engine.runner import play_game
from engine.sandbox import SandboxedBot, SandboxLimits, bot_code, install
from engine.sandbox.launch import UID_BASE
from tests.engine.sandbox_support import CGROUPS, needs_sandbox

HOSTILE = Path(__file__).parent / "hostile"
PROJECT = Path(__file__).resolve().parents[2]
FAST = TimeControl(move_ms=300, bank_ms=300, wall_ms=60_000, start_ms=5000)
GOOD_BOT = b"def act(turn):\n    return turn.legal_actions[-1]\n"

pytestmark = needs_sandbox


def expected(path: Path) -> set[str]:
    if "# needs: cgroup" in path.read_text() and not CGROUPS:
        pytest.skip("limits across a bot's processes need a cgroup (root)")
    first = path.read_text().splitlines()[0]
    assert first.startswith("# expect: "), f"{path.name} must start with '# expect: CAUSE'"
    return set(first.removeprefix("# expect: ").split())


def play(source: bytes, name: str, cache: Path) -> tuple[Record, SandboxedBot]:
    bot = SandboxedBot(
        code=bot_code(filename=name, content=source),
        cache_dir=cache,
        game="1923",
        players=2,
        options={},
        time_control=FAST,
        limits=SandboxLimits(memory_mb=256, cpu_seconds=2),
    )
    try:
        other = make_bot("random", game="1923", seat=1, players=2, options={}, seed=7)
        record = play_game("1923", agents=[bot.seated(0, 0), other], seed=11)
    finally:
        bot.close()
    return record, bot


def sandbox_processes() -> list[str]:
    """Processes still running (not zombies awaiting their reaper) under a sandbox uid."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                uid = os.stat(f"/proc/{entry}").st_uid
                state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except (FileNotFoundError, ProcessLookupError, IndexError):
                continue
            if uid >= UID_BASE and state != "Z":
                found.append(f"{entry} ({state})")
    return found


def assert_no_sandbox_processes() -> None:
    # SIGKILL is delivered at once but a dying process lingers a moment while its memory is freed.
    deadline = time.monotonic() + 2
    while (left := sandbox_processes()) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert left == []


@pytest.mark.parametrize("path", sorted(HOSTILE.glob("*.py")), ids=lambda p: p.stem)
def test_hostile_bot_is_contained_and_recorded_as_its_forfeit(
    path: Path, bot_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CARDCLUB_TEST_SECRET", "hunter2-not-for-bots")
    causes = expected(path)
    # Real targets: this checkout, and another bot's code unpacked in the same cache.
    other = install(bot_code(filename="main.py", content=GOOD_BOT), bot_cache)
    source = path.read_bytes().replace(b"__PROJECT_DIR__", str(PROJECT).encode())
    source = source.replace(b"__OTHER_BOT_DIR__", str(other).encode())
    began = time.monotonic()
    record, bot = play(source, path.name, bot_cache)

    if "ok" in causes and (record.forfeit is None or record.forfeit.seat == 1):
        assert bot.failure is None, f"{path.name} got out: {bot.failure}\n{bot.log}"
    else:
        assert record.forfeit is not None, f"{path.name} was not stopped"
        assert record.forfeit.seat == 0
        assert record.forfeit.cause in causes, f"{record.forfeit}\n{bot.log}"
    # Contained in time: the move clock and the start limit, not the test's patience.
    assert time.monotonic() - began < 15
    assert len(bot.log) <= bot.limits.log_bytes + 100
    assert_no_sandbox_processes()

    # The next match on this worker is unaffected.
    after, good = play(GOOD_BOT, "good.py", bot_cache)
    assert good.failure is None, good.log
    assert after.forfeit is None
    assert after.result is not None and after.result["finished"]


def test_concurrent_sandboxes_never_share_a_uid_and_closing_one_spares_the_other(bot_cache: Path) -> None:
    bots = [
        SandboxedBot(
            code=bot_code(filename="good.py", content=GOOD_BOT), cache_dir=bot_cache, game="1923", players=2, options={}
        )
        for _ in range(6)
    ]
    for bot in bots:
        bot.start()
    assert len({bot.uid for bot in bots}) == 6
    bots[0].close()
    bots[0].close()  # twice: the second close must not kill a uid someone else may hold by now
    survivor = bots[1]
    other = make_bot("random", game="1923", seat=1, players=2, options={}, seed=3)
    record = play_game("1923", agents=[survivor.seated(0, 0), other], seed=5)
    assert record.forfeit is None and survivor.failure is None
    for bot in bots[1:]:
        bot.close()
    assert_no_sandbox_processes()
