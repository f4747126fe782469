"""GET /api/: the API's front door, listing its collections and where the schema and docs are."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

#: Name in the answer → URL name. Collections nested under one of these are linked from its rows.
RESOURCES = {
    "tournaments": "competition-list",
    "matches": "match-list",
    "games": "game-list",
    "clubs": "club-list",
    "players": "player-list",
    "bots": "bot-list",
    "my_matches": "player-me-matches",
    "token": "api-token",
    "schema": "api-schema",
    "docs": "api-docs",
}

ApiRootSerializer = inline_serializer("ApiRoot", {name: serializers.URLField() for name in RESOURCES})


class ApiRootView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses={200: ApiRootSerializer}, summary="The API's collections, schema and docs", tags=["api"])
    def get(self, request: Request) -> Response:
        return Response({name: reverse(url_name, request=request) for name, url_name in RESOURCES.items()})


@extend_schema(exclude=True)
class ApiNotFoundView(APIView):
    """Any other path under /api/: a JSON 404, never Django's page (which, with DEBUG on, lists every route)."""

    permission_classes = [AllowAny]

    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        raise NotFound(f"no such API path: {request.path}; GET /api/ lists the collections")

    # A path that does not exist has no methods to allow or refuse: every one gets the 404.
    post = put = patch = delete = options = get
