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
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from config.background import enqueue_on_commit, queue_lost_some
from tournaments import notices
from tournaments.formats.registry import format_of
from tournaments.models import Competition, Match, Round
from tournaments.services.live_start import live_matches_start
from tournaments.services.live_tables import matches_with_people
from tournaments.services.round_rows import round_over
from tournaments.services.statements import one_of, sql_cursor

log = logging.getLogger(__name__)

#: The task that plays a batch of matches (tournaments/tasks.py), sent by name: the tasks import this module.
RUN_MATCHES = "tournaments.tasks.run_matches"

#: A match can be given up to this many claims before it is marked in error.
MAX_ATTEMPTS = 3


def matches_release(*, match_ids: Sequence[int]) -> int:
    """Queue these pending matches once the current transaction commits; the number queued.

    The matches go out in batches (match_batches): one message, one claim and one recording per batch.
    """
    ids = list(match_ids)
    if not ids:
        return 0
    # A match with a person in it is played at live tables (or with real cards), not by a worker alone.
    people = matches_with_people(ids)
    if people:
        live_matches_start(match_ids=sorted(people))
        notices.matches_ready(sorted(people))
        ids = [match_id for match_id in ids if match_id not in people]
    lengths = _mark_queued(ids)
    queued = len(people) + len(lengths)
    for batch in match_batches(lengths):
        enqueue_on_commit(RUN_MATCHES, batch, queue=settings.CELERY_GAMES_QUEUE)
    return queued


def _mark_queued(match_ids: list[int]) -> list[tuple[int, int, int]]:
    """Mark these matches queued now, those still pending: each one's id, competition and games a match."""
    if not match_ids:
        return []
    if connection.vendor != "postgresql":
        pending = Match.objects.filter(id__in=match_ids, status=Match.Status.PENDING)
        lengths = list(pending.values_list("id", "competition_id", "competition__games_per_match"))
        pending.update(queued_at=timezone.now())
        return lengths
    # One statement with the ids as one array: a round robin's start releases its whole schedule. Matches
    # made in this transaction were written queued at its time (round_rows.rounds_create): writing each of
    # those rows again would cost more than the rest of the start together.
    table = Match._meta.db_table
    among, values = one_of("id", match_ids, hashed=True)
    with sql_cursor() as cursor:
        cursor.execute(
            f"WITH pending AS (SELECT id, competition_id, queued_at FROM {table} WHERE {among} AND status = %s), "
            f"marked AS (UPDATE {table} m SET queued_at = now() FROM pending p WHERE m.id = p.id "
            "AND m.status = %s AND p.queued_at IS DISTINCT FROM now()) "
            f"SELECT p.id, p.competition_id, c.games_per_match FROM pending p "
            f"JOIN {Competition._meta.db_table} c ON c.id = p.competition_id",
            [*values, Match.Status.PENDING, Match.Status.PENDING],
        )
        return [tuple(row) for row in cursor.fetchall()]


def _per_batch(games_per_match: int) -> int:
    return max(1, settings.MATCH_BATCH_GAMES // games_per_match)


def fewest_batches(matches: Sequence[tuple[int, int, int]]) -> int:
    """(match id, competition id, games a match) → the fewest batches match_batches could have sent them in."""
    by_competition: dict[int, list[int]] = {}
    for _, competition_id, games in matches:
        by_competition.setdefault(competition_id, []).append(games)
    return sum(-(-len(lengths) // _per_batch(max(lengths))) for lengths in by_competition.values())


def match_batches(matches: Sequence[tuple[int, int, int]]) -> list[list[int]]:
    """(match id, competition id, games a match) → batches of match ids, each of one competition.

    A batch holds up to MATCH_BATCH_GAMES games, so a long match is a batch of its own and a batch's
    task stays short (its heartbeat covers all of it). A competition's matches are cut into a multiple
    of MATCH_BATCH_SPREAD batches (the game workers) when there are that many matches, so every worker
    gets an even share; the batches are as even as they can be, in id order (the order ratings are
    applied in).
    """
    by_competition: dict[int, list[tuple[int, int]]] = {}
    for match_id, competition_id, games in sorted(matches):
        by_competition.setdefault(competition_id, []).append((match_id, games))
    batches = []
    for listed in by_competition.values():
        per_batch = _per_batch(max(games for _, games in listed))
        needed, spread = -(-len(listed) // per_batch), settings.MATCH_BATCH_SPREAD
        # A whole number of batches a worker, so that none waits while another plays a last batch alone.
        count = min(len(listed), -(-needed // spread) * spread)
        size, larger = divmod(len(listed), count)
        start = 0
        for index in range(count):
            end = start + size + (index < larger)
            batches.append([match_id for match_id, _ in listed[start:end]])
            start = end
    return batches


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
    if not round_over(competition.pk, round_.number):
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
    waiting = list(
        Match.objects.filter(status=Match.Status.PENDING, queued_at__lt=lost_before).values_list(
            "id", "competition_id", "competition__games_per_match"
        )
    )
    # The queue holds batches, not matches: it lost some when it holds fewer than the fewest they fit in.
    lost = [match_id for match_id, _, _ in waiting]
    if queue_lost_some(settings.CELERY_GAMES_QUEUE, waiting=fewest_batches(waiting)):
        with transaction.atomic():
            matches_release(match_ids=lost)
    else:
        lost = []
    if requeued or gave_up or lost:
        log.warning("reaper: requeued %s running, gave up %s, re-sent %s pending", requeued, gave_up, len(lost))
    return ReapReport(requeued_running=requeued, gave_up=gave_up, resent_pending=len(lost))
