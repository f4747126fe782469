"""/api/tournaments/{id}/rounds/ and standings/: the schedule and the table, for anyone to read."""

from __future__ import annotations

import json
from typing import Any, cast

from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils.text import slugify
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import mixins, viewsets
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from tournaments.api.renderers import CSVErrorsAsJSON, CSVRenderer
from tournaments.api.scoping import CompetitionScoped, schema_only
from tournaments.api.serializers import RoundSerializer, StandingRowSerializer
from tournaments.formats.registry import format_of
from tournaments.models import Competition, Round, Standing
from tournaments.selectors import competition_rounds, competition_standings
from tournaments.standings_cache import (
    cached_page,
    cached_results_version,
    publish_results_version,
    recent_json_page,
)
from tournaments.standings_csv import standings_csv


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


class StandingViewSet(CSVErrorsAsJSON, CompetitionScoped, viewsets.GenericViewSet[Standing]):
    """The table in the game's order (RULES.md): ranks are shared by rows level on every tiebreak."""

    serializer_class = StandingRowSerializer
    # CSV for a spreadsheet (docs/exports.md): ``Accept: text/csv`` or ``?format=csv``.
    renderer_classes = [JSONRenderer, BrowsableAPIRenderer, CSVRenderer]

    def get_queryset(self) -> QuerySet[Standing]:
        # Only the schema generator and the filter backend ask; the rows come from competition_standings.
        return Standing.objects.none()

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        # The busiest read of a club's ladder: skip authentication, negotiation and rendering
        # when this process already holds the current page (tournaments/standings_cache.py).
        # A client asking for CSV by its Accept header goes the long way, to the negotiation that gives it.
        wants_csv = "text/csv" in request.headers.get("Accept", "")
        fast = None if wants_csv else recent_json_page(request, int(kwargs["competition_pk"]))
        return fast if fast is not None else super().dispatch(request, *args, **kwargs)

    @extend_schema(
        description="The table in the game's order (RULES.md): ranks are shared by rows level on every tiebreak. "
        "Asked with `Accept: text/csv` (or `?format=csv`, as a link in a page does), the whole table (not a page) "
        "as CSV in UTF-8, sent as a file to download: a header line, then one line per row of the JSON; the "
        "game's own tiebreaks are columns named by their `field` (docs/exports.md).",
        # DRF's ?format= (which the page's download link uses) is said in the description, as nowhere else in
        # the API documents it: the schema's way to ask for CSV is the Accept header.
        parameters=[OpenApiParameter("format", exclude=True)],
        responses={
            (200, "application/json"): StandingRowSerializer(many=True),
            (200, "text/csv"): OpenApiResponse(
                OpenApiTypes.STR,
                description="the whole table (not a page) as CSV in UTF-8, sent as a file to download",
            ),
        },
    )
    def list(self, request: Request, **kwargs: Any) -> Response | HttpResponse:
        competition_id = int(self.kwargs["competition_pk"])
        version = cached_results_version(competition_id)
        if version is None:
            version = self.competition.results_version  # 404 for a competition that does not exist
            publish_results_version(competition_id, version)
        if isinstance(request.accepted_renderer, CSVRenderer):
            return self._csv(competition_id, version)

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

    def _csv(self, competition_id: int, version: int) -> HttpResponse:
        def build() -> bytes:
            # The whole table, serialised as the JSON serialises it: the CSV cannot say anything else.
            rows = StandingRowSerializer(competition_standings(self.competition), many=True).data
            return standings_csv(cast("list[dict[str, Any]]", rows))

        # Cached beside the JSON pages, under the same version: a new result makes a new key.
        encoded = cached_page(competition_id, version, "csv", build)
        response = HttpResponse(encoded, content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{standings_filename(self.competition)}"'
        return response


def standings_filename(competition: Competition) -> str:
    """``spring-league-12-standings.csv``: the competition's name as a file name can hold it, and its id."""
    name = slugify(competition.name)[:60] or "competition"
    return f"{name}-{competition.pk}-standings.csv"
