"""/api/games/: played games, and each game's record, public or private by who asks."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response

from engine.record import Record
from engine.verify import public_record
from league.api.identity import viewing_player
from tournaments.api.filters import GameFilter
from tournaments.api.serializers import GameRecordSerializer, GameSerializer, RecordQuerySerializer
from tournaments.models import Game
from tournaments.selectors import game_insiders, game_list


class GameViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[Game]):
    serializer_class = GameSerializer
    filterset_class = GameFilter
    lookup_value_converter = "int"

    def get_queryset(self) -> QuerySet[Game]:
        games = game_list()
        # Only the record view loads the (large) record; lists and details leave it in the database.
        return games.defer(None) if self.action == "record" else games

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "view",
                str,
                enum=["public", "private"],
                description="default: private for the competition's organisers and whoever played, else public",
            )
        ],
        responses=GameRecordSerializer,
        filters=False,
    )
    @action(detail=True, methods=["get"], pagination_class=None, filter_backends=[])
    def record(self, request: Request, pk: int) -> Response:
        """The game's record. Public (engine.verify.public_record) hides the seed and deal, which reveal every
        private card, and shows a spectator's view after each step; the private record is the stored one.
        """
        query = RecordQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        game = self.get_object()
        player = viewing_player(request)
        insider = player is not None and player.pk in game_insiders(game=game)
        wanted = query.validated_data.get("view", "private" if insider else "public")
        if wanted == "private" and not insider:
            raise PermissionDenied(
                "the private record is for the competition's organisers and the owners of the bots that played it"
            )
        record = game.record if wanted == "private" else public_record(Record.from_dict(game.record))
        return Response(GameRecordSerializer({"visibility": wanted, "record": record}).data)
