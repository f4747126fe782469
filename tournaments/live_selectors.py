"""Reading live tables: each viewer's view of a match, and a person's list of matches to play.

A seat's view is the engine's ``observation(state, seat)`` and nothing else of the
state; a spectator's is ``observation(state, None)`` (DESIGN.md, "People at the
table"). Seeds, the salt and other seats' pending choices never leave the server.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import Q
from django.utils import timezone

from engine.referee import LiveGame
from league.models import Player
from tournaments.models import Competition, LiveTable, Match, MatchParticipant
from tournaments.selectors import competition_organiser
from tournaments.services.live_tables import Participant, match_participants, seat_deadline
from tournaments.services.statements import instance_from_row, select_columns, sql_cursor


class TableHidden(Exception):
    """The competition hides its live tables from spectators: a 403."""


@dataclass(frozen=True)
class Viewer:
    """Who is looking: a participant index (a person seated at the match), or a spectator."""

    participant: int | None

    @property
    def seated(self) -> bool:
        return self.participant is not None


@dataclass(frozen=True)
class Snapshot:
    """A live match as one statement read it: its row, its current table and the engine's game in it.

    Read together, so a view's ``version`` is always the version of the state it shows. It holds
    every seat's cards: views are built from it for one viewer at a time.
    """

    match: Match
    table: LiveTable | None
    game: LiveGame | None
    participants: tuple[Participant, ...]
    finished: list[dict[str, Any]]


@dataclass(frozen=True)
class _Played:
    """What a version of a match fixes for good: the game in its table, who sits there, the games over."""

    game: LiveGame | None
    participants: tuple[Participant, ...]
    finished: list[dict[str, Any]]


#: By (match, version), shared by every viewer in this process: a change is read and unpickled once,
#: not once per page watching it. A version names one state of play for good, so an entry is never
#: stale; the match's own row (its status, its competition's settings) is read fresh every time.
_PLAYED: OrderedDict[tuple[int, int], _Played] = OrderedDict()
_PLAYED_KEPT = 512
_lock = threading.Lock()


def table_snapshot(match_id: int) -> Snapshot:
    """The match now, in one query (more only for a version this process has not seen); Match.DoesNotExist."""
    match, table = _read_match_and_table(match_id)
    key = (match_id, match.version)
    with _lock:
        played = _PLAYED.get(key)
        if played is not None:
            _PLAYED.move_to_end(key)
    if played is None:
        played = _read_played(match_id, table)
        with _lock:
            _PLAYED[key] = played
            while len(_PLAYED) > _PLAYED_KEPT:
                _PLAYED.popitem(last=False)
    return Snapshot(match, table, played.game, played.participants, played.finished)


#: The match, its competition and its current (highest-numbered) table, in one statement. Plain SQL,
#: prepared once per connection (services/statements.py): the ORM's compiling of this join cost more
#: than running it, on the path every page watching a table takes at every move.
_MATCH_AND_TABLE = (
    f"SELECT {select_columns('m', Match)}, {select_columns('c', Competition)}, {select_columns('t', LiveTable)} "
    f"FROM {Match._meta.db_table} m JOIN {Competition._meta.db_table} c ON c.id = m.competition_id "
    f"LEFT JOIN {LiveTable._meta.db_table} t ON t.match_id = m.id "
    f"AND t.number = (SELECT MAX(number) FROM {LiveTable._meta.db_table} WHERE match_id = m.id) "
    "WHERE m.id = %s"
)


def _read_match_and_table(match_id: int) -> tuple[Match, LiveTable | None]:
    if connection.vendor != "postgresql":
        # Elsewhere the driver's rows need the ORM's conversions (SQLite gives dates as text).
        table = LiveTable.objects.select_related("match__competition").filter(match_id=match_id).order_by("-number")
        found = table.first()
        return (found.match, found) if found else (Match.objects.select_related("competition").get(pk=match_id), None)
    with sql_cursor() as cursor:
        cursor.execute(_MATCH_AND_TABLE, [match_id])
        row = cursor.fetchone()
    if row is None:
        raise Match.DoesNotExist(f"match {match_id} does not exist")
    after_match = len(Match._meta.concrete_fields)
    after_competition = after_match + len(Competition._meta.concrete_fields)
    match = instance_from_row(Match, row[:after_match])
    match.competition = instance_from_row(Competition, row[after_match:after_competition])
    if row[after_competition] is None:
        return match, None
    table = instance_from_row(LiveTable, row[after_competition:])
    table.match = match
    return match, table


def _read_played(match_id: int, table: LiveTable | None) -> _Played:
    participants = match_participants(match_id)
    # Finished games exist once the first is over: a first game still running needs no read for them.
    any_over = table is not None and (table.number > 0 or table.finished_at is not None)
    return _Played(
        game=None if table is None else LiveGame.loads(table.game),
        participants=participants,
        finished=_finished(match_id, participants) if any_over else [],
    )


def forget_snapshots() -> None:
    """Tests: ids come round again in a database that rolls back."""
    with _lock:
        _PLAYED.clear()


def table_viewer(*, snapshot: Snapshot, player: Player | None) -> Viewer:
    """The viewer, or TableHidden if a spectator may not watch this match while it is played."""
    mine = next((p.index for p in snapshot.participants if player is not None and p.player_id == player.pk), None)
    if mine is None and _hidden(snapshot.match, player):
        raise TableHidden("this competition's live tables are shown only to the people playing them")
    return Viewer(mine)


def _hidden(match: Match, player: Player | None) -> bool:
    competition: Competition = match.competition
    if competition.live_tables_public or match.status not in (Match.Status.PENDING, Match.Status.LIVE):
        return False
    return not competition_organiser(competition=competition, player=player)


def table_version(match_id: int) -> int:
    return int(Match.objects.values_list("version", flat=True).get(pk=match_id))


def live_table(*, snapshot: Snapshot, viewer: Viewer, now: datetime | None = None) -> dict[str, Any]:
    """The table as ``viewer`` may see it (the contract in docs/live-play.md)."""
    now = now or timezone.now()
    match, table, game, participants = snapshot.match, snapshot.table, snapshot.game, snapshot.participants
    competition: Competition = match.competition
    view: dict[str, Any] = {
        "match": match.pk,
        "competition": competition.pk,
        "game": competition.game,
        "status": match.status,
        "version": match.version,
        "games": competition.games_per_match,
        "game_number": None if table is None else table.number,
        "commitments": list(match.commitments),
        "server_time": now.isoformat(),
        "finished_games": snapshot.finished,
    }
    if table is None or game is None:
        view.update(
            seat=None,
            seats=[_seat(p, p.index, None, competition, now) for p in participants],
            to_act=[],
            awaiting=[],
            legal_actions=[],
            observation=None,
            scores=None,
        )
        return view
    seat = None if viewer.participant is None else table.seating.index(viewer.participant)
    running = table.finished_at is None
    view.update(
        seat=seat,
        seats=[
            _seat(
                None if who is None else participants[who],
                index,
                (game, table) if running else None,
                competition,
                now,
            )
            for index, who in enumerate(table.seating)
        ],
        to_act=list(game.to_act()),
        awaiting=list(game.awaiting()),
        legal_actions=game.legal_actions(seat) if seat is not None and running else [],
        observation=game.observation(seat),
        scores=list(game.result().scores),
        deadline=None if table.deadline is None else table.deadline.isoformat(),
    )
    return view


def _seat(
    participant: Participant | None,
    seat: int,
    running: tuple[LiveGame, LiveTable] | None,
    competition: Competition,
    now: datetime,
) -> dict[str, Any]:
    kind = "engine" if participant is None else "person" if participant.is_person else "bot"
    acted = False
    clock = None
    if running is not None and participant is not None:
        live, table = running
        acted = seat in live.pending
        if participant.is_person:
            game_left = competition.game_seconds * 1000 - table.clock_used_ms[seat]
            move_left = competition.move_seconds * 1000
            if seat in live.awaiting():
                thinking = int((now - table.turn_started_at).total_seconds() * 1000)
                game_left -= thinking
                move_left = int((seat_deadline(competition, table, seat) - now).total_seconds() * 1000)
            clock = {"move_ms": max(0, move_left), "game_ms": max(0, game_left)}
    return {
        "seat": seat,
        "name": "dummy" if participant is None else participant.name,
        "kind": kind,
        "acted": acted,
        "clock": clock,
    }


def _finished(match_id: int, participants: tuple[Participant, ...]) -> list[dict[str, Any]]:
    """The games over so far, with who sat where in each (seats rotate every game)."""
    rows = LiveTable.objects.filter(match_id=match_id, finished_at__isnull=False).order_by("number")
    return [
        {
            "number": number,
            "names": ["dummy" if who is None else participants[who].name for who in seating],
            "result": (record or {}).get("result"),
        }
        for number, seating, record in rows.values_list("number", "seating", "record")
    ]


def my_matches(*, player: Player) -> list[dict[str, Any]]:
    """The person's live and pending matches, newest competitions first: whose turn it is, and where to play.

    Four queries however many matches: the matches, their participants with entrants, and the
    current table of each live one.
    """
    matches = list(
        Match.objects.filter(
            Q(status=Match.Status.LIVE) | Q(status=Match.Status.PENDING),
            participants__entrant__player=player,
        )
        .select_related("competition", "round")
        .prefetch_related("participants__entrant")
        .order_by("-competition_id", "round__number", "id")
    )
    tables: dict[int, LiveTable] = {}
    live = [m.pk for m in matches if m.status == Match.Status.LIVE]
    # Each match's highest-numbered table is its current one.
    for table in LiveTable.objects.filter(match_id__in=live).order_by("match_id", "number"):
        tables[table.match_id] = table
    return [_summary(match, player, tables.get(match.pk)) for match in matches]


def _summary(match: Match, player: Player, table: LiveTable | None) -> dict[str, Any]:
    participants: list[MatchParticipant] = list(match.participants.all())
    mine = next(i for i, p in enumerate(participants) if p.entrant.player_id == player.pk)
    to_act: list[int] = []
    awaiting: list[int] = []
    seating: list[int | None] = list(range(len(participants))) if table is None else table.seating
    if table is not None and table.finished_at is None:
        game = LiveGame.loads(table.game)
        to_act, awaiting = list(game.to_act()), list(game.awaiting())
    my_seat = seating.index(mine)
    return {
        "id": match.pk,
        "competition": {"id": match.competition.pk, "name": match.competition.name, "game": match.competition.game},
        "status": match.status,
        "round": match.round.number,
        "game_number": None if table is None else table.number,
        # Seats rotate every game: every seat here is one of the current game (the first, before it starts).
        "participants": [
            {
                "seat": seating.index(index),
                "name": p.entrant.name,
                "kind": "person" if p.entrant.player_id is not None else "bot",
                "you": index == mine,
            }
            for index, p in enumerate(participants)
        ],
        "my_seat": my_seat,
        "to_act": to_act,
        "my_turn": my_seat in awaiting,
        "version": match.version,
        "table_url": f"/api/matches/{match.pk}/table/",
        "play_url": f"/play/matches/{match.pk}/",
    }
