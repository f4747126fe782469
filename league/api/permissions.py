"""Who may change what among people and programs: a bot's owner, a club's organisers."""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request

from league.models import Bot, Club, Membership


def is_bot_owner(request: Request, bot: Bot) -> bool:
    return request.user.is_authenticated and bot.owner.user_id == request.user.pk


def is_club_organiser(request: Request, club: Club) -> bool:
    return (
        request.user.is_authenticated
        and Membership.objects.filter(
            club=club, player__user_id=request.user.pk, role=Membership.Role.ORGANISER
        ).exists()
    )


class IsBotOwnerOrReadOnly(BasePermission):
    message = "only the bot's owner may change it"

    def has_object_permission(self, request: Request, view: Any, obj: Bot) -> bool:
        return request.method in SAFE_METHODS or is_bot_owner(request, obj)
