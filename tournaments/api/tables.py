"""/api/tournaments/{id}/rounds/ and standings/: the schedule and the table, for anyone to read."""

from __future__ import annotations

import json
from typing import Any

from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from rest_framework import mixins, viewsets
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from tournaments.api.scoping import CompetitionScoped, schema_only
from tournaments.api.serializers import RoundSerializer, StandingRowSerializer
from tournaments.formats.registry import format_of
from tournaments.models import Round, Standing
from tournaments.selectors import competition_rounds, competition_standings
from tournaments.standings_cache import (
    cached_page,
    cached_results_version,
    publish_results_version,
    recent_json_page,
)


class RoundViewSet(CompetitionScoped, mixins.ListModelMixin, viewsets.GenericViewSet[Round]):
    """Every round with its matches and their participants, in order."""

    serializer_class = RoundSerializer

    def get_queryset(self) -> QuerySet[Round]:
        if schema_only(self):
            return Round.objects.none()
        return competition_rounds(competition=self.competition)

    def get_serializer_context(self) -> dict[str, Any]:
        context = dict(super().get_serializer_context())
        byes = None if schema_only(self) else format_of(self.competition).round_byes(self.competition)
        if byes is not None and byes.by_round is not None:
            context["round_byes"] = byes.by_round
        elif byes is not None and byes.unseated:
            # Everyone entered: whoever a round does not seat had a bye. Read once for the page.
            context["bye_candidates"] = list(self.competition.entrants.order_by("id").values_list("id", flat=True))
        return context


class StandingViewSet(CompetitionScoped, viewsets.GenericViewSet[Standing]):
    """The table in the game's order (RULES.md): ranks are shared by rows level on every tiebreak."""

    serializer_class = StandingRowSerializer

    def get_queryset(self) -> QuerySet[Standing]:
        # Only the schema generator and the filter backend ask; the rows come from competition_standings.
        return Standing.objects.none()

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        # The busiest read of a club's ladder: skip authentication, negotiation and rendering
        # when this process already holds the current page (tournaments/standings_cache.py).
        fast = recent_json_page(request, int(kwargs["competition_pk"]))
        return fast if fast is not None else super().dispatch(request, *args, **kwargs)

    def list(self, request: Request, **kwargs: Any) -> Response | HttpResponse:
        competition_id = int(self.kwargs["competition_pk"])
        version = cached_results_version(competition_id)
        if version is None:
            version = self.competition.results_version  # 404 for a competition that does not exist
            publish_results_version(competition_id, version)

        def build() -> bytes:
            # Ranks are computed over the whole table before a page is cut from it.
            rows = competition_standings(self.competition)
            page = self.paginate_queryset(rows)
            return JSONRenderer().render(self.get_paginated_response(StandingRowSerializer(page, many=True).data).data)

        encoded = cached_page(competition_id, version, request.query_params.urlencode(), build)
        if isinstance(request.accepted_renderer, JSONRenderer):
            return HttpResponse(encoded, content_type="application/json")
        # The browsable API renders the same data as HTML.
        return Response(json.loads(encoded))
