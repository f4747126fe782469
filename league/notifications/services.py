"""``notify``, which every part of the site calls when something happens that a person should hear of, and the
person's own changes: reading, and choosing channels.

``notify`` writes in the caller's transaction, so a notification exists exactly when its event does: an event
rolled back tells no one. Mail goes out later, gathered (league/notifications/mail.py), never inside the event.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from league.models import Club, Player
from league.notifications.kinds import DEFAULTS, Kind
from league.notifications.models import Notification, NotificationSetting

#: Longer titles are cut here, on a word, with an ellipsis (the column's width).
TITLE_CHARS = 200
#: Set while what happens is history being rebuilt (an imported competition's matches recorded again): nobody
#: is told of it as news.
_HELD: ContextVar[bool] = ContextVar("notifications_held", default=False)


@contextmanager
def notifications_held() -> Iterator[None]:
    """Within this block ``notify`` tells no one."""
    token = _HELD.set(True)
    try:
        yield
    finally:
        _HELD.reset(token)


def notifications_are_held() -> bool:
    """Whether the caller is inside ``notifications_held`` (a club's webhooks are held there too)."""
    return _HELD.get()


def _title(words: str) -> str:
    words = " ".join(words.split())
    if len(words) <= TITLE_CHARS:
        return words
    return words[: TITLE_CHARS - 1].rsplit(" ", 1)[0] + "…"


def channels(player_ids: Iterable[int], kind: str) -> dict[int, tuple[bool, bool]]:
    """(site, mail) for each player for one kind: their setting, or the kind's default."""
    ids = set(player_ids)
    default = DEFAULTS[kind]
    chosen = {
        row.player_id: (row.site, row.mail)
        for row in NotificationSetting.objects.filter(player_id__in=ids, kind=kind).only("player_id", "site", "mail")
    }
    return {player_id: chosen.get(player_id, (default.site, default.mail)) for player_id in ids}


@dataclass(frozen=True)
class Message:
    """What one person is told of one event."""

    player_id: int
    title: str
    body: str = ""
    link: str = ""
    club_id: int | None = None


def notify(
    *,
    players: Iterable[Player | int],
    kind: Kind,
    title: str,
    body: str = "",
    link: str = "",
    club: Club | int | None = None,
) -> list[Notification]:
    """Tell each of ``players`` (once each, whoever is named twice) of one event, in the caller's transaction,
    by the channels each chose for ``kind``. What no channel carries is not written at all."""
    ids = {player if isinstance(player, int) else player.pk for player in players}
    club_id = club if isinstance(club, int) or club is None else club.pk
    return notify_each(
        kind=kind,
        messages=[Message(player_id, title, body, link, club_id) for player_id in sorted(ids)],
    )


def notify_each(*, kind: Kind, messages: Sequence[Message]) -> list[Notification]:
    """Tell each person their own words of one kind of event (a round: each their own opponents): three
    queries however many people, in the caller's transaction."""
    if not messages or _HELD.get():
        return []
    ids = {message.player_id for message in messages}
    wanted = channels(ids, kind)
    addresses = set(Player.objects.filter(pk__in=ids).exclude(user__email="").values_list("pk", flat=True))
    now = timezone.now()
    rows = []
    for message in messages:
        site, mail = wanted[message.player_id]
        mailed = mail and message.player_id in addresses
        if not (site or mailed):
            continue
        rows.append(
            Notification(
                player_id=message.player_id,
                kind=kind,
                title=_title(message.title),
                body=message.body.strip(),
                link=message.link,
                club_id=message.club_id,
                created_at=now,
                on_site=site,
                mail_due=mailed,
            )
        )
    return Notification.objects.bulk_create(rows)


def notification_read(*, player: Player, notification_id: int) -> Notification | None:
    """Mark one of the player's own notifications read; None if it is not theirs (or not there)."""
    notification = Notification.objects.filter(pk=notification_id, player=player, on_site=True).first()
    if notification is not None and notification.read_at is None:
        notification.read_at = timezone.now()
        notification.save(update_fields=["read_at"])
    return notification


def notifications_read_all(*, player: Player) -> int:
    """Mark every unread notification of the player read; how many were."""
    return Notification.objects.filter(player=player, on_site=True, read_at__isnull=True).update(read_at=timezone.now())


def notification_settings_set(*, player: Player, chosen: Mapping[str, tuple[bool, bool]]) -> None:
    """Save the player's (site, mail) for each kind in ``chosen``; kinds not named keep theirs."""
    unknown = sorted(set(chosen) - set(Kind.values))
    if unknown:
        raise ValidationError({"kind": f"no such kind of notification: {', '.join(unknown)}"})
    with transaction.atomic():
        for kind, (site, mail) in chosen.items():
            NotificationSetting.objects.update_or_create(
                player=player, kind=kind, defaults={"site": site, "mail": mail}
            )
