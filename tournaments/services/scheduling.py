"""Sending matches to the workers, round by round, and recovering work the workers lost.

The database is the source of truth: a match is pending, running, done, in
error or cancelled, whatever the broker holds. Tasks are only nudges, so a
lost message (a Redis restart keeps nothing) or a duplicate one (a redelivery)
is harmless: the reaper re-sends what was lost, and the claim lets exactly one
worker play a match.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from config.background import enqueue_on_commit, queue_lost_some
from tournaments import notices
from tournaments.formats.registry import format_of
from tournaments.models import Competition, Match, Round
from tournaments.services.live_start import live_matches_start
from tournaments.services.live_tables import matches_with_people
from tournaments.services.round_rows import round_over

log = logging.getLogger(__name__)

#: The task that plays one match (tournaments/tasks.py), sent by name: the tasks import this module.
RUN_MATCH = "tournaments.tasks.run_match"

#: A match can be given up to this many claims before it is marked in error.
MAX_ATTEMPTS = 3


def matches_release(*, match_ids: Sequence[int]) -> int:
    """Queue these pending matches once the current transaction commits; the number queued."""
    ids = list(match_ids)
    if not ids:
        return 0
    # A match with a person in it is played at live tables (or with real cards), not by a worker alone.
    people = matches_with_people(ids)
    if people:
        live_matches_start(match_ids=sorted(people))
        notices.matches_ready(sorted(people))
        ids = [match_id for match_id in ids if match_id not in people]
    queued = len(people) + Match.objects.filter(id__in=ids, status=Match.Status.PENDING).update(
        queued_at=timezone.now()
    )
    for match_id in ids:
        enqueue_on_commit(RUN_MATCH, match_id, queue=settings.CELERY_GAMES_QUEUE)
    return queued


def round_release(*, round_: Round) -> int:
    ids = round_.matches.filter(status=Match.Status.PENDING).order_by("id").values_list("id", flat=True)
    return matches_release(match_ids=list(ids))


def next_round_release_if_done(*, round_: Round) -> int:
    """When no match of ``round_`` is pending or running any more, queue the next round; the matches queued.

    A round made at the start (a round robin's) is queued as it is. Otherwise the format makes the next
    round now if it goes on (``Format.next_round``): a Swiss from the standings the round left, a knockout
    from its bracket, play to separation while its sequential test has not decided. They wait for every
    match of the round to be done or cancelled. A match in error does not hold a scheduled round up: the
    error stays visible for an organiser to retry (ratings wait for it, see results.py).
    """
    if round_.matches.filter(status__in=[Match.Status.PENDING, Match.Status.RUNNING]).exists():
        return 0
    following = Round.objects.filter(competition_id=round_.competition_id, number=round_.number + 1).first()
    if following is not None:
        return round_release(round_=following)
    competition = Competition.objects.get(pk=round_.competition_id)
    if not round_over(competition, round_.number):
        return 0  # a match in error holds the next round until an organiser retries it
    return matches_release(match_ids=format_of(competition).next_round(competition, round_.number + 1))


@dataclass(frozen=True)
class ReapReport:
    requeued_running: int
    gave_up: int
    resent_pending: int


def matches_reap() -> ReapReport:
    """Run by Celery beat: requeue matches whose worker died and re-send tasks the broker lost."""
    now = timezone.now()
    stale = now - timedelta(seconds=settings.MATCH_HEARTBEAT_GRACE)
    dead = Match.objects.filter(status=Match.Status.RUNNING).filter(
        Q(heartbeat_at__lt=stale) | Q(heartbeat_at__isnull=True, started_at__lt=stale)
    )
    gave_up = dead.filter(attempts__gte=MAX_ATTEMPTS).update(
        status=Match.Status.ERROR,
        error=f"gave up after {MAX_ATTEMPTS} attempts: the worker died or ran out of time each time",
        finished_at=now,
    )
    revived = list(dead.values_list("id", flat=True))
    with transaction.atomic():
        # Conditional on the heartbeat still being stale: a worker that just woke up keeps its match.
        requeued = (
            Match.objects.filter(id__in=revived, status=Match.Status.RUNNING)
            .filter(Q(heartbeat_at__lt=stale) | Q(heartbeat_at__isnull=True, started_at__lt=stale))
            .update(status=Match.Status.PENDING, started_at=None, heartbeat_at=None)
        )
        matches_release(match_ids=revived)
    lost_before = now - timedelta(seconds=settings.MATCH_QUEUE_GRACE)
    lost = list(
        Match.objects.filter(status=Match.Status.PENDING, queued_at__lt=lost_before).values_list("id", flat=True)
    )
    if queue_lost_some(settings.CELERY_GAMES_QUEUE, waiting=len(lost)):
        with transaction.atomic():
            matches_release(match_ids=lost)
    else:
        lost = []
    if requeued or gave_up or lost:
        log.warning("reaper: requeued %s running, gave up %s, re-sent %s pending", requeued, gave_up, len(lost))
    return ReapReport(requeued_running=requeued, gave_up=gave_up, resent_pending=len(lost))
