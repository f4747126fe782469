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

from django.db.models import Q
from django.utils import timezone

from engine.record import result_without_bot_text
from engine.referee import LiveGame
from league.models import Player
from tournaments.formats.registry import format_of
from tournaments.models import Competition, LiveTable, Match, MatchParticipant
from tournaments.selectors import competition_organiser
from tournaments.services.live_tables import Participant, match_and_table, match_participants, seat_deadline


class TableHidden(Exception):
    """The competition hides its live tables from spectators: a 403."""


@dataclass(frozen=True)
class Viewer:
    """Who is looking: a participant index (a person seated at the match), or a spectator."""

    participant: int | None


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


#: How a seat the engine plays (no participant: Punk's dummy) is named to people at the table.
ENGINE_SEAT = "the engine"

#: Snapshots by (match, version), shared by every viewer in this process: a change is read and unpickled
#: once, not once per page watching it. A version names one state of play for good, so the played part
#: (game, participants, games over) is never stale; table_snapshot still reads the match's own row (its
#: status, its competition's settings) fresh every time, and known_snapshot serves the last one read.
_SNAPSHOTS: OrderedDict[tuple[int, int], Snapshot] = OrderedDict()
_SNAPSHOTS_KEPT = 512
_lock = threading.Lock()


def table_snapshot(match_id: int) -> Snapshot:
    """The match now, in one query (more only for a version this process has not seen); Match.DoesNotExist."""
    match, table = match_and_table(match_id)
    with _lock:
        known = _SNAPSHOTS.get((match_id, match.version))
    if known is None:
        snapshot = _read_played(match, table, None if table is None else LiveGame.loads(table.game))
    else:
        snapshot = Snapshot(match, table, known.game, known.participants, known.finished)
    return _keep(snapshot)


def snapshot_remember(match: Match, table: LiveTable, game: LiveGame) -> Snapshot:
    """Keep, as this version's snapshot, the state a change of the match has just committed in this process: the
    change's own objects, which no one changes after, so neither its answer nor this process's pages read it again."""
    return _keep(_read_played(match, table, game))


def _keep(snapshot: Snapshot) -> Snapshot:
    key = (snapshot.match.pk, snapshot.match.version)
    with _lock:
        _SNAPSHOTS[key] = snapshot
        _SNAPSHOTS.move_to_end(key)
        while len(_SNAPSHOTS) > _SNAPSHOTS_KEPT:
            _SNAPSHOTS.popitem(last=False)
    return snapshot


def known_snapshot(match_id: int, version: int) -> Snapshot | None:
    """The snapshot of this version last read in this process, if any: for an events stream, whose
    viewer was let in when it opened, a nudge about a version already read needs no database."""
    with _lock:
        return _SNAPSHOTS.get((match_id, version))


def _read_played(match: Match, table: LiveTable | None, game: LiveGame | None) -> Snapshot:
    participants = match_participants(match.pk)
    # Finished games exist once the first is over: a first game still running needs no read for them.
    over = 0 if table is None else table.number + (table.finished_at is not None)
    return Snapshot(
        match=match,
        table=table,
        game=game,
        participants=participants,
        finished=_games_over(match.pk, participants, over) if over else [],
    )


#: The games over at each match, by match: a game over never changes, so a new version of a match of many
#: games reads only the games that ended since the last one this process read (each with its whole record).
_OVER: OrderedDict[int, list[dict[str, Any]]] = OrderedDict()


def _games_over(match_id: int, participants: tuple[Participant, ...], over: int) -> list[dict[str, Any]]:
    """The first ``over`` games of the match, all over; shared between snapshots, so never changed in place."""
    with _lock:
        known = _OVER.get(match_id, [])
    if len(known) < over:
        since = known[-1]["number"] + 1 if known else 0
        known = known + _finished(match_id, participants, since)
    with _lock:
        _OVER[match_id] = known
        _OVER.move_to_end(match_id)
        while len(_OVER) > _SNAPSHOTS_KEPT:
            _OVER.popitem(last=False)
    # A game may have ended since this snapshot's statement: the snapshot shows only those over by then.
    return known[:over]


def forget_snapshots() -> None:
    """Tests: ids come round again in a database that rolls back."""
    with _lock:
        _SNAPSHOTS.clear()
        _OVER.clear()


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
        "best_of": format_of(competition).best_of(competition),
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
        "name": ENGINE_SEAT if participant is None else participant.name,
        "kind": kind,
        "acted": acted,
        "clock": clock,
    }


def _finished(match_id: int, participants: tuple[Participant, ...], since: int = 0) -> list[dict[str, Any]]:
    """The games over from game ``since`` on, with who sat where in each (seats rotate every game)."""
    rows = LiveTable.objects.filter(match_id=match_id, number__gte=since, finished_at__isnull=False).order_by("number")
    return [
        {
            "number": number,
            "names": [ENGINE_SEAT if who is None else participants[who].name for who in seating],
            #: The seats no participant sat in: the engine played them (Punk's dummy).
            "engine_seats": [seat for seat, who in enumerate(seating) if who is None],
            "result": result_without_bot_text((record or {}).get("result")),
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
        # When the person's time for this decision runs out, while it is theirs (days away by correspondence).
        "my_deadline": seat_deadline(match.competition, table, my_seat)
        if table is not None and my_seat in awaiting
        else None,
        "version": match.version,
        "table_url": f"/api/matches/{match.pk}/table/",
        "play_url": f"/play/matches/{match.pk}/",
    }
