"""/api/players/: everyone's public profile, and the caller's own at me/."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from league.api.filters import PlayerFilter
from league.api.identity import acting_player
from league.api.serializers import PlayerSelfSerializer, PlayerSerializer, PlayerUpdateSerializer
from league.models import Player
from league.selectors import player_list
from league.services import player_update


class PlayerViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[Player]):
    """People in the service. A user's profile is created on first use: by the first write that needs one, or me/."""

    serializer_class = PlayerSerializer
    filterset_class = PlayerFilter
    lookup_value_converter = "int"

    def get_queryset(self) -> QuerySet[Player]:
        return player_list()

    @extend_schema(responses=PlayerSelfSerializer, filters=False)
    @action(detail=False, methods=["get"], permission_classes=[IsAuthenticated], pagination_class=None)
    def me(self, request: Request) -> Response:
        return Response(PlayerSelfSerializer(acting_player(request)).data)

    @extend_schema(request=PlayerUpdateSerializer, responses=PlayerSelfSerializer, filters=False)
    @me.mapping.patch
    def update_me(self, request: Request) -> Response:
        # A PATCH changes what it names: an empty one changes nothing and shows the profile.
        data = PlayerUpdateSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        player = acting_player(request)
        if "display_name" in data.validated_data:
            player = player_update(player=player, display_name=data.validated_data["display_name"])
        return Response(PlayerSelfSerializer(player).data)
