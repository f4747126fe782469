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
from typing import TYPE_CHECKING, cast

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from kombu.exceptions import ChannelError

from tournaments.models import Match, Round
from tournaments.services.live_start import live_matches_start
from tournaments.services.live_tables import matches_with_people

if TYPE_CHECKING:
    from kombu.transport.virtual import Channel as VirtualChannel

log = logging.getLogger(__name__)

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
        ids = [match_id for match_id in ids if match_id not in people]
    queued = len(people) + Match.objects.filter(id__in=ids, status=Match.Status.PENDING).update(
        queued_at=timezone.now()
    )
    if not ids:
        return queued
    # robust: a broker that is down must not undo the commit; the reaper re-sends later.
    transaction.on_commit(lambda: _send(ids), robust=True)
    return queued


def _send(match_ids: list[int]) -> None:
    from tournaments.tasks import run_match

    for match_id in match_ids:
        run_match.apply_async((match_id,), queue=settings.CELERY_GAMES_QUEUE)


def round_release(*, round_: Round) -> int:
    ids = round_.matches.filter(status=Match.Status.PENDING).order_by("id").values_list("id", flat=True)
    return matches_release(match_ids=list(ids))


def next_round_release_if_done(*, round_: Round) -> int:
    """When no match of ``round_`` is pending or running any more, queue the next round.

    A match in error does not hold the round up: the ladder goes on, and the error
    stays visible for an organiser to retry (ratings wait for it, see results.py).
    """
    if round_.matches.filter(status__in=[Match.Status.PENDING, Match.Status.RUNNING]).exists():
        return 0
    following = Round.objects.filter(competition_id=round_.competition_id, number=round_.number + 1).first()
    return 0 if following is None else round_release(round_=following)


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
    depth = queue_depth(settings.CELERY_GAMES_QUEUE)
    # Long queues are normal: only when the broker holds fewer tasks than there are waiting
    # matches were some lost (a restarted Redis keeps nothing). Duplicates are harmless.
    if lost and (depth is None or depth < len(lost)):
        with transaction.atomic():
            matches_release(match_ids=lost)
    else:
        lost = []
    if requeued or gave_up or lost:
        log.warning("reaper: requeued %s running, gave up %s, re-sent %s pending", requeued, gave_up, len(lost))
    return ReapReport(requeued_running=requeued, gave_up=gave_up, resent_pending=len(lost))


def queue_depth(queue: str) -> int | None:
    """Messages waiting in a broker queue, or None if the broker cannot say."""
    from config.celery import app

    try:
        with app.connection_for_write() as connection:
            # Redis and the embedded filesystem broker are both kombu virtual transports; StdChannel has no queues.
            channel = cast("VirtualChannel", connection.default_channel)
            return int(channel.queue_declare(queue=queue, passive=True).message_count)
    except ChannelError:
        # Redis drops an empty list, so "no such queue" just means nothing is waiting.
        return 0
    except Exception:
        # Any other broker trouble only means "unknown": the reaper then re-sends to be safe.
        log.warning("could not read the depth of queue %s", queue, exc_info=True)
        return None
