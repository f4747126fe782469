"""/api/games/: played games, and each game's record, public or private by who asks."""

from __future__ import annotations

import json
from typing import Any

from django.db.models import QuerySet
from django.http import HttpResponse, HttpResponseBase
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response

from config.schema import errors
from league.api.identity import viewing_player
from tournaments.api.filters import GameFilter
from tournaments.api.serializers import GameRecordSerializer, GameSerializer, RecordQuerySerializer
from tournaments.fields import encode_compact
from tournaments.models import Game, Match
from tournaments.public_records import proof_of, public_game_record
from tournaments.selectors import game_insider, game_list


class GameViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[Game]):
    serializer_class = GameSerializer
    filterset_class = GameFilter
    lookup_value_converter = "int"

    def get_queryset(self) -> QuerySet[Game]:
        # The (large) record stays in the database: the record view reads it only for the private record,
        # or to build a public one that is not cached yet (tournaments/public_records.py).
        return game_list()

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
    @errors(add=[403])
    @action(detail=True, methods=["get"], pagination_class=None, filter_backends=[])
    def record(self, request: Request, pk: int) -> HttpResponseBase:
        """The game's record. Public (engine.verify.public_record) hides the seed and deal, which reveal every
        private card, and shows a spectator's view after the start and what each step changed in it
        (docs/records.md, "Public views"); the private record is the stored one. A public record is built
        once and then served from the cache.

        Nothing here shows a seed before the match is done (DESIGN.md, "Seeds stay secret until the end").
        Once a live match is done, its games' seeds and salt are revealed to everyone beside the record,
        with the commitment published at the start, so anyone can check the deal (docs/fair-play.md).
        """
        # A plain dict, not the QueryDict: DRF reads a blank form value as absent, and ?view= is no view.
        query = RecordQuerySerializer(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        game = self.get_object()
        done = game.match.status == Match.Status.DONE
        player = viewing_player(request)
        insider = done and game_insider(game=game, player=player)
        wanted = query.validated_data.get("view", "private" if insider else "public")
        if wanted == "private" and not done:
            raise PermissionDenied("the private record is shown once the match is done")
        if wanted == "private" and not insider:
            raise PermissionDenied(
                "the private record is for the competition's organisers and the owners of the bots that played it"
            )
        if wanted == "private":
            proof = proof_of(game.record)
            shown = revealed(game, *proof) if done and proof else {}
            return Response(GameRecordSerializer({"visibility": wanted, "record": game.record, **shown}).data)
        public = public_game_record(game)
        text = public.text
        shown = revealed(game, *public.proof) if done and public.proof else {}
        if request.accepted_renderer.format == "json":
            # The cached JSON as it is: decoding it to encode it again costs more than the rest of the request.
            tail = b"".join(
                b"," + encode_compact(key).encode() + b":" + encode_compact(value).encode()
                for key, value in shown.items()
            )
            return HttpResponse(
                b'{"visibility":"public","record":' + text + tail + b"}", content_type="application/json"
            )
        body = {"visibility": wanted, "record": json.loads(text), **shown}
        return Response(GameRecordSerializer(body).data)


def revealed(game: Game, seed: int, salt: str) -> dict[str, Any]:
    """A done live match's proof of a fair deal: the seed, the salt and the commitment published at the start."""
    shown: dict[str, Any] = {"seed": seed, "salt": salt}
    published = game.match.commitments
    if isinstance(published, list) and game.number < len(published) and isinstance(published[game.number], str):
        shown["commitment"] = published[game.number]
    return shown
