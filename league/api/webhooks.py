"""A club's webhooks over the API (league/webhooks/): its organisers' to register, list, remove and watch.

- /api/clubs/{club}/webhooks/: the club's webhooks (GET), or a new one (POST with ``url``, ``secret`` and
  optionally ``events``); the secret is never shown back.
- /api/clubs/{club}/webhooks/{id}/: DELETE removes one (its log stays, for the admin site).
- /api/clubs/{club}/webhooks/{id}/deliveries/: its delivery log, newest first.
Anyone but the club's organisers gets a 403.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from config.schema import errors
from league.api.identity import acting_player
from league.api.joining import InClub
from league.notifications.kinds import Kind
from league.webhooks.models import ClubWebhook, WebhookDelivery
from league.webhooks.selectors import club_webhooks, delivery_log
from league.webhooks.services import (
    CLUB_EVENTS,
    MAX_SECRET_CHARS,
    MIN_SECRET_CHARS,
    webhook_create,
    webhook_remove,
)


class WebhookSerializer(serializers.ModelSerializer[ClubWebhook]):
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=Kind.choices),
        help_text="The events it hears of; empty: every event.",
    )

    class Meta:
        model = ClubWebhook
        fields = ["id", "url", "events", "active", "created_by", "created_at"]
        read_only_fields = fields


class WebhookCreateSerializer(serializers.Serializer[Any]):
    url = serializers.CharField(
        max_length=2000, help_text="Where to post: an http(s) address, such as a Discord or Slack incoming webhook."
    )
    secret = serializers.CharField(
        min_length=MIN_SECRET_CHARS,
        max_length=MAX_SECRET_CHARS,
        write_only=True,
        trim_whitespace=False,
        help_text="The key of each body's signature (X-Cardclub-Signature: sha256=HMAC-SHA256 of the body). "
        "Never shown again.",
    )
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=[(kind.value, kind.label) for kind in CLUB_EVENTS]),
        required=False,
        max_length=len(CLUB_EVENTS),
        help_text="The events to hear of; left out or empty: every event.",
    )


class DeliverySerializer(serializers.ModelSerializer[WebhookDelivery]):
    state = serializers.CharField(help_text="waiting, delivered or given up")

    class Meta:
        model = WebhookDelivery
        fields = [
            "id",
            "kind",
            "state",
            "created_at",
            "attempts",
            "next_attempt_at",
            "delivered_at",
            "gave_up_at",
            "last_status",
            "last_error",
            "body",
        ]
        read_only_fields = fields


class ClubWebhookViewSet(InClub, mixins.ListModelMixin, viewsets.GenericViewSet[ClubWebhook]):
    """The addresses a club's events are posted to, newest first: its organisers' alone."""

    serializer_class = WebhookSerializer
    permission_classes = [IsAuthenticated]
    lookup_value_converter = "int"

    def get_queryset(self) -> QuerySet[ClubWebhook]:
        if getattr(self, "swagger_fake_view", False):  # the schema generator has no URL kwargs
            return ClubWebhook.objects.none()
        return club_webhooks(club=self.club)

    @errors(add=[403])
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        self.require_organiser(request, "see its webhooks")
        return super().list(request, *args, **kwargs)

    @extend_schema(request=WebhookCreateSerializer, responses={201: WebhookSerializer})
    def create(self, request: Request, **kwargs: Any) -> Response:
        """Post the club's events to ``url``, signed with ``secret``; the address must be a public one."""
        self.require_organiser(request, "add webhooks")
        data = WebhookCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        webhook = webhook_create(club=self.club, by=acting_player(request), **data.validated_data)
        return Response(WebhookSerializer(webhook).data, status=status.HTTP_201_CREATED)

    @errors(drop=[400])
    def destroy(self, request: Request, pk: int, **kwargs: Any) -> Response:
        """Stop posting to it; what still waited to be posted is given up."""
        self.require_organiser(request, "remove webhooks")
        webhook_remove(webhook=get_object_or_404(self.get_queryset(), pk=pk), by=acting_player(request))
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(responses=DeliverySerializer(many=True))
    @errors(add=[403])
    @action(detail=True, methods=["get"], serializer_class=DeliverySerializer)
    def deliveries(self, request: Request, pk: int, **kwargs: Any) -> Response:
        """The webhook's delivery log, newest first: each event, its attempts, and how the last one went."""
        self.require_organiser(request, "see its webhooks")
        webhook = get_object_or_404(ClubWebhook.objects.filter(club=self.club), pk=pk)
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(delivery_log(webhook=webhook), request, view=self)
        return paginator.get_paginated_response(DeliverySerializer(page, many=True).data)
