"""Reads behind the replay viewer (tournaments/web/replays.py): a finished game, who sat where, and seat views.

What a replay shows is the game's public record (tournaments/public_records.py): the spectator's view after
the start and after every step. Two things may add to it, and only once the match is done:

- a live match's games reveal their seed at the end (docs/fair-play.md), and the seed fixes every card, so
  anyone may then see every seat's view: each seat's ``observation`` at every step, replayed from the record;
- whoever sat at a game (a person in their own seat, the owner of a bot that played) may read its private
  record once the match is done (``game_insider``), so they may see their own seats' views.

No record stores seat views: they are replayed from the stored record with the engine's ``observation``,
which is what each seat was shown at the table, and cached like the public record.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.db.models import Q

from engine.games import get_game
from engine.record import Record
from engine.verify import replay, view_change
from league.models import Player
from tournaments.live_selectors import ENGINE_SEAT
from tournaments.models import Entrant, Game, Match
from tournaments.public_records import RECORD_SECONDS, VIEW_FORMAT

#: Seat views larger than this (compact JSON, all seats together) are not sent: a page must stay loadable on a
#: phone. The public record is bounded at 2 MB (docs/records.md, "Size bounds"); a seat's views are about as
#: large, so only the longest games at the largest tables pass it.
SEAT_VIEWS_LIMIT = 4_000_000


@dataclass(frozen=True)
class ReplaySeat:
    seat: int
    name: str
    #: The person's user name, for a link to their page ("" for a bot or the engine).
    username: str
    #: The viewer sat here: their own seat, or their bot's.
    mine: bool


def replay_game(game_id: int) -> Game | None:
    """The game with its match and competition; the record stays in the database until it is needed."""
    return Game.objects.select_related("match__competition").defer("record", "deal").filter(pk=game_id).first()


def match_games(match: Match) -> list[tuple[int, int]]:
    """(game id, number) of every recorded game of the match, in order."""
    return list(Game.objects.filter(match=match).order_by("number").values_list("pk", "number"))


def replay_seats(game: Game, viewer: Player | None) -> list[ReplaySeat]:
    """Who sat in each seat of this game (seats rotate every game), marking the viewer's own. One query."""
    seating: list[int | None] = list(game.seating)
    entrants = {
        entrant.pk: entrant
        for entrant in Entrant.objects.filter(pk__in=[e for e in seating if e is not None]).select_related(
            "player__user", "bot_version__bot"
        )
    }
    seats = []
    for seat, entrant_id in enumerate(seating):
        entrant = entrants.get(entrant_id) if entrant_id is not None else None
        if entrant is None:
            seats.append(ReplaySeat(seat=seat, name=ENGINE_SEAT, username="", mine=False))
            continue
        person = entrant.player
        bot = entrant.bot_version.bot if entrant.bot_version is not None else None
        mine = viewer is not None and (
            (person is not None and person.pk == viewer.pk) or (bot is not None and bot.owner_id == viewer.pk)
        )
        username = person.user.get_username() if person is not None else ""
        seats.append(ReplaySeat(seat=seat, name=entrant.name, username=username, mine=mine))
    return seats


def viewer_sat(game: Game, viewer: Player | None) -> bool:
    """Whether the viewer sat at the game in person or through a bot (``game_insider`` without organisers)."""
    if viewer is None:
        return False
    seated = [e for e in game.seating if e is not None]
    return Entrant.objects.filter(pk__in=seated).filter(Q(player=viewer) | Q(bot_version__bot__owner=viewer)).exists()


def seat_views(game: Game, seats: Sequence[int]) -> dict[int, dict[str, Any]] | None:
    """Each of ``seats``' views of a done match's game, as ``{"start": view, "steps": [changes]}`` (the shape of
    the public record's ``views``, docs/records.md), or None when they are too large to send.

    Only for a done match: a seat's view shows that seat's hidden cards.
    """
    if game.match.status != Match.Status.DONE:
        raise ValueError("seat views are only for a done match's games")
    wanted = sorted(set(seats))
    if not wanted:
        return {}
    key = f"cardclub:seat-views:{VIEW_FORMAT}:{game.pk}:{game.recorded_at.isoformat()}:{','.join(map(str, wanted))}"
    cached = cache.get(key)
    if isinstance(cached, bytes):
        decoded: dict[str, Any] | None = json.loads(zlib.decompress(cached))
        return None if decoded is None else {int(seat): views for seat, views in decoded.items()}
    built = _replayed_views(Record.from_dict(game.record), wanted)
    text = json.dumps(built, separators=(",", ":"))
    too_large = len(text) > SEAT_VIEWS_LIMIT
    cache.set(key, zlib.compress(b"null" if too_large else text.encode()), timeout=RECORD_SECONDS)
    return None if too_large else built


def _replayed_views(record: Record, seats: list[int]) -> dict[int, dict[str, Any]]:
    engine_game = get_game(record.game)
    built: dict[int, dict[str, Any]] = {seat: {"start": {}, "steps": []} for seat in seats}
    before: dict[int, dict[str, Any]] = {}

    def on_step(state: Any) -> None:
        for seat in seats:
            view = engine_game.observation(state, seat)
            if seat not in before:
                built[seat]["start"] = view
            else:
                built[seat]["steps"].append(_change(before[seat], view))
            before[seat] = view

    replay(record, on_step=on_step)
    return built


def _change(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What one step changed in a seat's view, as the public views write it (engine.verify.view_change: a list
    that only grew gives its new items under ``key+``, so a long game's views grow with the game, not its square).

    Unlike the spectator's, a seat's view is not promised the same keys throughout: a key gone becomes null.
    """
    padded = {key: None for key in before.keys() - after.keys()} | after
    return view_change(before, padded)
