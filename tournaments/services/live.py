"""Live refereed matches: people (and bots) play one decision at a time, the server deals and referees.

A match with a person in it takes the bot matches' path (DESIGN.md, "How one match
flows") with other agents: it is released like any match, but instead of a worker
playing it whole it goes ``pending → live`` (services/live_start.py), and its games
are played decision by decision through :class:`engine.referee.LiveGame`. Every
accepted decision is stored in the same transaction as the version check that
admitted it, under the match row's lock, so two racing moves give one step, a
retried move is applied once, and a restart of any process loses nothing. When
the last game ends, the match is recorded by
:func:`tournaments.services.results.match_record_result`, like any other.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
from collections.abc import Callable
from datetime import datetime
from typing import TypeVar

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import OperationalError, connection, transaction
from django.utils import timezone

from engine.cards import normalise_action
from engine.match import GamePlayed, match_result
from engine.record import Record
from engine.referee import IllegalMove, LiveGame, MoveRefused
from league.models import Player
from tournaments.live_selectors import snapshot_remember
from tournaments.models import LiveMove, LiveTable, Match
from tournaments.services.live_tables import (
    Current,
    LiveConflict,
    LiveContext,
    announce_change,
    bump_version,
    lock_live_match,
    match_games_over,
    seat_deadline,
    settle,
    tell_waiting_turns,
)
from tournaments.services.results import match_record_result
from tournaments.services.statements import sql_cursor

T = TypeVar("T")


class NotAtTable(PermissionDenied):
    """The caller has no seat at this match: a 403."""


class MoveOutcome(enum.Enum):
    APPLIED = "applied"
    #: The same client_move_id again: it was applied once already, nothing more is done.
    REPLAYED = "replayed"
    #: The seat's time had run out before the move arrived: it forfeited instead.
    TIMED_OUT = "timed_out"


@dataclasses.dataclass(frozen=True)
class Moved:
    """What became of a person's move."""

    outcome: MoveOutcome
    #: The version an applied move left the match at, while it is still being played; its state is then kept in
    #: this process from the move's own objects (live_selectors.known_snapshot), so its answer reads nothing.
    version: int | None = None


def _store(context: LiveContext, table: LiveTable, game: LiveGame, now: datetime) -> Current:
    """Store the table after a change and announce it; a match whose last game just ended is recorded with it."""
    current = settle(context, table, game, now)
    if current is None:
        _record(context)
    announce_change(context, current)
    return current


def _record(context: LiveContext) -> None:
    """Every game is over: the match is recorded as any other, the seeds and salt revealed in its records."""
    match = context.match
    games = [
        GamePlayed(
            number=table.number,
            seating=tuple(table.seating),
            record=dataclasses.replace(Record.from_dict(table.record), salt=match.salt),
        )
        for table in LiveTable.objects.filter(match=match).order_by("number")
    ]
    match_record_result(match=match, result=match_result(games, participants=len(context.participants)))


def live_match_record_if_over(*, match_id: int) -> bool:
    """Record a live match whose games are all over (a match of War is over when dealt); True if it was."""
    with transaction.atomic():
        context = lock_live_match(match_id)
        table = context.table
        if context.match.status != Match.Status.LIVE or table is None or table.finished_at is None:
            return False
        if not match_games_over(context, table):
            return False
        _record(context)
        return True


# Moves


def live_move(
    *, match_id: int, player: Player, action: str, version: int, client_move_id: str, now: datetime | None = None
) -> Moved:
    """A person's decision at a live table.

    Raises :class:`NotAtTable` (403), :class:`LiveConflict` (409) or a ValidationError on
    ``action`` (400, the engine's reason); in each case nothing changes.
    """
    if not client_move_id or len(client_move_id) > 64:
        raise ValidationError({"client_move_id": "give an id of 1 to 64 characters, new for each move"})
    if not isinstance(action, str) or not action.strip() or len(action) > 200:
        raise ValidationError({"action": "give one of the legal actions the table lists"})
    return retrying_deadlocks(lambda: _move(match_id, player, action, version, client_move_id, now))


def _move(match_id: int, player: Player, action: str, version: int, client_move_id: str, now: datetime | None) -> Moved:
    with transaction.atomic():
        context = lock_live_match(match_id)
        participant = next((p for p in context.participants if p.player_id == player.pk), None)
        if participant is None:
            raise NotAtTable("only the people seated at this match may move")
        earlier = _earlier_action(match_id, participant.entrant_id, client_move_id)
        if earlier is not None:
            if earlier != normalise_action(action):
                raise LiveConflict(f"client_move_id {client_move_id!r} was already used for {earlier!r}")
            return Moved(MoveOutcome.REPLAYED)
        match = context.match
        if match.status != Match.Status.LIVE:
            raise LiveConflict(f"the match is {match.status}, not live")
        table = context.table
        if table is None:
            raise LiveConflict("this match is played with real cards: submit a transcript of each game")
        if not table.decision_version <= version <= match.version:
            raise LiveConflict(
                f"stale version {version}: the table is at version {match.version} "
                f"(moves made on version {table.decision_version} or later count)"
            )
        game = LiveGame.loads(table.game)
        seat = table.seating.index(participant.index)
        now = now or timezone.now()
        if seat in game.awaiting() and now >= seat_deadline(context.competition, table, seat):
            _forfeit(context, table, game, seat, "timeout", "ran out of time", now)
            return Moved(MoveOutcome.TIMED_OUT)
        try:
            current = _take(context, table, game, seat, action, participant.entrant_id, client_move_id, now)
        except IllegalMove as exc:
            raise ValidationError({"action": str(exc)}) from None
        except MoveRefused as exc:
            raise LiveConflict(str(exc)) from None
        if current is None:
            return Moved(MoveOutcome.APPLIED)
        # Kept only once committed: a version rolled back with an outer transaction could be reused by another
        # state. Robust: the move stands if keeping it fails (its answer then reads the table).
        match, (table, game) = context.match, current
        transaction.on_commit(lambda: snapshot_remember(match, table, game), robust=True)
    return Moved(MoveOutcome.APPLIED, match.version)


def _take(
    context: LiveContext,
    table: LiveTable,
    game: LiveGame,
    seat: int,
    action: str,
    entrant_id: int,
    client_move_id: str,
    now: datetime,
) -> Current:
    """Submit one seat's decision and store it, with the table, under the version it makes; the table now in play."""
    step = len(game.steps)
    chosen = game.submit(seat, action)
    table.clock_used_ms[seat] += _elapsed_ms(table.turn_started_at, now)
    bump_version(context)
    with sql_cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {LiveMove._meta.db_table} (match_id, game_number, step, seat, entrant_id, action, "
            "client_move_id, version, created_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
            [
                context.match.pk,
                table.number,
                step,
                seat,
                entrant_id,
                chosen,
                client_move_id,
                context.match.version,
                connection.ops.adapt_datetimefield_value(now),
            ],
        )
    if len(game.steps) > step or game.is_over():
        # The step was applied: a new decision opens, and its clocks start now.
        table.turn_started_at, table.decision_version = now, context.match.version
    return _store(context, table, game, now)


def _earlier_action(match_id: int, entrant_id: int, client_move_id: str) -> str | None:
    """The action an earlier move with this client id took, if there was one (a retry)."""
    with sql_cursor() as cursor:
        cursor.execute(
            f"SELECT action FROM {LiveMove._meta.db_table} WHERE match_id = %s AND entrant_id = %s "
            "AND client_move_id = %s",
            [match_id, entrant_id, client_move_id],
        )
        row = cursor.fetchone()
    return None if row is None else str(row[0])


def _elapsed_ms(since: datetime, now: datetime) -> int:
    return max(0, int((now - since).total_seconds() * 1000))


def _forfeit(
    context: LiveContext, table: LiveTable, game: LiveGame, seat: int, cause: str, detail: str, now: datetime
) -> None:
    game.forfeit_seat(seat, cause, detail)
    table.clock_used_ms[seat] += _elapsed_ms(table.turn_started_at, now)
    bump_version(context)
    _store(context, table, game, now)


# Bots and clocks (run on the workers)


def live_bot_move(
    *, match_id: int, entrant_id: int, seat: int, decision_version: int, action: str | None, failure: tuple[str, str]
) -> bool:
    """Apply a bot's decision, made outside the lock on the table of ``decision_version``; False if that table moved on.

    ``action`` None means the bot failed: ``failure`` is its forfeit cause and detail.
    """
    return retrying_deadlocks(lambda: _bot_move(match_id, entrant_id, seat, decision_version, action, failure))


def _bot_move(
    match_id: int, entrant_id: int, seat: int, decision_version: int, action: str | None, failure: tuple[str, str]
) -> bool:
    with transaction.atomic():
        context = lock_live_match(match_id)
        table = context.table
        if context.match.status != Match.Status.LIVE or table is None or table.decision_version != decision_version:
            return False
        game = LiveGame.loads(table.game)
        if seat not in game.awaiting():
            return False
        now = timezone.now()
        if action is None:
            _forfeit(context, table, game, seat, *failure, now)
            return True
        try:
            _take(context, table, game, seat, action, entrant_id, f"bot/{table.number}/{len(game.steps)}/{seat}", now)
        except MoveRefused:
            # The runner's rule for bots: an illegal answer forfeits (DESIGN.md, "Forfeits"). The detail
            # names the answer only: the legal actions would show the bot's hand to whoever reads the record.
            _forfeit(context, table, game, seat, "illegal_action", f"{action[:40]!r} is not a legal action", now)
    return True


def live_clocks_enforce(*, now: datetime | None = None) -> int:
    """Run by Celery beat: every person out of time forfeits with cause ``timeout``; the number forfeited."""
    now = now or timezone.now()
    forfeited = 0
    due = LiveTable.objects.filter(deadline__lte=now, finished_at__isnull=True, match__status=Match.Status.LIVE)
    for match_id in due.values_list("match_id", flat=True).distinct():
        forfeited += retrying_deadlocks(functools.partial(_forfeit_late, match_id, now))
    return forfeited


def _forfeit_late(match_id: int, now: datetime) -> int:
    with transaction.atomic():
        context = lock_live_match(match_id)
        table = context.table
        if context.match.status != Match.Status.LIVE or table is None or table.finished_at is not None:
            return 0
        game = LiveGame.loads(table.game)
        people = context.people_seats(table)
        late = [
            (seat_deadline(context.competition, table, seat), seat)
            for seat in game.awaiting()
            if seat in people and seat_deadline(context.competition, table, seat) <= now
        ]
        if not late:
            return 0
        # The forfeit names one seat: the one whose time ran out first (the lower seat on a tie).
        _forfeit(context, table, game, min(late)[1], "timeout", "ran out of time", now)
        return 1


def live_turns_tell(*, now: datetime | None = None) -> int:
    """Run by Celery beat: at tables played by correspondence, the people whose turn has been quiet for
    ``NOTIFY_TURN_QUIET_SECONDS`` are told of it (services/live_turns.py); how many were told."""
    now = now or timezone.now()
    told = 0
    due = LiveTable.objects.filter(tell_at__lte=now, finished_at__isnull=True, match__status=Match.Status.LIVE)
    for match_id in due.values_list("match_id", flat=True).distinct():
        told += retrying_deadlocks(functools.partial(_tell_quiet, match_id, now))
    return told


def _tell_quiet(match_id: int, now: datetime) -> int:
    with transaction.atomic():
        context = lock_live_match(match_id)
        table = context.table
        # Read again under the lock: a move since the sweep looked has told (or passed) the turn itself.
        if context.match.status != Match.Status.LIVE or table is None or table.finished_at is not None:
            return 0
        if table.tell_at is None or table.tell_at > now:
            return 0
        return tell_waiting_turns(context, table, LiveGame.loads(table.game))


def retrying_deadlocks(work: Callable[[], T], attempts: int = 3) -> T:
    """Run a live transaction again when PostgreSQL broke a deadlock by aborting it.

    A change of a live match locks the match, and, when it ends the match, then the competition
    (recording); cancelling a competition locks the competition, then its matches. The two can meet
    the other way round: the one PostgreSQL aborts rolled back whole, so running it again is safe,
    and it then finds the competition cancelled (or the match recorded).
    """
    for attempt in range(1, attempts + 1):
        try:
            return work()
        except OperationalError as exc:
            if attempt == attempts or getattr(exc.__cause__, "sqlstate", None) != _DEADLOCK:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


#: PostgreSQL's SQLSTATE for a transaction aborted to break a deadlock.
_DEADLOCK = "40P01"
