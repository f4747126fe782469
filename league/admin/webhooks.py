"""A club's webhooks and their delivery logs, read-only: organisers add and remove webhooks on the club's page
or through the API (league/webhooks/services.py), which check the address; the secret is never shown."""

from __future__ import annotations

from django.contrib import admin

from league.admin.permissions import ClubScopedAdmin
from league.webhooks.models import ClubWebhook, WebhookDelivery


@admin.register(ClubWebhook)
class ClubWebhookAdmin(ClubScopedAdmin[ClubWebhook]):
    list_display = ["id", "club", "url", "events", "active", "created_by", "created_at"]
    list_filter = ["active", ("club", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["club__name", "url"]
    list_select_related = ["club", "created_by"]
    # Not the secret: it is the key of the signatures, and its owner has it already.
    fields = ("club", "url", "events", "active", "created_by", "created_at")
    readonly_fields = fields


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(ClubScopedAdmin[WebhookDelivery]):
    club_lookup = "webhook__club_id"
    list_display = ["id", "webhook", "kind", "state", "attempts", "last_status", "created_at", "next_attempt_at"]
    list_filter = ["kind", ("webhook__club", admin.RelatedOnlyFieldListFilter)]
    list_select_related = ["webhook"]
    fields = (
        "webhook",
        "kind",
        "body",
        "created_at",
        "attempts",
        "next_attempt_at",
        "delivered_at",
        "gave_up_at",
        "last_status",
        "last_error",
    )
    readonly_fields = fields

    @admin.display(description="State")
    def state(self, delivery: WebhookDelivery) -> str:
        return delivery.state
