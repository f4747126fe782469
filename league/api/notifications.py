"""The caller's notifications over the API (league/notifications/): the inbox the site shows at /notifications/.

- GET /api/notifications/: newest first; ``?unread=true`` for the unread only.
- POST /api/notifications/{id}/read/: mark one read; POST /api/notifications/read/: mark them all read.
Only the person a notification is for sees it: another's is a 404, as if it did not exist.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import Http404
from django_filters import rest_framework as filters
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from config.api_input import BooleanFilter
from config.schema import errors
from league.api.identity import viewing_player
from league.notifications.models import Notification
from league.notifications.services import notification_read, notifications_read_all


class NotificationSerializer(serializers.ModelSerializer[Notification]):
    read = serializers.SerializerMethodField(help_text="Whether the person has read it.")

    class Meta:
        model = Notification
        fields = ["id", "kind", "title", "body", "link", "club", "created_at", "read", "read_at"]
        read_only_fields = fields

    def get_read(self, notification: Notification) -> bool:
        return notification.read_at is not None


class NotificationFilter(filters.FilterSet):
    unread = BooleanFilter(method="filter_unread", label="Unread only (true) or read only (false)")

    class Meta:
        model = Notification
        fields = ["unread"]

    def filter_unread(self, queryset: QuerySet[Notification], name: str, value: bool) -> QuerySet[Notification]:
        return queryset.filter(read_at__isnull=value)


class NotificationViewSet(mixins.ListModelMixin, viewsets.GenericViewSet[Notification]):
    """The caller's notifications, newest first: what the site's inbox shows."""

    serializer_class = NotificationSerializer
    permission_classes = [IsAuthenticated]
    filterset_class = NotificationFilter
    lookup_value_converter = "int"

    def get_queryset(self) -> QuerySet[Notification]:
        if getattr(self, "swagger_fake_view", False):
            return Notification.objects.none()
        me = viewing_player(self.request)
        if me is None:
            return Notification.objects.none()
        return Notification.objects.filter(player=me, on_site=True).order_by("-created_at", "-id")

    @extend_schema(operation_id="notification_read", request=None, responses=NotificationSerializer)
    @errors(drop=[400])
    @action(detail=True, methods=["post"])
    def read(self, request: Request, pk: int, **kwargs: Any) -> Response:
        """Mark one of your notifications read (reading it twice changes nothing)."""
        me = viewing_player(request)
        notification = notification_read(player=me, notification_id=pk) if me is not None else None
        if notification is None:
            raise Http404("no such notification of yours")
        return Response(NotificationSerializer(notification).data)

    @extend_schema(
        operation_id="notifications_read_all",
        request=None,
        responses=inline_serializer(
            "NotificationsRead", {"read": serializers.IntegerField(help_text="How many were unread.")}
        ),
    )
    @errors(drop=[400])
    @action(detail=False, methods=["post"], url_path="read")
    def read_all(self, request: Request) -> Response:
        """Mark every unread notification of yours read."""
        me = viewing_player(request)
        return Response({"read": notifications_read_all(player=me) if me is not None else 0})
