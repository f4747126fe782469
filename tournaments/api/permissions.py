"""Who may change a competition, its entrants and its results: its organisers, and no one else."""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request

from league.api.identity import viewing_player
from tournaments.models import Competition, Entrant, Match
from tournaments.selectors import competition_organiser


def answerable_player_id(entrant: Entrant) -> int | None:
    """The player answerable for an entrant: the bot's owner, or the person themself."""
    return entrant.bot_version.bot.owner_id if entrant.bot_version is not None else entrant.player_id


def is_organiser(request: Request, competition: Competition) -> bool:
    return competition_organiser(competition=competition, player=viewing_player(request))


class IsOrganiserOrReadOnly(BasePermission):
    """Object permission for a competition, or for a match through its competition."""

    message = "only the competition's organisers may change it"

    def has_object_permission(self, request: Request, view: Any, obj: Competition | Match) -> bool:
        if request.method in SAFE_METHODS:
            return True
        competition = obj.competition if isinstance(obj, Match) else obj
        return is_organiser(request, competition)
