"""The replay viewer: a finished game stepped through move by move (docs/live-play.md, "Replays").

The page sends the game's public record, the very JSON ``GET /api/games/{id}/record/`` answers (built once and
cached by tournaments/public_records.py), and a small script (play/replay.js) draws each step with the live
table's renderers. Beside it, only what the end of the match makes anyone's (every seat's view, once a live
match has revealed its seed) or what the viewer may already read (their own seats' views, from the private
record they may read once the match is done). A game whose match is not done shows no card at all.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import URLPattern, path, reverse
from django.utils.safestring import SafeString, mark_safe

from league.selectors import player_of_user
from tournaments.models import Game, Match
from tournaments.public_records import public_game_record
from tournaments.replay_selectors import match_games, replay_game, replay_seats, seat_views

#: What a JSON text may not hold inside a <script> element: written as JSON escapes, which only occur in strings.
_SCRIPT_ESCAPES = ((b"<", b"\\u003c"), (b">", b"\\u003e"), (b"&", b"\\u0026"))


def game_replay(request: HttpRequest, game_id: int) -> HttpResponse:
    game = replay_game(game_id)
    if game is None:
        raise Http404("no such game")
    match = game.match
    context: dict[str, Any] = {"game": game, "match": match, "competition": match.competition}
    if match.status in (Match.Status.CANCELLED, Match.Status.ERROR):
        raise Http404("the match did not finish")
    if match.status != Match.Status.DONE:
        # Nothing of the record, not even the public one: the page must not become a way to follow a match
        # still in play, whose seeds stay secret until the end (DESIGN.md).
        return render(request, "site/replays/unfinished.html", context)
    viewer = player_of_user(request.user)
    seats = replay_seats(game, viewer)
    public = public_game_record(game)
    # A live match's seed is revealed at its end, and fixes every card: then anyone may see every hand.
    every = seat_views(game, [seat.seat for seat in seats]) if public.proof is not None else {}
    own = [seat.seat for seat in seats if seat.mine]
    own_views: dict[int, Any] | None = {}
    if own:
        own_views = {seat: every[seat] for seat in own} if every else seat_views(game, own)
    context.update(
        seats=seats,
        games=[{"id": pk, "number": number + 1} for pk, number in match_games(match)],
        record_json=_script_json(public.text),
        replay_data={
            "game": match.competition.game,
            "seats": [{"seat": s.seat, "name": s.name, "mine": s.mine} for s in seats],
            # Seat views by seat: the viewer's own (at any step), and every seat's (offered once the end is reached).
            "own_views": own_views or {},
            "every_views": every or {},
            "too_large": every is None or own_views is None,
        },
        record_url=reverse("game-record", args=[game.pk]),
    )
    return render(request, "site/replays/replay.html", context)


def match_game_replay(request: HttpRequest, match_id: int, number: int) -> HttpResponse:
    """A match's game by its number as people count (from 1): where the lists of matches link."""
    match = get_object_or_404(Match.objects.select_related("competition"), pk=match_id)
    game = Game.objects.filter(match=match, number=number - 1).only("pk").first() if number >= 1 else None
    if game is not None:
        return redirect("site:replay", game_id=game.pk)
    if match.status not in (Match.Status.PENDING, Match.Status.RUNNING, Match.Status.LIVE):
        raise Http404("the match has no such game")
    return render(
        request, "site/replays/unfinished.html", {"game": None, "match": match, "competition": match.competition}
    )


def _script_json(text: bytes) -> SafeString:
    for raw, escaped in _SCRIPT_ESCAPES:
        text = text.replace(raw, escaped)
    # JSON with <, > and & escaped cannot end the script element it is written in.
    return mark_safe(text.decode())


urlpatterns: list[URLPattern] = [
    path("games/<int:game_id>/", game_replay, name="replay"),
    path("play/matches/<int:match_id>/games/<int:number>/", match_game_replay, name="match-replay"),
]
