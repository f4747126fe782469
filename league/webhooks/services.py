"""A club's webhooks: registering and removing them (its organisers), and ``club_event``, which the hooks of
every event call to have the club's webhooks told of it.

``club_event`` writes in the caller's transaction, as ``notify`` does: a delivery exists exactly when its event
does, and goes out only after the commit, from a worker (league/webhooks/delivery.py). Nothing here waits on a
receiver, so a receiver that is down or slow never slows a move or a recording.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from config.background import enqueue_on_commit
from engine.netguard import BadBotUrl, parse_bot_url, resolve
from league.models import Club, Membership, Player
from league.notifications.kinds import Kind
from league.notifications.services import notifications_are_held
from league.webhooks.bodies import Data, event_body
from league.webhooks.models import ClubWebhook, WebhookDelivery

#: The task that posts one delivery (league/tasks.py), sent by name: the tasks import this module.
DELIVER_WEBHOOK = "league.tasks.deliver_webhook"
MIN_SECRET_CHARS = 16
MAX_SECRET_CHARS = 200
#: Webhooks one club may have at once: each event is posted to every one of them.
MOST_WEBHOOKS = 10
#: How long registering may wait for the address's name to resolve.
RESOLVE_SECONDS = 3.0
#: The events a club's webhooks are told of, the club's news (tournaments/club_events.py, league/joining.py): a
#: person's own (their turn, a deadline, their bot) stay theirs. The one list the API, the page and
#: ``webhook_create`` take their choices from.
CLUB_EVENTS: tuple[Kind, ...] = (
    Kind.CHALLENGED,
    Kind.CHALLENGE_ANSWERED,
    Kind.ROUND_PAIRED,
    Kind.MATCH_RECORDED,
    Kind.COMPETITION_STARTED,
    Kind.COMPETITION_FINISHED,
    Kind.JOIN_REQUEST,
    Kind.DISPUTE,
)


def checked_url(url: str) -> str:
    """The address as it will be used, if webhooks may post to it (the HTTP bots' address filter,
    engine/netguard.py); a ValidationError on ``url`` saying why not."""
    try:
        parsed = parse_bot_url(url)
        if not settings.WEBHOOK_ALLOW_PRIVATE:
            resolve(parsed, allow_private=False, timeout=RESOLVE_SECONDS)
    except BadBotUrl as exc:
        # Its own words would name a "bot URL"; here it is the webhook's address.
        reason = exc.reason if exc.reason.startswith(("address ", "host ")) else f"the address {exc.reason}"
        raise ValidationError({"url": reason}) from None
    return parsed.url


def _require_organiser(club: Club, by: Player | None) -> None:
    if by is None or not Membership.objects.filter(club=club, player=by, role=Membership.Role.ORGANISER).exists():
        raise PermissionDenied(f"only the organisers of {club.name} may change its webhooks")


def webhook_create(
    *, club: Club, by: Player | None, url: str, secret: str, events: Sequence[str] | None = None
) -> ClubWebhook:
    """Register an address to hear of the club's events (``events``: kinds; none or empty: every kind)."""
    _require_organiser(club, by)
    problems: dict[str, str] = {}
    if not isinstance(secret, str) or not MIN_SECRET_CHARS <= len(secret) <= MAX_SECRET_CHARS:
        problems["secret"] = f"the secret must be {MIN_SECRET_CHARS} to {MAX_SECRET_CHARS} characters long"
    chosen = sorted(set(events or ()), key=lambda kind: CLUB_EVENTS.index(kind) if kind in CLUB_EVENTS else -1)
    unknown = [kind for kind in chosen if kind not in CLUB_EVENTS]
    if unknown:
        problems["events"] = (
            f"no such event of a club: {', '.join(map(str, unknown))} (its events: {', '.join(CLUB_EVENTS)})"
        )
    try:
        address = checked_url(url)
    except ValidationError as exc:
        problems.update({field: " ".join(said) for field, said in exc.message_dict.items()})
    if problems:
        raise ValidationError(problems)
    with transaction.atomic():
        # Under the club's lock, so that two registrations at once cannot pass the limit together.
        Club.objects.select_for_update().get(pk=club.pk)
        if ClubWebhook.objects.filter(club=club, active=True).count() >= MOST_WEBHOOKS:
            raise ValidationError({"url": f"a club may have at most {MOST_WEBHOOKS} webhooks: remove one first"})
        return ClubWebhook.objects.create(club=club, url=address, secret=secret, events=chosen, created_by=by)


def webhook_remove(*, webhook: ClubWebhook, by: Player | None) -> ClubWebhook:
    """The webhook hears of nothing more; what still waited to be posted to it is given up. Its log stays."""
    _require_organiser(webhook.club, by)
    now = timezone.now()
    with transaction.atomic():
        ClubWebhook.objects.filter(pk=webhook.pk).update(active=False)
        WebhookDelivery.objects.filter(webhook=webhook, delivered_at__isnull=True, gave_up_at__isnull=True).update(
            gave_up_at=now, last_error="the webhook was removed"
        )
    webhook.active = False
    return webhook


@dataclass(frozen=True)
class ClubEvent:
    """One event a club's webhooks hear of: see ``club_event``."""

    kind: Kind
    text: str
    link: str = ""
    data: Data | None = None


def club_event(*, club_id: int | None, kind: Kind, text: str, link: str = "", data: Data | None = None) -> int:
    """Tell the club's webhooks of one event, once however many people it concerns: a delivery for each active
    webhook that wants ``kind``, written in the caller's transaction and posted after it commits. ``text`` is
    one line of what anyone may read (names, results: never a card or a seed), ``link`` a path on this site,
    ``data`` a few ids for programs. How many deliveries were made; one query when the club has no webhook."""
    return club_events(club_id=club_id, events=[ClubEvent(kind, text, link, data)])


def club_events(*, club_id: int | None, events: Sequence[ClubEvent]) -> int:
    """``club_event`` for several events of one club at once (a round of each of several competitions): the
    club's webhooks are read once."""
    if club_id is None or not events or notifications_are_held():
        return 0
    webhooks = list(ClubWebhook.objects.filter(club_id=club_id, active=True).select_related("club"))
    if not webhooks:
        return 0
    now = timezone.now()
    rows = []
    for event in events:
        body = event_body(
            kind=str(event.kind),
            club_id=club_id,
            club_name=webhooks[0].club.name,
            text=event.text,
            link=event.link,
            data=event.data,
        )
        rows += [
            WebhookDelivery(webhook=webhook, kind=event.kind, body=body, created_at=now, next_attempt_at=now)
            for webhook in webhooks
            if webhook.wants(event.kind)
        ]
    made = WebhookDelivery.objects.bulk_create(rows)
    for delivery in made:
        enqueue_on_commit(DELIVER_WEBHOOK, delivery.pk, queue=settings.CELERY_WEBHOOKS_QUEUE)
    return len(made)
