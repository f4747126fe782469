"""/api/tournaments/{id}/rounds/ and standings/: the schedule and the table, for anyone to read."""

from __future__ import annotations

from typing import Any

from django.core.cache import cache
from django.db.models import QuerySet
from django.http import HttpResponse
from rest_framework import mixins, viewsets
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from tournaments.api.scoping import CompetitionScoped, schema_only
from tournaments.api.serializers import RoundSerializer, StandingRowSerializer
from tournaments.models import Round, Standing
from tournaments.selectors import competition_rounds, competition_standings

#: How long an unchanged table stays cached; a new result makes a new key at once.
STANDINGS_CACHE_SECONDS = 600


class RoundViewSet(CompetitionScoped, mixins.ListModelMixin, viewsets.GenericViewSet[Round]):
    """Every round with its matches and their participants, in order."""

    serializer_class = RoundSerializer

    def get_queryset(self) -> QuerySet[Round]:
        if schema_only(self):
            return Round.objects.none()
        return competition_rounds(competition=self.competition)


class StandingViewSet(CompetitionScoped, viewsets.GenericViewSet[Standing]):
    """The table in the game's order (RULES.md): ranks are shared by rows level on every tiebreak."""

    serializer_class = StandingRowSerializer

    def get_queryset(self) -> QuerySet[Standing]:
        # Only the schema generator and the filter backend ask; the rows come from competition_standings.
        return Standing.objects.none()

    def list(self, request: Request, **kwargs: Any) -> Response | HttpResponse:
        # The table only changes when a match is recorded, which bumps results_version: a page
        # cached under that version is never stale, and a busy table is built and encoded once
        # per result instead of once per request.
        competition = self.competition
        key = f"standings:{competition.pk}:{competition.results_version}:{request.query_params.urlencode()}"
        cached = cache.get(key)
        if cached is None:
            # Ranks are computed over the whole table before a page is cut from it.
            rows = competition_standings(competition)
            page = self.paginate_queryset(rows)
            data = self.get_paginated_response(StandingRowSerializer(page, many=True).data).data
            cached = (data, JSONRenderer().render(data))
            cache.set(key, cached, timeout=STANDINGS_CACHE_SECONDS)
        data, encoded = cached
        if isinstance(request.accepted_renderer, JSONRenderer):
            return HttpResponse(encoded, content_type="application/json")
        return Response(data)
