"""When matches go to the workers: on commit, a fixed schedule whole, a round-by-round format a round at a time."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from tests.factories import CompetitionFactory, EntrantFactory
from tournaments.formats.registry import get_format
from tournaments.models import Competition, Match
from tournaments.services import scheduling
from tournaments.services.competitions import competition_start
from tournaments.services.play import match_play, match_resume

pytestmark = pytest.mark.django_db


def four_entrants() -> Competition:
    competition = CompetitionFactory()
    for _ in range(4):
        EntrantFactory(competition=competition)
    return competition


def test_a_round_robin_sends_its_whole_schedule_when_the_start_commits(
    sent: list[int], django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    competition = four_entrants()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        competition_start(competition=competition)
    assert sent == []  # nothing leaves before the commit
    for callback in callbacks:
        callback()
    assert sorted(sent) == sorted(competition.matches.values_list("id", flat=True))
    assert not competition.matches.filter(queued_at__isnull=True).exists()


def test_a_round_by_round_format_sends_the_next_round_when_the_last_match_of_a_round_is_recorded(
    sent: list[int], monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    monkeypatch.setattr(get_format("round_robin"), "pairs_round_by_round", True)
    competition = four_entrants()
    with django_capture_on_commit_callbacks(execute=True):
        competition_start(competition=competition)
    round_one = list(competition.matches.filter(round__number=1).values_list("id", flat=True))
    assert sent == round_one
    # Rounds made ahead of their turn wait unqueued: the reaper re-sends only what was sent and lost.
    assert not competition.matches.filter(round__number__gt=1, queued_at__isnull=False).exists()
    with django_capture_on_commit_callbacks(execute=True):
        match_play(match_id=round_one[0])
    assert sent == round_one  # one match of round 1 is still pending
    with django_capture_on_commit_callbacks(execute=True):
        match_play(match_id=round_one[1])
    round_two = list(competition.matches.filter(round__number=2).order_by("id").values_list("id", flat=True))
    assert sent == round_one + round_two
    assert not competition.matches.filter(round__number=2, queued_at__isnull=True).exists()


@pytest.mark.django_db(transaction=True)
def test_matches_made_and_sent_in_one_transaction_are_written_once_and_a_later_release_marks_them_again(
    sent: list[int],
) -> None:
    from django.db import connection, transaction

    def row_places() -> dict[int, str]:
        with connection.cursor() as cursor:
            cursor.execute("SELECT id, ctid::text FROM tournaments_match WHERE competition_id = %s", [competition.pk])
            return dict(cursor.fetchall())

    competition = four_entrants()
    with transaction.atomic():
        competition_start(competition=competition)
        if connection.vendor == "postgresql":
            # Written queued when made: the release left every row where the insert put it.
            made = row_places()
            ids = list(made)
            scheduling.matches_release(match_ids=ids)
            assert row_places() == made
    first = dict(competition.matches.values_list("id", "queued_at"))
    assert len(first) == 6 and None not in first.values()
    with transaction.atomic():
        scheduling.matches_release(match_ids=list(first))
    again = dict(competition.matches.values_list("id", "queued_at"))
    assert all(again[match_id] > queued for match_id, queued in first.items())


def test_the_reaper_requeues_stale_running_matches_and_gives_up_after_three_attempts(
    sent: list[int], settings: Any, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    competition = four_entrants()
    competition_start(competition=competition)
    first, second, *_ = competition.matches.order_by("id")
    stale = timezone.now() - timedelta(seconds=settings.MATCH_HEARTBEAT_GRACE + 5)
    Match.objects.filter(pk=first.pk).update(status="running", heartbeat_at=stale, attempts=1)
    Match.objects.filter(pk=second.pk).update(status="running", heartbeat_at=stale, attempts=3)
    with django_capture_on_commit_callbacks(execute=True):
        report = scheduling.matches_reap()
    assert (report.requeued_running, report.gave_up) == (1, 1)
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.status == "pending" and first.pk in sent
    assert second.status == "error" and "gave up after 3 attempts" in second.error


def test_a_live_heartbeat_keeps_a_running_match_from_the_reaper(sent: list[int]) -> None:
    competition = four_entrants()
    competition_start(competition=competition)
    match = competition.matches.order_by("id").first()
    assert match is not None
    Match.objects.filter(pk=match.pk).update(status="running", heartbeat_at=timezone.now(), attempts=1)
    assert scheduling.matches_reap().requeued_running == 0
    match.refresh_from_db()
    assert match.status == "running"


def test_a_worker_back_from_a_database_outage_resumes_its_own_claim_only(sent: list[int]) -> None:
    """services/play.py, match_resume: the same attempt, running, or put back by the reaper meanwhile; never a
    match another worker claimed since, nor one that was recorded."""
    competition = four_entrants()
    competition_start(competition=competition)
    ours, requeued, taken, recorded = competition.matches.order_by("id")[:4]
    stale = timezone.now() - timedelta(seconds=600)
    Match.objects.filter(pk=ours.pk).update(status="running", heartbeat_at=stale, attempts=1)
    Match.objects.filter(pk=requeued.pk).update(status="pending", heartbeat_at=None, attempts=1)
    Match.objects.filter(pk=taken.pk).update(status="running", heartbeat_at=stale, attempts=2)
    Match.objects.filter(pk=recorded.pk).update(status="done", attempts=1)
    claims = {match.pk: Match(pk=match.pk, attempts=1) for match in (ours, requeued, taken, recorded)}
    resumed = {pk: match_resume(match=claim) for pk, claim in claims.items()}
    assert resumed == {ours.pk: True, requeued.pk: True, taken.pk: False, recorded.pk: False}
    for match in (ours, requeued):
        match.refresh_from_db()
        assert (match.status, match.attempts) == ("running", 1)
        assert match.heartbeat_at is not None and match.heartbeat_at > stale
