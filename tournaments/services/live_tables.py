"""What every transition of a live match shares: its participants, its lock, its tables and their clocks.

Split from services/live.py so that starting a match (which scheduling does, and
which recording a match leads back to through the next round's release) does not
import the recording service.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any, cast

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Field
from django.http import Http404

from config.background import enqueue_on_commit
from engine.games import get_game, seats_for
from engine.match import GamePlayed, deal_number, decided_early, game_seed, seating_for
from engine.record import Record
from engine.referee import LiveGame
from tournaments.errors import Conflict
from tournaments.formats.registry import format_of
from tournaments.live_events import publish_change
from tournaments.models import Competition, Entrant, LiveTable, Match, MatchParticipant
from tournaments.services.live_turns import turns_passed, turns_settle, turns_tell_waiting
from tournaments.services.statements import instance_from_row, one_of, select_columns, sql_cursor

#: The task that moves a live match on (tournaments/tasks.py), sent by name: the tasks import this module.
ADVANCE_LIVE_MATCH = "tournaments.tasks.advance_live_match"


class LiveConflict(Conflict):
    """A move that cannot be taken now (stale version, out of turn, match not live): a 409, nothing changed."""


class NoSuchMatch(Http404):
    """There is no match by that id: a 404."""


@dataclass(frozen=True)
class Participant:
    index: int
    entrant_id: int
    name: str
    player_id: int | None
    bot_version_id: int | None

    @property
    def is_person(self) -> bool:
        return self.player_id is not None


@dataclass
class LiveContext:
    """A live match (under its lock, for a change), with what every transition needs to know about it."""

    match: Match
    competition: Competition
    participants: tuple[Participant, ...]
    seats: int
    #: The current table as read with the match (lock_live_match), if it was.
    table: LiveTable | None = None

    def participant_at(self, table: LiveTable, seat: int) -> Participant | None:
        who = table.seating[seat]
        return None if who is None else self.participants[who]

    def people_seats(self, table: LiveTable) -> set[int]:
        return {seat for seat in range(self.seats) if (p := self.participant_at(table, seat)) and p.is_person}

    def bot_seats(self, table: LiveTable) -> set[int]:
        return {seat for seat in range(self.seats) if (p := self.participant_at(table, seat)) and not p.is_person}


@lru_cache(maxsize=4096)
def match_participants(match_id: int) -> tuple[Participant, ...]:
    """In the order of their match seats: a participant's index is what seatings name (engine/match.py).

    Kept per process: a match's participants are fixed when its round is scheduled, and every move
    and every page watching the table asks for them.
    """
    rows = (
        MatchParticipant.objects.filter(match_id=match_id)
        .order_by("seat")
        .values_list("entrant_id", "entrant__name", "entrant__player_id", "entrant__bot_version_id")
    )
    return tuple(Participant(index, *row) for index, row in enumerate(rows))


def matches_with_people(match_ids: Sequence[int]) -> set[int]:
    """Those of these matches that seat a person."""
    among, values = one_of("p.match_id", match_ids)
    with sql_cursor() as cursor:
        cursor.execute(
            f"SELECT DISTINCT p.match_id FROM {MatchParticipant._meta.db_table} p "
            f"JOIN {Entrant._meta.db_table} e ON e.id = p.entrant_id WHERE {among} AND e.player_id IS NOT NULL",
            values,
        )
        return {row[0] for row in cursor.fetchall()}


def live_context(match: Match, table: LiveTable | None = None) -> LiveContext:
    competition = match.competition
    participants = match_participants(match.pk)
    seats = seats_for(get_game(competition.game), len(participants), competition.options)
    return LiveContext(match=match, competition=competition, participants=participants, seats=seats, table=table)


def lock_live_match(match_id: int) -> LiveContext:
    """The match under its row lock, with its current table: every change of a live match is made holding it.

    Two statements, not one: a statement that waits for a row lock sees the newest version of the
    locked row once it gets it, but the rows it joined come from the moment it started, so a joined
    table would be the one from before the move the lock waited for.
    """
    if connection.vendor != "postgresql":
        # Elsewhere the driver's rows need the ORM's conversions (SQLite gives dates as text).
        try:
            match = Match.objects.select_for_update(of=("self",)).select_related("competition").get(pk=match_id)
        except Match.DoesNotExist:
            raise NoSuchMatch(f"match {match_id} does not exist") from None
        return live_context(match, current_table(match_id))
    with sql_cursor() as cursor:
        cursor.execute(_LOCK_MATCH, [match_id])
        row = cursor.fetchone()
        if row is None:
            raise NoSuchMatch(f"match {match_id} does not exist")
        match = _match_from(row)
        cursor.execute(_CURRENT_TABLE, [match_id])
        table_row = cursor.fetchone()
    table = None if table_row is None else _table_from(table_row, match)
    return live_context(match, table)


def current_table(match_id: int) -> LiveTable | None:
    return LiveTable.objects.filter(match_id=match_id).order_by("-number").first()


# Plain SQL, prepared once per connection (services/statements.py): compiling the ORM's versions of
# these cost more than running them, on the path of every move and of every page watching a table.
_MATCH = f"SELECT {select_columns('m', Match)}, {select_columns('c', Competition)} "
_FROM_MATCH = f"FROM {Match._meta.db_table} m JOIN {Competition._meta.db_table} c ON c.id = m.competition_id "
_LOCK_MATCH = f"{_MATCH}{_FROM_MATCH}WHERE m.id = %s FOR NO KEY UPDATE OF m"
_CURRENT_TABLE = (
    f"SELECT {select_columns('t', LiveTable)} FROM {LiveTable._meta.db_table} t "
    "WHERE t.match_id = %s ORDER BY t.number DESC LIMIT 1"
)
#: The match, its competition and its current (highest-numbered) table, read together (no lock).
_MATCH_AND_TABLE = (
    f"{_MATCH}, {select_columns('t', LiveTable)} {_FROM_MATCH}"
    f"LEFT JOIN {LiveTable._meta.db_table} t ON t.match_id = m.id "
    f"AND t.number = (SELECT MAX(number) FROM {LiveTable._meta.db_table} WHERE match_id = m.id) "
    "WHERE m.id = %s"
)
_MATCH_COLUMNS = len(Match._meta.concrete_fields) + len(Competition._meta.concrete_fields)


def _match_from(row: Sequence[Any]) -> Match:
    split = len(Match._meta.concrete_fields)
    match = instance_from_row(Match, row[:split])
    match.competition = instance_from_row(Competition, row[split:_MATCH_COLUMNS])
    return match


def _table_from(row: Sequence[Any], match: Match) -> LiveTable:
    table = instance_from_row(LiveTable, row)
    table.match = match
    return table


def match_and_table(match_id: int) -> tuple[Match, LiveTable | None]:
    """The match with its competition, and its current table, as one statement saw them (no lock);
    Match.DoesNotExist if there is no such match."""
    if connection.vendor != "postgresql":
        match = Match.objects.select_related("competition").get(pk=match_id)
        return match, current_table(match_id)
    with sql_cursor() as cursor:
        cursor.execute(_MATCH_AND_TABLE, [match_id])
        row = cursor.fetchone()
    if row is None:
        raise Match.DoesNotExist(f"match {match_id} does not exist")
    match = _match_from(row)
    return match, None if row[_MATCH_COLUMNS] is None else _table_from(row[_MATCH_COLUMNS:], match)


def open_game(context: LiveContext, number: int, now: datetime) -> tuple[LiveTable, LiveGame]:
    """Deal game ``number`` of the match from its committed seed; seats rotate as in every match."""
    competition = context.competition
    game = LiveGame.start(
        competition.game,
        players=context.seats,
        options=competition.options,
        seed=game_seed(
            context.match.seed,
            deal_number(number, len(context.participants), duplicate=competition.duplicate_deals),
        ),
    )
    table = LiveTable(
        match=context.match,
        number=number,
        seating=list(seating_for(number, len(context.participants), context.seats)),
        game=game.dumps(),
        turn_started_at=now,
        decision_version=context.match.version,
        clock_used_ms=[0] * context.seats,
    )
    return table, game


#: The table in play and its game; None once every game of the match is over.
Current = tuple[LiveTable, LiveGame] | None


def settle(context: LiveContext, table: LiveTable, game: LiveGame, now: datetime) -> Current:
    """Store the table after a change: close a finished game and open the next; the table now in play.

    Every change of a live match that sets who is to act ends here (a move, a bot's, a forfeit, the first
    deal), so here too the people whose turn it now is are told of it (services/live_turns.py)."""
    told = table.turn_notices
    while game.is_over():
        table.game = game.dumps()
        table.record = game.record().to_dict()
        table.finished_at = now
        table.deadline = None
        table.turn_notices, table.tell_at = {}, None
        _save_table(table)
        if match_games_over(context, table):
            turns_passed(told)
            return None
        table, game = open_game(context, table.number + 1, now)
    table.game = game.dumps()
    # Bots keep their own clocks on the workers; the beat looks only for people out of time.
    deadlines = _people_deadlines(context, table, game)
    table.deadline = min(deadlines.values()) if deadlines else None
    turns_settle(context, table, deadlines, told)
    _save_table(table)
    return table, game


def tell_waiting_turns(context: LiveContext, table: LiveTable, game: LiveGame) -> int:
    """At a correspondence pace, once the quiet while is over: tell the people still to act (under the match's
    lock, by beat's sweep); how many were told."""
    told = turns_tell_waiting(context, table, _people_deadlines(context, table, game))
    LiveTable.objects.filter(pk=table.pk).update(turn_notices=table.turn_notices, tell_at=table.tell_at)
    return told


def _people_deadlines(context: LiveContext, table: LiveTable, game: LiveGame) -> dict[int, datetime]:
    """Each seat a person is to act at, to when their time for it runs out."""
    people = context.people_seats(table)
    return {seat: seat_deadline(context.competition, table, seat) for seat in game.awaiting() if seat in people}


def match_games_over(context: LiveContext, last: LiveTable) -> bool:
    """Whether the match plays no game after ``last`` (just finished): its last game, or a best-of-N decided."""
    competition = context.competition
    if last.number + 1 >= competition.games_per_match:
        return True
    if not format_of(competition).best_of(competition):
        return False
    finished = LiveTable.objects.filter(match=context.match, finished_at__isnull=False).order_by("number")
    played = [GamePlayed(t.number, tuple(t.seating), Record.from_dict(t.record)) for t in finished]
    return decided_early(
        played,
        participants=len(context.participants),
        games=competition.games_per_match,
        duplicate=competition.duplicate_deals,
    )


def seat_deadline(competition: Competition, table: LiveTable, seat: int) -> datetime:
    """A seat's per-move limit, or what is left of its time for the game if that is less."""
    left_ms = min(competition.move_seconds * 1000, competition.game_seconds * 1000 - table.clock_used_ms[seat])
    return table.turn_started_at + timedelta(milliseconds=max(0, left_ms))


def bump_version(context: LiveContext) -> None:
    context.match.version += 1
    with sql_cursor() as cursor:
        cursor.execute(
            f"UPDATE {Match._meta.db_table} SET version = %s WHERE id = %s", [context.match.version, context.match.pk]
        )


#: What a change of a table in play writes (its match, number and seating never change).
_TABLE_CHANGES = (
    "game",
    "record",
    "turn_started_at",
    "decision_version",
    "clock_used_ms",
    "deadline",
    "finished_at",
    "turn_notices",
    "tell_at",
)


def _save_table(table: LiveTable) -> None:
    """A new table is inserted by the ORM; a change of one is a prepared UPDATE of what can change."""
    # django-stubs types pk as int, but a table not yet saved has none.
    if cast("int | None", table.pk) is None:
        table.save()
        return
    # Each name is one of LiveTable's own columns, never a reverse relation (which get_field may also return).
    fields = cast("list[Field[Any, Any]]", [LiveTable._meta.get_field(name) for name in _TABLE_CHANGES])
    assignments = ", ".join(f"{field.column} = %s" for field in fields)
    values = [field.get_db_prep_save(getattr(table, field.attname), connection) for field in fields]
    with sql_cursor() as cursor:
        cursor.execute(f"UPDATE {LiveTable._meta.db_table} SET {assignments} WHERE id = %s", [*values, table.pk])


def announce_change(context: LiveContext, current: Current, *, record_on_worker: bool = False) -> None:
    """Once this commits: tell every page watching, and the workers if a bot must act now (or, with
    ``record_on_worker``, if the match is over and theirs to record)."""
    match_id, version = context.match.pk, context.match.version
    transaction.on_commit(lambda: publish_change(match_id, version), robust=True)
    if current is None:
        if record_on_worker:
            advance_release(match_id=match_id)
        return
    table, game = current
    if context.bot_seats(table).intersection(game.awaiting()):
        advance_release(match_id=match_id)


def advance_release(*, match_id: int) -> None:
    """Ask the workers to move the match on (bots' decisions, a finished match's recording) after commit."""
    enqueue_on_commit(ADVANCE_LIVE_MATCH, match_id, queue=settings.CELERY_GAMES_QUEUE)
