"""What an organiser reads of the club's webhooks: the webhooks and each one's delivery log."""

from __future__ import annotations

from django.db.models import QuerySet

from league.models import Club
from league.webhooks.models import ClubWebhook, WebhookDelivery


def club_webhooks(*, club: Club) -> QuerySet[ClubWebhook]:
    """The club's webhooks that still hear of its events, newest first."""
    return ClubWebhook.objects.filter(club=club, active=True).order_by("-created_at", "-id")


def delivery_log(*, webhook: ClubWebhook) -> QuerySet[WebhookDelivery]:
    """The webhook's deliveries, newest first."""
    return WebhookDelivery.objects.filter(webhook=webhook).order_by("-created_at", "-id")
