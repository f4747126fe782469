"""/api/bots/ and /api/bots/{id}/versions/: anyone reads; only a bot's owner changes it or adds versions."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response

from config.schema import errors
from config.throttles import AnonymousReadThrottle, BotVersionThrottle, UserWriteThrottle
from engine.sandbox.code import MAX_UPLOAD_BYTES
from league.api.filters import BotFilter, BotVersionFilter
from league.api.identity import acting_player
from league.api.permissions import IsBotOwnerOrReadOnly, is_bot_owner
from league.api.serializers import (
    BOT_VERSION_REQUEST,
    BotCreateSerializer,
    BotSerializer,
    BotUpdateSerializer,
    BotVersionCreateSerializer,
    BotVersionLogSerializer,
    BotVersionSerializer,
)
from league.models import Bot, BotVersion
from league.selectors import bot_list, bot_versions
from league.services import (
    bot_create,
    bot_delete,
    bot_retire,
    bot_update,
    bot_version_create_builtin,
    bot_version_create_http,
    bot_version_create_upload,
    bot_version_reinstate,
)

#: Room for the multipart form's other fields and boundaries around the largest upload.
UPLOAD_FORM_ALLOWANCE = 64 * 1024


class BotViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[Bot]):
    serializer_class = BotSerializer
    filterset_class = BotFilter
    permission_classes = [IsAuthenticatedOrReadOnly, IsBotOwnerOrReadOnly]
    lookup_value_converter = "int"

    def get_queryset(self) -> QuerySet[Bot]:
        return bot_list()

    def _shown(self, bot: Bot, code: int = status.HTTP_200_OK) -> Response:
        # Re-read through the selector so the response carries the same annotations as the list.
        return Response(BotSerializer(bot_list().get(pk=bot.pk)).data, status=code)

    @extend_schema(request=BotCreateSerializer, responses={201: BotSerializer})
    def create(self, request: Request) -> Response:
        data = BotCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        bot = bot_create(owner=acting_player(request), **data.validated_data)
        return self._shown(bot, status.HTTP_201_CREATED)

    @extend_schema(request=BotUpdateSerializer, responses=BotSerializer)
    def partial_update(self, request: Request, pk: int) -> Response:
        bot = self.get_object()
        data = BotUpdateSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        return self._shown(bot_update(bot=bot, **data.validated_data))

    @extend_schema(responses={204: None})
    def destroy(self, request: Request, pk: int) -> Response:
        bot_delete(bot=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(request=None, responses=BotSerializer)
    @errors(drop=[400])  # retiring twice keeps the first date: nothing to refuse
    @action(detail=True, methods=["post"])
    def retire(self, request: Request, pk: int) -> Response:
        return self._shown(bot_retire(bot=self.get_object()))


class BotVersionViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[BotVersion]):
    """A bot's immutable versions, addressed by number; entering a competition takes the version's id."""

    serializer_class = BotVersionSerializer
    filterset_class = BotVersionFilter
    # Each new upload or URL is a validation match on a worker: a rate of their own, on top of every write's.
    throttle_classes = [AnonymousReadThrottle, UserWriteThrottle, BotVersionThrottle]
    lookup_field = "number"
    lookup_value_converter = "int"

    @cached_property
    def bot(self) -> Bot:
        return get_object_or_404(Bot.objects.select_related("owner"), pk=self.kwargs["bot_pk"])

    def get_queryset(self) -> QuerySet[BotVersion]:
        if getattr(self, "swagger_fake_view", False):  # the schema generator has no URL kwargs
            return BotVersion.objects.none()
        return bot_versions(bot=self.bot)

    def get_serializer_context(self) -> dict[str, Any]:
        # DRF builds a new dict each call; the stubs type it as a Mapping.
        context = dict(super().get_serializer_context())
        if getattr(self, "swagger_fake_view", False):
            return context
        context["owner_user_id"] = self.request.user.pk if is_bot_owner(self.request, self.bot) else None
        return context

    @extend_schema(
        request=BOT_VERSION_REQUEST,
        responses={201: BotVersionSerializer},
    )
    def create(self, request: Request, **kwargs: Any) -> Response:
        if not is_bot_owner(request, self.bot):
            raise PermissionDenied("only the bot's owner may add versions")
        # Refused before the body is read: Django would otherwise spool any size of upload to disk first.
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
        if declared > MAX_UPLOAD_BYTES + UPLOAD_FORM_ALLOWANCE:
            raise ValidationError(
                {"source": [f"the request is {declared:,} bytes; an upload may be {MAX_UPLOAD_BYTES:,}"]}
            )
        data = BotVersionCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        if request.content_type.startswith("multipart/") and fields["kind"] != BotVersion.Kind.UPLOAD:
            # As the schema says: a form carries a file; a built-in or HTTP version is a JSON body.
            raise ValidationError(
                {"kind": [f"a multipart form uploads a file; send a {fields['kind']} version as JSON"]}
            )
        if fields["kind"] == BotVersion.Kind.UPLOAD:
            source = fields["source"]
            version = bot_version_create_upload(
                bot=self.bot, filename=source.name, content=source.read(), entry=fields["entry"]
            )
        elif fields["kind"] == BotVersion.Kind.HTTP:
            version = bot_version_create_http(bot=self.bot, url=fields["url"])
        else:
            version = bot_version_create_builtin(
                bot=self.bot, strategy=fields["strategy"], parameters=fields["parameters"]
            )
        context = {"owner_user_id": request.user.pk}
        return Response(BotVersionSerializer(version, context=context).data, status=status.HTTP_201_CREATED)

    @extend_schema(responses=BotVersionLogSerializer)
    @errors(add=[403])
    @action(detail=True, methods=["get"])
    def log(self, request: Request, **kwargs: Any) -> Response:
        """The validation match's log and verdict: the bot's owner only."""
        if not is_bot_owner(request, self.bot):
            raise PermissionDenied("only the bot's owner may read its logs")
        version = get_object_or_404(BotVersion.objects.filter(bot=self.bot), number=kwargs["number"])
        return Response(BotVersionLogSerializer(version).data)

    @extend_schema(request=None, responses=BotVersionSerializer)
    @errors(add=[409], drop=[400])
    # Not a new version: the rate of new versions (BotVersionThrottle) does not count it.
    @action(detail=True, methods=["post"], throttle_classes=[AnonymousReadThrottle, UserWriteThrottle])
    def reinstate(self, request: Request, **kwargs: Any) -> Response:
        """Let a version suspended for forfeiting most of its recent games play again (docs/bot-protocol.md,
        "When a bot breaks"): the bot's owner only; 409 if it is not suspended."""
        if not is_bot_owner(request, self.bot):
            raise PermissionDenied("only the bot's owner may reinstate its versions")
        version = get_object_or_404(BotVersion.objects.filter(bot=self.bot), number=kwargs["number"])
        reinstated = bot_version_reinstate(version=version)
        context = {"owner_user_id": request.user.pk}
        return Response(BotVersionSerializer(reinstated, context=context).data)
