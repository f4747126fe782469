"""/api/games/: played games, and each game's record, public or private by who asks."""

from __future__ import annotations

from typing import Any

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
from tournaments.models import Game, Match
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
                description="default: private for the competition's organisers and whoever played, once the "
                "match is done; else public",
            )
        ],
        responses=GameRecordSerializer,
        filters=False,
    )
    @action(detail=True, methods=["get"], pagination_class=None, filter_backends=[])
    def record(self, request: Request, pk: int) -> Response:
        """The game's record. Public (engine.verify.public_record) hides the seed and deal, which reveal every
        private card, and shows a spectator's view after each step; the private record is the stored one.

        Nothing here shows a seed before the match is done (DESIGN.md, "Seeds stay secret until the end").
        Once a live match is done, its games' seeds and salt are revealed to everyone beside the record,
        with the commitment published at the start, so anyone can check the deal (docs/fair-play.md).
        """
        query = RecordQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        game = self.get_object()
        done = game.match.status == Match.Status.DONE
        player = viewing_player(request)
        insider = done and player is not None and player.pk in game_insiders(game=game)
        wanted = query.validated_data.get("view", "private" if insider else "public")
        if wanted == "private" and not done:
            raise PermissionDenied("the private record is shown once the match is done")
        if wanted == "private" and not insider:
            raise PermissionDenied(
                "the private record is for the competition's organisers and the owners of the bots that played it"
            )
        record = game.record if wanted == "private" else public_record(Record.from_dict(game.record))
        body: dict[str, Any] = {"visibility": wanted, "record": record}
        if done and isinstance(game.record.get("salt"), str):
            body.update(revealed(game))
        return Response(GameRecordSerializer(body).data)


def revealed(game: Game) -> dict[str, Any]:
    """A done live match's proof of a fair deal: the seed, the salt and the commitment published at the start."""
    shown: dict[str, Any] = {"seed": game.record["seed"], "salt": game.record["salt"]}
    published = game.match.commitments
    if isinstance(published, list) and game.number < len(published) and isinstance(published[game.number], str):
        shown["commitment"] = published[game.number]
    return shown
