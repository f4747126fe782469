"""Reading live tables: each viewer's view of a match, and a person's list of matches to play.

A seat's view is the engine's ``observation(state, seat)`` and nothing else of the
state; a spectator's is ``observation(state, None)`` (DESIGN.md, "People at the
table"). Seeds, the salt and other seats' pending choices never leave the server.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Q
from django.utils import timezone

from engine.referee import LiveGame
from league.models import Player
from tournaments.models import Competition, LiveTable, Match, MatchParticipant
from tournaments.selectors import competition_organiser
from tournaments.services.live_tables import Participant, current_table, match_participants, seat_deadline


class TableHidden(Exception):
    """The competition hides its live tables from spectators: a 403."""


@dataclass(frozen=True)
class Viewer:
    """Who is looking: a participant index (a person seated at the match), or a spectator."""

    participant: int | None

    @property
    def seated(self) -> bool:
        return self.participant is not None


def table_viewer(*, match: Match, player: Player | None) -> Viewer:
    """The viewer, or TableHidden if a spectator may not watch this match while it is played."""
    participants = match_participants(match.pk)
    mine = next((p.index for p in participants if player is not None and p.player_id == player.pk), None)
    if mine is None and _hidden(match, player):
        raise TableHidden("this competition's live tables are shown only to the people playing them")
    return Viewer(mine)


def _hidden(match: Match, player: Player | None) -> bool:
    competition: Competition = match.competition
    if competition.live_tables_public or match.status not in (Match.Status.PENDING, Match.Status.LIVE):
        return False
    return not competition_organiser(competition=competition, player=player)


def table_version(match_id: int) -> int:
    return int(Match.objects.values_list("version", flat=True).get(pk=match_id))


def live_table(*, match: Match, viewer: Viewer, now: datetime | None = None) -> dict[str, Any]:
    """The table as ``viewer`` may see it (the contract in docs/live-play.md)."""
    now = now or timezone.now()
    competition: Competition = match.competition
    participants = match_participants(match.pk)
    table = current_table(match.pk)
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
        "finished_games": _finished(match.pk),
    }
    if table is None:
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
    game = LiveGame.loads(table.game)
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


def _finished(match_id: int) -> list[dict[str, Any]]:
    rows = LiveTable.objects.filter(match_id=match_id, finished_at__isnull=False).order_by("number")
    return [
        {"number": number, "result": (record or {}).get("result")}
        for number, record in rows.values_list("number", "record")
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
    my_seat = mine
    awaiting: list[int] = []
    if table is not None and table.finished_at is None:
        game = LiveGame.loads(table.game)
        to_act, awaiting = list(game.to_act()), list(game.awaiting())
        my_seat = table.seating.index(mine)
    return {
        "id": match.pk,
        "competition": {"id": match.competition.pk, "name": match.competition.name, "game": match.competition.game},
        "status": match.status,
        "round": match.round.number,
        "game_number": None if table is None else table.number,
        "participants": [
            {
                "seat": p.seat,
                "name": p.entrant.name,
                "kind": "person" if p.entrant.player_id is not None else "bot",
            }
            for p in participants
        ],
        "my_seat": my_seat,
        "to_act": to_act,
        "my_turn": my_seat in awaiting,
        "version": match.version,
        "table_url": f"/api/matches/{match.pk}/table/",
        "play_url": f"/play/matches/{match.pk}/",
    }
