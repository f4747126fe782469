"""Playing a match through the engine: the body of the worker task."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.utils import timezone

from config.database_outages import is_database_outage, may_wait_out, wait_for_database, when_database_answers
from engine.agents import Agent
from engine.errors import EngineError
from engine.games import get_game, seats_for
from engine.match import MatchResult, play_match
from league.agents import BotReport, VersionBots
from league.models import BotVersion
from tournaments.formats.registry import format_of
from tournaments.models import BotRun, Competition, Entrant, Match, MatchParticipant
from tournaments.services.bot_troubles import bot_failure_counted
from tournaments.services.results import match_record_result
from tournaments.services.scheduling import matches_release
from tournaments.services.statements import instance_from_row, select_columns, sql_cursor

log = logging.getLogger(__name__)


class NotPlayable(Exception):
    """The match cannot be played by the engine alone (a person sits at it)."""


def match_claim(*, match_id: int) -> Match | None:
    """pending → running, for exactly one caller: the conditional UPDATE is the lock.

    The claimed match, with its competition; None if another worker got there first.
    """
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    claim = (
        f"UPDATE {Match._meta.db_table} SET status = %s, started_at = %s, heartbeat_at = %s, "
        "attempts = attempts + 1 WHERE id = %s AND status = %s"
    )
    values = [Match.Status.RUNNING, now, now, match_id, Match.Status.PENDING]
    with sql_cursor() as cursor:
        if connection.vendor != "postgresql":
            cursor.execute(claim, values)
            return Match.objects.select_related("competition").get(pk=match_id) if cursor.rowcount == 1 else None
        # PostgreSQL reads back what it claimed in the same statement: one round trip, no ORM query.
        cursor.execute(
            f"WITH claimed AS ({claim} RETURNING *) SELECT {select_columns('claimed', Match)}, "
            f"{select_columns('c', Competition)} FROM claimed "
            f"JOIN {Competition._meta.db_table} c ON c.id = claimed.competition_id",
            values,
        )
        row = cursor.fetchone()
    if row is None:
        return None
    split = len(Match._meta.concrete_fields)
    match = instance_from_row(Match, row[:split])
    match.competition = instance_from_row(Competition, row[split:])
    return match


class Heartbeat:
    """Touches the running match every few seconds, so the reaper can tell a live worker from a dead one."""

    def __init__(self, match_id: int) -> None:
        self.match_id = match_id
        self.due = time.monotonic() + settings.MATCH_HEARTBEAT_SECONDS

    def __call__(self) -> None:
        # Called before every game and every external bot's move: only the clock is read until it is due.
        if time.monotonic() >= self.due:
            self.due = time.monotonic() + settings.MATCH_HEARTBEAT_SECONDS
            Match.objects.filter(pk=self.match_id, status=Match.Status.RUNNING).update(heartbeat_at=timezone.now())


def match_play(*, match_id: int) -> Match | None:
    """Claim, play and record one match; None if another worker already has it.

    A database outage (a restart, a failover) interrupts no more than the current try: the worker
    waits for the database, then claims the match, or plays the match it holds again from its start
    on the same attempt (config/database_outages.py). Nothing of an interrupted try was recorded: the
    result is written in one transaction.
    """
    # Should an outage cut the claim's answer off after it committed, the claim tried again finds the match
    # taken and leaves it: the reaper puts it back once its heartbeat is stale, as for a dead worker.
    match = when_database_answers(lambda: match_claim(match_id=match_id), what=f"claiming match {match_id}")
    if match is None:
        return None
    for interruption in range(_RESUMES + 1):
        try:
            return _match_play_claimed(match)
        except Exception as exc:
            if not may_wait_out(exc) or interruption == _RESUMES:
                # The match stays running: the reaper puts it back once its heartbeat is stale. Inside a
                # caller's transaction the outage is the caller's, as for when_database_answers.
                raise
            log.warning("match %s: the database went away mid-match (%s); waiting for it", match_id, exc)
            waited = wait_for_database()
            if not match_resume(match=match):
                log.warning("match %s: no longer ours after %.1f s without the database", match_id, waited)
                return None
            log.warning("match %s: the database answers again after %.1f s; playing it again", match_id, waited)
    raise AssertionError("unreachable")  # pragma: no cover


#: Outages one task waits out in the middle of its match before it leaves the match to the reaper.
_RESUMES = 5


def _match_play_claimed(match: Match) -> Match:
    reports: dict[int, BotReport] = {}
    try:
        result = match_simulate(match=match, heartbeat=Heartbeat(match.pk), reports=reports)
    except (EngineError, NotPlayable) as exc:
        bot_runs_record(match=match, reports=reports)
        return match_mark_error(match=match, error=str(exc))
    except SoftTimeLimitExceeded:
        error = f"the match took longer than {settings.CELERY_TASK_SOFT_TIME_LIMIT} s"
        # Not played again after an outage here: the hard limit is near. Marked once the database answers.
        return when_database_answers(lambda: match_mark_error(match=match, error=error), what=f"match {match.pk}")
    except Exception as exc:
        if is_database_outage(exc):
            raise  # the database's failure, not the match's: match_play waits for it and plays again
        # A bug, not the bots': keep the match visible in error, with the cause, for a retry.
        log.exception("match %s crashed the engine", match.pk)
        return match_mark_error(match=match, error=f"internal error: {type(exc).__name__}: {exc}")
    recorded = match_record_result(match=match, result=result)
    bot_runs_record(match=match, reports=reports)
    return recorded


def match_resume(*, match: Match) -> bool:
    """Take up this worker's claim again after the database came back: the same attempt, a fresh heartbeat.

    Conditional on the claim still being ours, at the attempt we claimed: running, or pending if the
    reaper took our silence for a death and put the match back meanwhile (its re-sent task then finds
    the match taken, as a duplicate does). Not if another worker claimed it since (the attempt moved
    on), nor if the commit the outage cut short did record it.
    """
    now = timezone.now()
    resumed = Match.objects.filter(
        pk=match.pk, status__in=[Match.Status.RUNNING, Match.Status.PENDING], attempts=match.attempts
    ).update(status=Match.Status.RUNNING, started_at=now, heartbeat_at=now)
    return resumed == 1


def match_simulate(
    *, match: Match, heartbeat: Callable[[], None] = lambda: None, reports: dict[int, BotReport] | None = None
) -> MatchResult:
    """Play the match through the engine; ``reports`` receives how each external bot fared."""
    competition: Competition = match.competition
    game = get_game(competition.game)
    decides = game.DECISIONS
    participants, versions = _bot_versions(match.pk, load=decides)
    seats = seats_for(game, participants, competition.options)
    options = competition.options

    # One bot per version for the whole match, each external bot's move keeping the heartbeat going.
    with VersionBots(
        dict(enumerate(versions)), game=competition.game, players=seats, options=options, before_remote_move=heartbeat
    ) as bots:
        bots.make_remote_bots()

        def agents_for_game(number: int, seating: Sequence[int | None], seed: int) -> list[Agent | None]:
            heartbeat()
            if not decides:
                return [None] * len(seating)  # War: no seat is ever asked anything
            return [
                None if who is None else bots.agent(who, seat=seat, game_number=number, seed=seed)
                for seat, who in enumerate(seating)
            ]

        try:
            return play_match(
                competition.game,
                participants=participants,
                agents_for_game=agents_for_game,
                seats=seats,
                games=competition.games_per_match,
                seed=match.seed,
                options=options,
                duplicate=competition.duplicate_deals,
                best_of=format_of(competition).best_of(competition),
            )
        finally:
            if reports is not None:
                reports.update(bots.reports())


def _bot_versions(match_id: int, *, load: bool) -> tuple[int, list[BotVersion]]:
    """How many participants there are, and their bot versions in seat order if ``load`` (War asks no bot).

    Plain SQL first: a War match needs only to know that every seat is a bot.
    """
    with sql_cursor() as cursor:
        cursor.execute(
            f"SELECT e.bot_version_id, e.name FROM {MatchParticipant._meta.db_table} p "
            f"JOIN {Entrant._meta.db_table} e ON e.id = p.entrant_id WHERE p.match_id = %s ORDER BY p.seat",
            [match_id],
        )
        seats = cursor.fetchall()
    for version_id, name in seats:
        if version_id is None:
            raise NotPlayable(f"{name} is a person: this match is played as a refereed game")
    if not load:
        return len(seats), []
    versions = BotVersion.objects.select_related("bot").in_bulk([version_id for version_id, _ in seats])
    return len(seats), [versions[version_id] for version_id, _ in seats]


def bot_runs_record(*, match: Match, reports: dict[int, BotReport]) -> None:
    """Keep each external bot's log and failure; a rerun of the match keeps the first, and counts no failure
    twice towards telling the owner their bot keeps failing."""
    if not reports:
        return
    participants = list(match.participants.select_related("entrant").order_by("seat"))
    with transaction.atomic():
        for who, report in reports.items():
            participant = participants[who]
            _, created = BotRun.objects.get_or_create(
                participant=participant,
                defaults={
                    "failure": report.failure,
                    "detail": report.detail[:4000],
                    "log": report.log,
                    "start_ms": report.start_ms,
                },
            )
            if created and report.failure and participant.entrant.bot_version_id is not None:
                bot_failure_counted(version_id=participant.entrant.bot_version_id)


def match_mark_error(*, match: Match, error: str) -> Match:
    """Put this worker's claim of the match in error, with the cause.

    Only this claim (running, with the attempt number it was claimed at): if the reaper gave the
    match to another worker meanwhile, which may have recorded it, that outcome stands.
    """
    marked = Match.objects.filter(pk=match.pk, status=Match.Status.RUNNING, attempts=match.attempts).update(
        status=Match.Status.ERROR, error=error[:4000], finished_at=timezone.now()
    )
    if marked:
        log.warning("match %s failed: %s", match.pk, error)
    else:
        log.warning("match %s failed after another worker took it over; its outcome stands: %s", match.pk, error)
    match.refresh_from_db()
    return match


def match_retry(*, match: Match) -> Match:
    """An organiser sends an errored match back to the queue, with a fresh allowance of attempts."""
    with transaction.atomic():
        updated = Match.objects.filter(pk=match.pk, status=Match.Status.ERROR).update(
            status=Match.Status.PENDING, error="", started_at=None, heartbeat_at=None, finished_at=None, attempts=0
        )
        if updated == 1:
            matches_release(match_ids=[match.pk])
    match.refresh_from_db()
    if updated != 1:
        raise ValidationError({"status": f"only a match in error can be retried; this one is {match.status}"})
    return match


def competition_play_pending(*, competition: Competition) -> int:
    """Play every pending match in this process, in order (the demo, tests); the number played."""
    played = 0
    for match_id in (
        competition.matches.filter(status=Match.Status.PENDING)
        .order_by("round__number", "id")
        .values_list("id", flat=True)
    ):
        if match_play(match_id=match_id) is not None:
            played += 1
    return played


def competition_play_now(*, competition: Competition) -> int:
    """An organiser's "play": send every pending match of the current rounds to the workers again.

    Workers already play a running competition round by round; this re-sends tasks a broker
    may have lost, without waiting for the reaper. The number of matches queued.
    """
    competition.refresh_from_db(fields=["status"])
    if competition.status != Competition.Status.RUNNING:
        raise ValidationError(
            {"competition": f"only a running competition can be played; this one is {competition.status}"}
        )
    with transaction.atomic():
        ids = competition.matches.filter(status=Match.Status.PENDING, queued_at__isnull=False).values_list(
            "id", flat=True
        )
        return matches_release(match_ids=list(ids))
