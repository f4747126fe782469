"""Playing matches through the engine, a batch at a time: the body of the worker task."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from functools import partial

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
from tournaments.services.results import matches_record_results
from tournaments.services.scheduling import matches_release
from tournaments.services.statements import instance_from_row, one_of, select_columns, sql_cursor

log = logging.getLogger(__name__)


class NotPlayable(Exception):
    """The match cannot be played by the engine alone (a person sits at it)."""


def match_claim(*, match_id: int) -> Match | None:
    """pending → running, for exactly one caller: the claimed match, with its competition; None if another
    worker got there first."""
    claimed = matches_claim(match_ids=[match_id])
    return claimed[0] if claimed else None


def matches_claim(*, match_ids: Sequence[int]) -> list[Match]:
    """pending → running, each match for exactly one caller: the conditional UPDATE is the lock.

    The matches this caller claimed, in id order, each with its competition; one statement for the whole
    batch on PostgreSQL. A match another worker claimed first is not among them.
    """
    ids = sorted(set(match_ids))
    if not ids:
        return []
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    among, values = one_of("id", ids, hashed=True)
    # Rows locked in id order, so two claims of overlapping batches (a redelivered message) queue rather
    # than deadlock; one that waited reads the row again and finds it running, not pending.
    pending = f"SELECT id FROM {Match._meta.db_table} WHERE {among} AND status = %s ORDER BY id"
    claim = (
        f"UPDATE {Match._meta.db_table} SET status = %s, started_at = %s, heartbeat_at = %s, "
        f"attempts = attempts + 1 WHERE id IN ({pending}{' FOR UPDATE' if _row_locks() else ''})"
    )
    arguments = [Match.Status.RUNNING, now, now, *values, Match.Status.PENDING]
    with sql_cursor() as cursor:
        if connection.vendor != "postgresql":
            # Elsewhere the driver's rows need the ORM's conversions (SQLite gives dates as text).
            cursor.execute(f"{claim} RETURNING id", arguments)
            claimed = [row[0] for row in cursor.fetchall()]
            return list(Match.objects.select_related("competition").filter(pk__in=claimed).order_by("id"))
        # PostgreSQL reads back what it claimed, with each match's competition, in the same statement; of a
        # match only what playing needs, as the rest (dates, documents) costs a conversion a match.
        cursor.execute(
            f"WITH claimed AS ({claim} RETURNING {', '.join(_CLAIMED)}) "
            f"SELECT {', '.join(f'claimed.{column}' for column in _CLAIMED)}, {select_columns('c', Competition)} "
            f"FROM claimed JOIN {Competition._meta.db_table} c ON c.id = claimed.competition_id ORDER BY claimed.id",
            arguments,
        )
        rows = cursor.fetchall()
    competitions: dict[int, Competition] = {}
    matches = []
    for row in rows:
        match = Match.from_db(connection.alias, _CLAIMED, row[: len(_CLAIMED)])
        competition = competitions.get(match.competition_id)
        if competition is None:
            competition = competitions[match.competition_id] = instance_from_row(Competition, row[len(_CLAIMED) :])
        match.competition = competition
        matches.append(match)
    return matches


#: The columns of a claimed match that playing and recording it read; the others load if asked for.
_CLAIMED = ("id", "competition_id", "round_id", "number", "status", "seed", "attempts")


def _row_locks() -> bool:
    return bool(connection.features.has_select_for_update)


class Heartbeat:
    """Touches the running matches of a batch every few seconds, so the reaper can tell a live worker from a
    dead one."""

    def __init__(self, match_ids: Sequence[int]) -> None:
        self.match_ids = list(match_ids)
        self.due = time.monotonic() + settings.MATCH_HEARTBEAT_SECONDS

    def __call__(self) -> None:
        # Called before every game and every external bot's move: only the clock is read until it is due.
        if time.monotonic() >= self.due:
            self.due = time.monotonic() + settings.MATCH_HEARTBEAT_SECONDS
            Match.objects.filter(pk__in=self.match_ids, status=Match.Status.RUNNING).update(heartbeat_at=timezone.now())


def match_play(*, match_id: int) -> Match | None:
    """Claim, play and record one match; None if another worker already has it."""
    played = matches_play(match_ids=[match_id])
    return played[0] if played else None


def matches_play(*, match_ids: Sequence[int]) -> list[Match]:
    """Claim a batch of matches, play them one after the other, and record them in one transaction.

    The matches this worker claimed, as they now stand: another worker's are left to it. A batch is
    made of one competition's matches (services/scheduling.py).

    A database outage (a restart, a failover) interrupts no more than the current try: the worker
    waits for the database, then claims the batch, or plays the matches it holds again from the start
    on the same attempt (config/database_outages.py). Nothing of an interrupted try was recorded: the
    results are written in one transaction.
    """
    # Should an outage cut the claim's answer off after it committed, the claim tried again finds the
    # matches taken and leaves them: the reaper puts them back once their heartbeat is stale, as for a
    # dead worker.
    matches = when_database_answers(
        lambda: matches_claim(match_ids=match_ids), what=f"claiming matches {_listed(match_ids)}"
    )
    for interruption in range(_RESUMES + 1):
        if not matches:
            return []
        try:
            return _matches_play_claimed(matches)
        except Exception as exc:
            if not may_wait_out(exc) or interruption == _RESUMES:
                # The matches stay running: the reaper puts them back once their heartbeat is stale. Inside
                # a caller's transaction the outage is the caller's, as for when_database_answers.
                raise
            for match in matches:
                # A line a match, as the drills read them (tests/e2e/test_drill_postgres.py).
                log.warning("match %s: the database went away mid-match (%s); waiting for it", match.pk, exc)
            waited = wait_for_database()
            held, matches = matches, [match for match in matches if match_resume(match=match)]
            for match in held:
                again = "playing it again" if match in matches else "no longer ours"
                log.warning("match %s: the database answers again after %.1f s; %s", match.pk, waited, again)
    raise AssertionError("unreachable")  # pragma: no cover


def _listed(match_ids: Sequence[int]) -> str:
    return ", ".join(map(str, match_ids))


#: Outages one task waits out in the middle of its batch before it leaves the batch to the reaper.
_RESUMES = 5


def _matches_play_claimed(matches: list[Match]) -> list[Match]:
    heartbeat = Heartbeat([match.pk for match in matches])
    lineups = Lineups.read(matches)
    played: list[tuple[Match, MatchResult, dict[int, BotReport]]] = []
    ended: list[Match] = []
    for index, match in enumerate(matches):
        reports: dict[int, BotReport] = {}
        try:
            result = match_simulate(match=match, heartbeat=heartbeat, reports=reports, lineups=lineups)
        except (EngineError, NotPlayable) as exc:
            bot_runs_record(match=match, reports=reports)
            ended.append(match_mark_error(match=match, error=str(exc)))
            continue
        except SoftTimeLimitExceeded:
            error = f"the batch took longer than {settings.CELERY_TASK_SOFT_TIME_LIMIT} s"
            # Not played again after an outage here: the hard limit is near. Marked once the database answers.
            ended.append(when_database_answers(partial(match_mark_error, match=match, error=error), what="a match"))
            # What was played is recorded below; what was not goes back to the queue, on another task.
            when_database_answers(partial(matches_unclaim, matches=matches[index + 1 :]), what="a batch")
            break
        except Exception as exc:
            if is_database_outage(exc):
                raise  # the database's failure, not the match's: matches_play waits for it and plays again
            # A bug, not the bots': keep the match visible in error, with the cause, for a retry.
            log.exception("match %s crashed the engine", match.pk)
            ended.append(match_mark_error(match=match, error=f"internal error: {type(exc).__name__}: {exc}"))
            continue
        played.append((match, result, reports))
    recorded = matches_record_results([(match, result) for match, result, _ in played])
    for match, _, reports in played:
        bot_runs_record(match=match, reports=reports)
    order = {match.pk: index for index, match in enumerate(matches)}
    return sorted([*recorded, *ended], key=lambda match: order[match.pk])


def matches_unclaim(*, matches: Sequence[Match]) -> None:
    """Give back matches this worker claimed and did not play: pending again, on this claim's attempt, and
    queued for another task."""
    with transaction.atomic():
        given_back = [
            match.pk
            for match in matches
            if Match.objects.filter(pk=match.pk, status=Match.Status.RUNNING, attempts=match.attempts).update(
                status=Match.Status.PENDING, started_at=None, heartbeat_at=None, attempts=match.attempts - 1
            )
        ]
        matches_release(match_ids=given_back)


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
    *,
    match: Match,
    heartbeat: Callable[[], None] = lambda: None,
    reports: dict[int, BotReport] | None = None,
    lineups: Lineups | None = None,
) -> MatchResult:
    """Play the match through the engine; ``reports`` receives how each external bot fared.

    ``lineups`` holds the seats and bot versions of a batch, read once for all its matches.
    """
    competition: Competition = match.competition
    game = get_game(competition.game)
    decides = game.DECISIONS
    participants, versions = (lineups or Lineups.read([match])).versions_of(match.pk)
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


class Lineups:
    """Who sits at each match of a batch: two statements for the whole batch, not two a match."""

    def __init__(self, seats: dict[int, list[tuple[int | None, str]]], versions: dict[int, BotVersion]) -> None:
        #: By match: each seat's bot version id (None for a person) and entrant's name, in seat order.
        self.seats = seats
        #: The bot versions of the matches whose game asks its seats for decisions (War asks nothing).
        self.versions = versions

    @classmethod
    def read(cls, matches: Sequence[Match]) -> Lineups:
        """Plain SQL first: a War match needs only to know that every seat is a bot."""
        seats: dict[int, list[tuple[int | None, str]]] = {match.pk: [] for match in matches}
        among, values = one_of("p.match_id", list(seats))
        with sql_cursor() as cursor:
            cursor.execute(
                f"SELECT p.match_id, e.bot_version_id, e.name FROM {MatchParticipant._meta.db_table} p "
                f"JOIN {Entrant._meta.db_table} e ON e.id = p.entrant_id WHERE {among} ORDER BY p.match_id, p.seat",
                values,
            )
            for match_id, version_id, name in cursor.fetchall():
                seats[match_id].append((version_id, name))
        wanted = {
            version_id
            for match in matches
            if get_game(match.competition.game).DECISIONS
            for version_id, _ in seats[match.pk]
            if version_id is not None
        }
        versions = BotVersion.objects.select_related("bot").in_bulk(wanted) if wanted else {}
        return cls(seats, versions)

    def versions_of(self, match_id: int) -> tuple[int, list[BotVersion]]:
        """How many participants the match has, and their bot versions in seat order (none for War)."""
        seats = self.seats[match_id]
        for version_id, name in seats:
            if version_id is None:
                raise NotPlayable(f"{name} is a person: this match is played as a refereed game")
        if not self.versions:
            return len(seats), []
        return len(seats), [self.versions[version_id] for version_id, _ in seats if version_id is not None]


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
