"""A club's webhook and each delivery of an event to it.

Imported by league/models.py, so that Django finds them in the league app."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils import timezone

from league.notifications.kinds import Kind


class ClubWebhook(models.Model):
    """An address that hears of a club's events: its chat's incoming webhook, or a program of the club's."""

    club = models.ForeignKey("league.Club", on_delete=models.CASCADE, related_name="webhooks")
    #: Checked by engine.netguard when registered, and again at every connect.
    url = models.CharField(max_length=2000)
    #: The key of each body's HMAC-SHA256 signature: never shown again once given (the API does not return it).
    secret = models.CharField(max_length=200)
    #: The kinds (league.notifications.kinds.Kind values) it hears of; empty: every kind.
    events = models.JSONField(default=list, blank=True)
    #: A removed webhook stays (its delivery log with it) but hears of nothing more.
    active = models.BooleanField(default=True)
    created_by = models.ForeignKey("league.Player", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["club"], condition=Q(active=True), name="club_webhook_active")]

    def __str__(self) -> str:
        return f"webhook {self.pk} of club {self.club_id}"

    def wants(self, kind: str) -> bool:
        return not self.events or kind in self.events


class WebhookDelivery(models.Model):
    """One event's body for one webhook, and how its posting went; the database, not a worker, remembers it, so
    a restart loses nothing."""

    webhook = models.ForeignKey(ClubWebhook, on_delete=models.CASCADE, related_name="deliveries")
    kind = models.CharField(max_length=32, choices=Kind.choices)
    #: What is posted (the exact bytes are this, serialised the same way each attempt).
    body = models.JSONField()
    created_at = models.DateTimeField(default=timezone.now)
    #: Attempts claimed so far (one that a dead worker left unfinished counts).
    attempts = models.PositiveIntegerField(default=0)
    #: When it may be tried next; while an attempt is under way, when that attempt is given up as lost.
    next_attempt_at = models.DateTimeField(default=timezone.now)
    delivered_at = models.DateTimeField(null=True, blank=True)
    gave_up_at = models.DateTimeField(null=True, blank=True)
    #: The HTTP status of the last answer; null if there was none.
    last_status = models.PositiveSmallIntegerField(null=True, blank=True)
    #: Why the last attempt failed, in a line (or the start of the receiver's error page).
    last_error = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["webhook", "-created_at"], name="webhook_delivery_log"),
            # The sweep's question: what is waiting and due.
            models.Index(
                fields=["next_attempt_at"],
                condition=Q(delivered_at__isnull=True, gave_up_at__isnull=True),
                name="webhook_delivery_due",
            ),
        ]

    def __str__(self) -> str:
        return f"delivery {self.pk} ({self.kind}) to webhook {self.webhook_id}"

    @property
    def state(self) -> str:
        if self.delivered_at is not None:
            return "delivered"
        if self.gave_up_at is not None:
            return "given up"
        return "waiting"
