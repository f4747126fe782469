"""``notify``, which every part of the site calls when something happens that a person should hear of, and the
person's own changes: reading, and choosing channels.

``notify`` writes in the caller's transaction, so a notification exists exactly when its event does: an event
rolled back tells no one. Mail goes out later, gathered (league/notifications/mail.py), never inside the event.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import connection, transaction
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


#: Each player's setting for one kind, if they made one, and whether they have an address to mail. Plain SQL: the
#: ORM's two queries cost about twelve times its CPU (docs/performance.md), and every turn passed at a live table asks.
_REACH = (
    f"SELECT p.id, COALESCE(u.email, '') <> '', s.site, s.mail FROM {Player._meta.db_table} p "
    f"JOIN {Player._meta.get_field('user').related_model._meta.db_table} u ON u.id = p.user_id "
    f"LEFT JOIN {NotificationSetting._meta.db_table} s ON s.player_id = p.id AND s.kind = %s "
    "WHERE p.id IN ({marks})"
)


def _reach(player_ids: Collection[int], kind: str) -> dict[int, tuple[bool, bool]]:
    """(site, mail) for each player for one kind: their setting, or the kind's default; mail only to an address."""
    default = DEFAULTS[kind]
    with connection.cursor() as cursor:
        cursor.execute(_REACH.format(marks=", ".join(["%s"] * len(player_ids))), [kind, *player_ids])
        rows = cursor.fetchall()
    return {
        player_id: (
            default.site if site is None else bool(site),
            bool(addressed) and (default.mail if mail is None else bool(mail)),
        )
        for player_id, addressed, site, mail in rows
    }


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
    """Tell each person their own words of one kind of event (a round: each their own opponents): two
    statements however many people, in the caller's transaction."""
    if not messages or _HELD.get():
        return []
    reach = _reach({message.player_id for message in messages}, kind)
    now = timezone.now()
    rows = []
    for message in messages:
        site, mailed = reach.get(message.player_id, (False, False))
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


def notifications_withdrawn(notification_ids: Collection[int]) -> int:
    """Delete those of these notifications not mailed yet, news no more; how many went. One being mailed at this
    moment (its row locked by the mailer) is skipped, not waited for: its event never waits on a mail server."""
    if not notification_ids:
        return 0
    table = Notification._meta.db_table
    # SQLite has no row locks to skip.
    lock = " FOR UPDATE SKIP LOCKED" if connection.features.has_select_for_update_skip_locked else ""
    marks = ", ".join(["%s"] * len(notification_ids))
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {table} WHERE mailed_at IS NULL "
            f"AND id IN (SELECT id FROM {table} WHERE id IN ({marks}){lock})",
            list(notification_ids),
        )
        return int(cursor.rowcount)


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
