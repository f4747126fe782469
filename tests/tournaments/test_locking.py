"""Competition and match row locks against match updates committed meanwhile: waits, never deadlocks (PostgreSQL)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection, transaction
from django.utils import timezone

from tests.tournaments.helpers import two_bot_match
from tests.tournaments.test_game_rows import played
from tournaments.models import Competition, Game, Match
from tournaments.services.competitions import competition_cancel
from tournaments.services.results import match_record_result

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks are PostgreSQL's"),
    pytest.mark.django_db(transaction=True),
]


def race_a_retry(
    match: Match,
    locker: Callable[[], Any],
    locker_on_its_way: threading.Event,
    *,
    while_held: Callable[[], None] = lambda: time.sleep(0.3),
) -> None:
    """Run ``locker`` while a retry of ``match`` holds the match row, and let the retry commit meanwhile.

    A retry (or the reaper) updates a match twice in one transaction, so PostgreSQL checks the
    match's foreign keys at its commit, with a key-share lock of the competition row; ``locker``
    holds the competition and waits for that match row. Both must finish. ``while_held`` runs in the
    retry's transaction once the locker is on its way.
    """
    retry_holds_the_match = threading.Event()
    errors: list[BaseException] = []

    def retry() -> None:
        try:
            with transaction.atomic():
                Match.objects.filter(pk=match.pk).update(status=Match.Status.PENDING, error="")
                Match.objects.filter(pk=match.pk).update(queued_at=timezone.now())
                retry_holds_the_match.set()
                assert locker_on_its_way.wait(10)
                while_held()
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    def lock() -> None:
        try:
            assert retry_holds_the_match.wait(10)
            locker()
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=retry), threading.Thread(target=lock)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert errors == []


def errored_match() -> Match:
    match = two_bot_match(3)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.ERROR)
    return match


def test_a_recorder_waits_for_a_retry_s_match_row_without_holding_the_competition(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A recording takes its matches' rows before the competition's, so it never holds the competition
    while it waits for a match row: the retry, still holding the match, can lock the competition itself."""
    monkeypatch.setattr("config.background.send_now", lambda *_, **__: None)
    match = errored_match()
    recorder_started = threading.Event()
    result = played("war", 2, games=3)

    def record() -> None:
        recorder_started.set()
        match_record_result(match=Match.objects.get(pk=match.pk), result=result)

    def competition_free() -> None:
        time.sleep(0.3)  # the recorder now waits for the retry's match row
        with connection.cursor() as cursor:
            # NOWAIT: an error, not a wait, if the recorder held the competition.
            cursor.execute(
                f"SELECT id FROM {Competition._meta.db_table} WHERE id = %s FOR UPDATE NOWAIT", [match.competition_id]
            )

    race_a_retry(match, record, recorder_started, while_held=competition_free)
    match.refresh_from_db()
    assert match.status == Match.Status.DONE and Game.objects.filter(match=match).count() == 3


def test_cancelling_does_not_deadlock_with_a_retry_committing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("config.background.send_now", lambda *_, **__: None)
    match = errored_match()
    holds = threading.Event()
    select_for_update = Competition.objects.select_for_update

    def locked_then_signalled(**kwargs: Any) -> Any:
        holds.set()  # just before: the lock itself is taken by the .get() that follows
        return select_for_update(**kwargs)

    monkeypatch.setattr(Competition.objects, "select_for_update", locked_then_signalled)
    race_a_retry(match, lambda: competition_cancel(competition=match.competition), holds)
    match.refresh_from_db()
    assert match.status == Match.Status.CANCELLED
    assert Competition.objects.get(pk=match.competition_id).status == Competition.Status.CANCELLED
