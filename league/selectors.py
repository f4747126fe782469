"""Reads for people and programs; each selector owns its joins, so a list costs the same queries at any length."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Count, QuerySet

from league.models import Bot, BotVersion, Club, Membership, Player


def player_list() -> QuerySet[Player]:
    return Player.objects.order_by("display_name", "id")


def player_of_user(user: AbstractBaseUser | AnonymousUser) -> Player | None:
    """The user's profile if they have one yet; reading never creates it."""
    if not user.is_authenticated:
        return None
    return Player.objects.filter(user_id=user.pk).first()


def bot_list() -> QuerySet[Bot]:
    return Bot.objects.select_related("owner").annotate(version_count=Count("versions")).order_by("name", "id")


def bot_versions(*, bot: Bot) -> QuerySet[BotVersion]:
    # The bot is attached so a version's str() and serializer need no query per row; the code and
    # the log are left in the database until a view asks for them.
    return BotVersion.objects.filter(bot=bot).select_related("bot").defer("source", "log").order_by("number")


def club_list() -> QuerySet[Club]:
    return Club.objects.annotate(member_count=Count("memberships")).order_by("name", "id")


def club_memberships(*, club: Club) -> QuerySet[Membership]:
    return Membership.objects.filter(club=club).select_related("player").order_by("player__display_name", "id")


def club_role(*, club: Club, player: Player | None) -> str | None:
    """``member``, ``organiser``, or None for someone outside the club."""
    if player is None:
        return None
    return Membership.objects.filter(club=club, player=player).values_list("role", flat=True).first()
