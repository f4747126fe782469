"""A task the broker never got is sent again by beat's sweep (issue 21, finding 2).

While Redis is away a send is given up (config/background.py) and the move that made it stands: the rows
say what waits, and ``enforce_live_clocks`` (every LIVE_CLOCK_SECONDS) runs ``live_bots_reap``, which
sends again the turn of a bot that has not decided within LIVE_BOT_GRACE, and the recording of a live
match whose games all ended without anyone's move (War, over when dealt).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.db.models import F
from rest_framework.test import APIClient

from config import background
from engine.referee import LiveGame
from tests.tournaments.live_support import live_match
from tournaments.models import LiveTable, Match
from tournaments.services.live import live_move
from tournaments.services.live_bots import live_bots_reap
from tournaments.services.live_tables import current_table

pytestmark = pytest.mark.django_db

Capture = Callable[..., Any]


@pytest.fixture
def lost_sends(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[object, ...]]]:
    """Every task sent is lost, as when the broker cannot be reached; ``monkeypatch.undo()`` brings it back."""
    lost: list[tuple[object, ...]] = []
    monkeypatch.setattr(background, "send_now", lambda name, args, *, queue: lost.append((name, *args)))
    yield lost


def age(match: Match, **fields: F) -> None:
    LiveTable.objects.filter(match=match).update(**fields)


def grace() -> timedelta:
    return timedelta(seconds=settings.LIVE_BOT_GRACE + 1)


def test_a_bots_lost_turn_is_sent_again_by_the_sweep(
    lost_sends: list[tuple[object, ...]], monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Capture
) -> None:
    monkeypatch.undo()  # the start, and a bot's first move if it leads, go through
    with django_capture_on_commit_callbacks(execute=True):
        match, (person,) = live_match("banter", people=1, bots=1)
    monkeypatch.setattr(background, "send_now", lambda name, args, *, queue: lost_sends.append((name, *args)))
    client = APIClient()
    client.force_authenticate(person.user)
    rng = random.Random(2)
    for number in range(50):  # the person moves until a move makes it the bot's turn, whose task is lost
        view = client.get(f"/api/matches/{match.pk}/table/").json()
        with django_capture_on_commit_callbacks(execute=True):
            live_move(
                match_id=match.pk,
                player=person,
                action=rng.choice(view["legal_actions"]),
                version=view["version"],
                client_move_id=f"m{number}",
            )
        if lost_sends:
            break
    assert lost_sends == [("tournaments.tasks.advance_live_match", match.pk)]
    waiting = current_table(match.pk)
    assert waiting is not None and LiveGame.loads(waiting.game).awaiting()
    version = Match.objects.get(pk=match.pk).version
    monkeypatch.undo()  # the broker is back
    with django_capture_on_commit_callbacks(execute=True):
        assert live_bots_reap() == 0  # a bot may take its time
    age(match, turn_started_at=F("turn_started_at") - grace())
    with django_capture_on_commit_callbacks(execute=True):
        assert live_bots_reap() == 1
    assert Match.objects.get(pk=match.pk).version > version  # the bot decided


def test_a_live_matchs_lost_recording_is_sent_again_by_the_sweep(
    lost_sends: list[tuple[object, ...]], monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Capture
) -> None:
    """A live War plays itself out when dealt; its recording is a worker's, and its task was lost."""
    with django_capture_on_commit_callbacks(execute=True):
        match, _ = live_match("war", people=2)
    assert lost_sends == [("tournaments.tasks.advance_live_match", match.pk)]
    assert Match.objects.get(pk=match.pk).status == Match.Status.LIVE
    monkeypatch.undo()
    with django_capture_on_commit_callbacks(execute=True):
        assert live_bots_reap() == 0  # within the grace its task may still be on its way
    age(match, finished_at=F("finished_at") - grace(), turn_started_at=F("turn_started_at") - grace())
    with django_capture_on_commit_callbacks(execute=True):
        assert live_bots_reap() == 1
    assert Match.objects.get(pk=match.pk).status == Match.Status.DONE
    with django_capture_on_commit_callbacks(execute=True):
        assert live_bots_reap() == 0  # recorded: nothing more to send
