"""The quiet-turn sweep against itself and against a move, on PostgreSQL's row locks: a turn is told once, and a
turn played while it is being told leaves no notice behind."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from league.notifications.kinds import Kind
from league.notifications.models import Notification
from tests.tournaments.live_support import live_match
from tests.tournaments.test_your_turn import BY_POST, move, to_act
from tournaments.services import live_turns
from tournaments.services.live import live_turns_tell

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks are PostgreSQL's"),
    pytest.mark.django_db(transaction=True),
]


def slow_telling(monkeypatch: pytest.MonkeyPatch, telling: threading.Event) -> None:
    """Telling takes a while, inside the sweep's transaction: whatever races it meets the match's lock."""
    tell = live_turns._tell

    def slowly(*args: Any) -> dict[str, int]:
        told = tell(*args)
        telling.set()
        time.sleep(0.5)
        return told

    monkeypatch.setattr(live_turns, "_tell", slowly)


def run_together(*works: Callable[[], Any]) -> list[Any]:
    results: list[Any] = [None] * len(works)
    errors: list[BaseException] = []

    def run(index: int, work: Callable[[], Any]) -> None:
        try:
            results[index] = work()
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, work)) for i, work in enumerate(works)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert errors == []
    return results


def test_two_sweeps_at_once_tell_a_turn_once(monkeypatch: pytest.MonkeyPatch, settings: Any) -> None:
    settings.NOTIFY_TURN_QUIET_SECONDS = 0
    match, players = live_match("banter", **BY_POST)
    (leader,) = to_act(match, players)
    telling = threading.Event()
    slow_telling(monkeypatch, telling)
    later = timezone.now() + timedelta(seconds=1)

    def second_sweep() -> int:
        assert telling.wait(10)
        return live_turns_tell(now=later)

    told = run_together(lambda: live_turns_tell(now=later), second_sweep)
    assert sorted(told) == [0, 1]
    assert Notification.objects.filter(player=leader, kind=Kind.YOUR_TURN).count() == 1


def test_a_move_made_while_its_turn_is_being_told_leaves_no_notice(
    monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    settings.NOTIFY_TURN_QUIET_SECONDS = 0
    match, players = live_match("banter", **BY_POST)
    (leader,) = to_act(match, players)
    telling = threading.Event()
    slow_telling(monkeypatch, telling)

    def moving() -> None:
        assert telling.wait(10)
        rng, moves = random.Random(1), 0
        # A Banter turn may be more than one decision: the leader plays until the table waits on the other.
        while to_act(match, players) == [leader]:
            move(match, players, leader, rng, f"m{moves}")
            moves += 1

    told, _ = run_together(lambda: live_turns_tell(now=timezone.now() + timedelta(seconds=1)), moving)
    assert told == 1
    # The first move waited for the sweep's lock, then the turn passed: the notice, never mailed, went with it.
    assert not Notification.objects.filter(player=leader, kind=Kind.YOUR_TURN).exists()
