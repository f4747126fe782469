"""Posting deliveries: claim one, post it, write down how it went, and when to try again.

The database holds every delivery's state, not a worker: a delivery is claimed with a conditional UPDATE that
moves its ``next_attempt_at`` past the end of the attempt (``WEBHOOK_CLAIM_SECONDS``), so two workers never
post it at once, and one whose worker dies mid-attempt is due again once that time has passed; beat's sweep
(``deliver_due``) then posts it. A delivery is posted until a 2xx answer, waiting ``WEBHOOK_RETRY_BASE_SECONDS``
after the first failure and twice as long after each next one (at most ``WEBHOOK_RETRY_MAX_SECONDS``), and is
given up after ``WEBHOOK_MAX_ATTEMPTS`` attempts.

A receiver is told of each delivery at least once; it is told twice only if it answered an attempt too late for
us to hear it (or a worker died between its answer and our writing it down), and the ``delivery`` id in the body
lets it see that.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import F, Q
from django.utils import timezone

from engine.http_bot import PostFailed, post_once
from league.webhooks.bodies import headers, sent_bytes
from league.webhooks.models import WebhookDelivery

#: How much of a failure's reason the log keeps.
ERROR_CHARS = 300
#: Deliveries one sweep looks at; the next sweep takes the rest.
SWEEP_BATCH = 100


def retry_delay(attempts: int) -> timedelta:
    """How long to wait after the ``attempts``-th failed attempt: the base, doubled after each failure, capped."""
    seconds = settings.WEBHOOK_RETRY_BASE_SECONDS * 2 ** max(0, attempts - 1)
    return timedelta(seconds=min(seconds, settings.WEBHOOK_RETRY_MAX_SECONDS))


def _waiting() -> Q:
    return Q(delivered_at__isnull=True, gave_up_at__isnull=True)


def claim(delivery_id: int, now: datetime) -> WebhookDelivery | None:
    """The delivery, counted as one more attempt and held for ``WEBHOOK_CLAIM_SECONDS``, if it is due; None if
    it is not (delivered, given up, not yet time, or another worker holds it)."""
    held_until = now + timedelta(seconds=settings.WEBHOOK_CLAIM_SECONDS)
    claimed = WebhookDelivery.objects.filter(_waiting(), pk=delivery_id, next_attempt_at__lte=now).update(
        attempts=F("attempts") + 1, next_attempt_at=held_until
    )
    if claimed != 1:
        return None
    return WebhookDelivery.objects.select_related("webhook").get(pk=delivery_id)


def deliver(delivery_id: int) -> bool | None:
    """One attempt at the delivery, if it is due: True if it was answered with a 2xx, False if not (and when it
    is tried again, or that it is given up, is written down), None if it was not ours to try."""
    delivery = claim(delivery_id, timezone.now())
    if delivery is None:
        return None
    webhook = delivery.webhook
    payload = sent_bytes(delivery.body, delivery_id=delivery.pk, attempt=delivery.attempts, sent_at=timezone.now())
    status: int | None = None
    try:
        answer = post_once(
            webhook.url,
            payload,
            headers(secret=webhook.secret, payload=payload, kind=delivery.kind, delivery_id=delivery.pk),
            timeout=settings.WEBHOOK_TIMEOUT_SECONDS,
            allow_private=settings.WEBHOOK_ALLOW_PRIVATE,
            user_agent="cardclub-webhooks",
        )
        status = answer.status
        error = "" if 200 <= status < 300 else f"HTTP {status}: {answer.excerpt}".strip().rstrip(":")
    except PostFailed as failure:
        error = failure.reason
    now = timezone.now()
    ours = WebhookDelivery.objects.filter(pk=delivery.pk, attempts=delivery.attempts)
    if not error:
        ours.update(delivered_at=now, last_status=status, last_error="")
        return True
    error = " ".join(error.split())[:ERROR_CHARS]
    if delivery.attempts >= settings.WEBHOOK_MAX_ATTEMPTS:
        ours.update(gave_up_at=now, last_status=status, last_error=error)
    else:
        ours.update(next_attempt_at=now + retry_delay(delivery.attempts), last_status=status, last_error=error)
    return False


def due_ids(now: datetime, limit: int = SWEEP_BATCH) -> list[tuple[int, int]]:
    """(delivery, webhook) of the deliveries due now, the longest waiting first."""
    return list(
        WebhookDelivery.objects.filter(_waiting(), next_attempt_at__lte=now)
        .order_by("next_attempt_at", "id")
        .values_list("pk", "webhook_id")[:limit]
    )


def deliver_due(*, budget_seconds: float | None = None) -> int:
    """Beat's sweep: post what is due (retries, and deliveries whose worker died), for at most ``budget_seconds``;
    how many were delivered. After one failure of a webhook, its other deliveries wait for the next sweep: a
    receiver that is down is not asked forty times in a row."""
    budget = settings.WEBHOOK_SWEEP_BUDGET_SECONDS if budget_seconds is None else budget_seconds
    stop = time.monotonic() + budget
    failed: set[int] = set()
    delivered = 0
    for delivery_id, webhook_id in due_ids(timezone.now()):
        if time.monotonic() > stop:
            break
        if webhook_id in failed:
            continue
        outcome = deliver(delivery_id)
        if outcome is True:
            delivered += 1
        elif outcome is False:
            failed.add(webhook_id)
    return delivered
