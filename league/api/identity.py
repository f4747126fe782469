"""Who is asking: the caller's Player profile, read without side effects or created for a write."""

from __future__ import annotations

from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request

from league.models import Player
from league.selectors import player_of_user
from league.services import player_for_user

_CACHE_ATTR = "_league_viewing_player"


def viewing_player(request: Request) -> Player | None:
    """The caller's profile if they have one; permission checks use this, so a refused write creates nothing."""
    if not hasattr(request, _CACHE_ATTR):
        setattr(request, _CACHE_ATTR, player_of_user(request.user))
    player: Player | None = getattr(request, _CACHE_ATTR)
    return player


def acting_player(request: Request) -> Player:
    """The caller's profile, created on first use (see the README's API section): only allowed writes call this."""
    player = viewing_player(request)
    if player is None:
        user = request.user
        if not user.is_authenticated:
            # Unreachable through the API: the permission classes let only signed-in callers write.
            raise NotAuthenticated
        player = player_for_user(user=user)
        setattr(request, _CACHE_ATTR, player)
    return player
