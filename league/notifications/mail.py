"""Notifications by mail: each person's waiting notifications gathered into one mail, and the one-click way to
stop a kind of them.

Gathered rather than sent one by one: a person's notifications go out together once the first has waited
``NOTIFY_MAIL_GATHER_SECONDS``, and no sooner than ``NOTIFY_MAIL_GAP_SECONDS`` after their last mail, so that
an evening of forty events is one mail. A mail that fails to send leaves its notifications waiting for the
next sweep (the transaction that would mark them sent rolls back).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core import signing
from django.core.mail import EmailMessage
from django.db import transaction
from django.db.models import Min
from django.urls import reverse
from django.utils import timezone

from league.models import Player
from league.notifications.kinds import Kind
from league.notifications.models import Notification

#: The most notifications one mail lists; the rest go in the next.
MOST_IN_A_MAIL = 100
UNSUBSCRIBE_SALT = "league.notifications.unsubscribe"
#: An unsubscribe link's "kind" for every kind at once (the mail's List-Unsubscribe header).
EVERY_KIND = "*"


def absolute(path: str) -> str:
    return f"{settings.SITE_URL}{path}" if path.startswith("/") else path


# --- unsubscribing ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Unsubscribe:
    player_id: int
    #: A kind's value, or EVERY_KIND.
    kind: str


def unsubscribe_token(player_id: int, kind: str) -> str:
    """A link's token that stops one kind of mail (or every kind) for one person; it needs no sign-in."""
    return signing.dumps({"p": player_id, "k": kind}, salt=UNSUBSCRIBE_SALT, compress=True)


def unsubscribe_of(token: str) -> Unsubscribe | None:
    """What a token stops, or None for a token this site did not make."""
    try:
        data = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("p"), int):
        return None
    kind = data.get("k")
    if kind != EVERY_KIND and kind not in Kind.values:
        return None
    return Unsubscribe(player_id=data["p"], kind=kind)


def unsubscribe_url(player_id: int, kind: str) -> str:
    return absolute(reverse("site:notifications-unsubscribe", args=[unsubscribe_token(player_id, kind)]))


# --- the mail ---------------------------------------------------------------------------------------------------


def digest(player: Player, notifications: Sequence[Notification]) -> EmailMessage:
    """One mail telling ``player`` of ``notifications`` (oldest first), with a way to stop each kind."""
    first = notifications[0]
    if len(notifications) == 1:
        subject = first.title
    else:
        subject = f"{len(notifications)} things for you at the card club, first: {first.title}"
    lines = [f"Hello {player.display_name},", ""]
    for notification in notifications:
        lines.append(f"* {notification.title}")
        if notification.body:
            lines.append(f"  {notification.body}")
        if notification.link:
            lines.append(f"  {absolute(notification.link)}")
        lines.append("")
    lines.append(f"Everything that happened for you: {absolute(reverse('site:notifications'))}")
    lines.append(f"Choose what reaches you, and how: {absolute(reverse('site:notifications-settings'))}")
    lines.append("")
    kinds = sorted({n.kind for n in notifications}, key=Kind.values.index)
    for kind in kinds:
        lines.append(f"No more mail about “{Kind(kind).label.lower()}”: {unsubscribe_url(player.pk, kind)}")
    every = unsubscribe_url(player.pk, EVERY_KIND)
    message = EmailMessage(
        subject=subject[:200],
        body="\n".join(lines),
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[player.user.email],
        # RFC 8058: a mail program's own "Unsubscribe" posts to this address, with no page in between.
        headers={"List-Unsubscribe": f"<{every}>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"},
    )
    return message


def players_with_mail_due(now: datetime) -> list[int]:
    """Players whose first waiting notification has waited long enough, and who were not mailed too lately."""
    gathered = now - timedelta(seconds=settings.NOTIFY_MAIL_GATHER_SECONDS)
    lately = now - timedelta(seconds=settings.NOTIFY_MAIL_GAP_SECONDS)
    mailed_lately = Notification.objects.filter(mailed_at__gt=lately).values("player_id")
    return list(
        Notification.objects.filter(mail_due=True, mailed_at__isnull=True)
        .values("player_id")
        .annotate(first=Min("created_at"))
        .filter(first__lte=gathered)
        .exclude(player_id__in=mailed_lately)
        .order_by("player_id")
        .values_list("player_id", flat=True)
    )


def mail_player(player_id: int, now: datetime | None = None) -> int:
    """Send the player's waiting notifications in one mail; how many it told of (0: none waited, or another
    sweep has them). The rows stay locked until the mail is sent, so two sweeps never send one twice."""
    now = now or timezone.now()
    with transaction.atomic():
        waiting = list(
            Notification.objects.select_for_update(skip_locked=True)
            .filter(player_id=player_id, mail_due=True, mailed_at__isnull=True)
            .order_by("created_at", "id")[:MOST_IN_A_MAIL]
        )
        if not waiting:
            return 0
        player = Player.objects.select_related("user").get(pk=player_id)
        if player.user.email:
            digest(player, waiting).send()
        # Marked even with no address left to send to: they are not to wait for one.
        Notification.objects.filter(pk__in=[n.pk for n in waiting]).update(mailed_at=now)
    return len(waiting)


def send_due_mail(now: datetime | None = None) -> int:
    """One sweep: mail every player who is due; how many mails went out."""
    now = now or timezone.now()
    return sum(1 for player_id in players_with_mail_due(now) if mail_player(player_id, now))
