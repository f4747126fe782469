"""What the admin calls a game, a set and a transcript, with games counted from 1 as people count them.

The models' own names (``game 0 of match 12``) keep the stored numbers, which the engine and the API use;
the admin's lists, headings and breadcrumbs use these instead.
"""

from __future__ import annotations

from typing import Any, TypeVar

from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest

from tournaments.admin.figures import shown_game_number
from tournaments.admin.scope import PageContextAdmin
from tournaments.models import Game, MatchSet, Transcript

_M = TypeVar("_M", bound=Model)


def game_title(game: Game) -> str:
    return f"game {shown_game_number(game.number)} of match {game.match_id}"


def set_title(row: MatchSet) -> str:
    return f"set {row.number} of game {shown_game_number(row.game.number)} of match {row.match_id}"


def transcript_title(transcript: Transcript) -> str:
    game = shown_game_number(transcript.game_number)
    return f"transcript {transcript.number} of match {transcript.match_id} (game {game})"


class TitledPages(PageContextAdmin[_M]):
    """Change pages headed (and their breadcrumb named) by ``object_title``, which
    admin/tournaments/change_form.html prints in place of the model's own name. Put it first among the bases."""

    def object_title(self, obj: _M) -> str:
        return str(obj)

    @admin.display(description="Name")
    def title(self, obj: _M) -> str:
        """The list's first column: each row by the same name as its page."""
        return self.object_title(obj)

    def page_context(self, request: HttpRequest, obj: _M) -> dict[str, Any]:
        title = self.object_title(obj)
        return {"subtitle": title, "object_title": title}
