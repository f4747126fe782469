"""What a person reads of their notifications: the inbox, the unread count, their channel settings."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet

from league.models import Player
from league.notifications.kinds import DEFAULTS, Kind
from league.notifications.models import Notification, NotificationSetting


def inbox(player: Player) -> QuerySet[Notification]:
    """The player's notifications on the site, newest first (those kept for the mail alone are not shown)."""
    return Notification.objects.filter(player=player, on_site=True).order_by("-created_at", "-id")


def unread_count(user_id: int) -> int:
    return Notification.objects.filter(player__user_id=user_id, on_site=True, read_at__isnull=True).count()


@dataclass(frozen=True)
class KindSetting:
    kind: str
    label: str
    site: bool
    mail: bool


def settings_of(player: Player) -> list[KindSetting]:
    """Every kind with the player's channels for it (their choice, or its default), in the kinds' order."""
    chosen = {row.kind: row for row in NotificationSetting.objects.filter(player=player)}
    out = []
    for kind in Kind:
        row = chosen.get(kind.value)
        default = DEFAULTS[kind.value]
        out.append(
            KindSetting(
                kind=kind.value,
                label=str(kind.label),
                site=row.site if row else default.site,
                mail=row.mail if row else default.mail,
            )
        )
    return out
