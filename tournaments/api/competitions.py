"""/api/tournaments/: competitions. Anyone reads; a club member creates one and organises it; organisers run it."""

from __future__ import annotations

import dataclasses
from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, PermissionDenied, ValidationError
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response

from league.api.identity import viewing_player
from league.selectors import club_role
from tournaments.api.filters import CompetitionFilter
from tournaments.api.format_serializers import (
    CompetitionSerializer,
    any_format,
    chosen_format_key,
    create_serializer,
    update_serializer,
)
from tournaments.api.permissions import IsOrganiserOrReadOnly
from tournaments.api.serializers import (
    MAX_MATRIX_ENTRANTS,
    BracketSerializer,
    CompetitionStartSerializer,
    HeadToHeadQuerySerializer,
    HeadToHeadSerializer,
    OpponentsQuerySerializer,
    OpponentsSerializer,
    PlayOutcomeSerializer,
    ProgressSerializer,
    RatingHistorySerializer,
    SeparationSerializer,
)
from tournaments.formats.knockout import knockout_bracket
from tournaments.formats.separation import separation_of
from tournaments.gauntlet_opponents import top_opponents
from tournaments.models import Competition
from tournaments.selectors import competition_list, competition_progress, head_to_head, rating_history
from tournaments.services.competitions import (
    competition_cancel,
    competition_create,
    competition_start,
    competition_update,
)
from tournaments.services.play import competition_play_now


# CompetitionSerializer shows each competition by its format's own serializer; the schema gives those shapes.
@extend_schema_view(
    list=extend_schema(responses=any_format("output")), retrieve=extend_schema(responses=any_format("output"))
)
class CompetitionViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[Competition]):
    """Tournaments, leagues and ladders (the Competition model), newest first."""

    serializer_class = CompetitionSerializer
    filterset_class = CompetitionFilter
    permission_classes = [IsAuthenticatedOrReadOnly, IsOrganiserOrReadOnly]
    lookup_value_converter = "int"

    def get_queryset(self) -> QuerySet[Competition]:
        return competition_list()

    def _shown(self, competition: Competition, code: int = status.HTTP_200_OK) -> Response:
        # Re-read through the selector so the response carries the list's annotations.
        return Response(CompetitionSerializer(competition_list().get(pk=competition.pk)).data, status=code)

    @extend_schema(request=any_format("create"), responses={201: any_format("output")})
    def create(self, request: Request) -> Response:
        """Create a competition of a format (a round robin if the body names none): the body's fields are
        those every competition has and the format's own settings (each format's shape in the schema); a
        setting the format does not have is a 400 naming it."""
        data = create_serializer(chosen_format_key(request.data))(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        club = fields.pop("club")
        player = viewing_player(request)
        role = None if player is None else club_role(club=club, player=player)
        if player is None or role is None:
            raise PermissionDenied("only members of the club may create its competitions")
        if not club.lets_create_competitions(role):
            raise PermissionDenied("in this club only organisers create competitions (its competition_creators)")
        competition = competition_create(
            club=club,
            created_by=player,
            name=fields.pop("name"),
            game=fields.pop("game"),
            format=fields.pop("format"),
            options=fields.pop("options"),
            seed=fields.pop("seed"),
            settings=fields,
        )
        return self._shown(competition, status.HTTP_201_CREATED)

    @extend_schema(request=any_format("update"), responses=any_format("output"))
    def partial_update(self, request: Request, pk: int) -> Response:
        """Change a competition: its name and referees at any time, each setting as its format says (most
        only while entries are open). A setting it does not have, or one that may not change now, is a 400
        naming it and saying why: a change is never dropped in silence."""
        competition = self.get_object()
        data = update_serializer(competition.format)(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        fields: dict[str, Any] = dict(data.validated_data)
        changed = competition_update(
            competition=competition,
            name=fields.pop("name", None),
            options=fields.pop("options", None),
            referees=fields.pop("referees", None),
            settings=fields,
        )
        return self._shown(changed)

    @extend_schema(request=CompetitionStartSerializer, responses=any_format("output"))
    @action(detail=True, methods=["post"])
    def start(self, request: Request, pk: int) -> Response:
        """Close entries and build every round; 400 with too few entrants.

        A challenge ladder starts from ``order`` (entrant ids, top place first) if given, else by rating.
        """
        competition = self.get_object()
        data = CompetitionStartSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return self._shown(competition_start(competition=competition, order=data.validated_data.get("order")))

    @extend_schema(request=None, responses=any_format("output"))
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: int) -> Response:
        """Stop the competition: pending matches are cancelled, recorded results stay."""
        return self._shown(competition_cancel(competition=self.get_object()))

    @extend_schema(request=None, responses=PlayOutcomeSerializer)
    @action(detail=True, methods=["post"])
    def play(self, request: Request, pk: int) -> Response:
        """Send the pending matches of the released rounds to the workers again (workers play them)."""
        competition = self.get_object()
        queued = competition_play_now(competition=competition)
        competition.refresh_from_db(fields=["status"])
        outcome = {"queued": queued, "status": competition.status, "progress": competition_progress(competition)}
        return Response(PlayOutcomeSerializer(outcome).data)

    @extend_schema(responses=RatingHistorySerializer(many=True), filters=False)
    @action(detail=True, methods=["get"], url_path="ratings/history", pagination_class=None, filter_backends=[])
    def rating_history(self, request: Request, pk: int) -> Response:
        """Every entrant's rating after each of its rated matches, for a chart of the ratings over time."""
        return Response(RatingHistorySerializer(rating_history(self.get_object()), many=True).data)

    @extend_schema(
        parameters=[HeadToHeadQuerySerializer],
        responses=HeadToHeadSerializer,
        filters=False,
    )
    @action(detail=True, methods=["get"], url_path="head-to-head", pagination_class=None, filter_backends=[])
    def head_to_head(self, request: Request, pk: int) -> Response:
        """Results between every two entrants in the done matches they shared: ahead, level or behind."""
        query = HeadToHeadQuerySerializer(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        competition = self.get_object()
        only = query.validated_data.get("entrant")
        entrants = competition.entrants.count()
        if only is not None and not competition.entrants.filter(pk=only).exists():
            raise NotFound(f"entrant {only} is not in this competition")
        if only is None and entrants > MAX_MATRIX_ENTRANTS:
            raise ValidationError(
                {"entrant": [f"{entrants} entrants make too large a matrix: ask for one row with ?entrant=<id>"]}
            )
        table = head_to_head(competition, only=only)
        rows = [
            {
                "entrant": row.entrant,
                "against": [
                    {"entrant": other.pk, **dataclasses.asdict(cell)}
                    for other, cell in zip(table.entrants, row.cells, strict=True)
                    if cell is not None
                ],
            }
            for row in table.rows
        ]
        return Response(HeadToHeadSerializer({"entrants": table.entrants, "rows": rows}).data)

    @extend_schema(responses=SeparationSerializer, filters=False)
    @action(detail=True, methods=["get"], pagination_class=None, filter_backends=[])
    def separation(self, request: Request, pk: int) -> Response:
        """Play to separation: the first entrant's results against the second, the sequential test's
        log-likelihood ratio and bounds, and its decision (H0, H1, continue, or cap)."""
        report = separation_of(self.get_object())
        if report is None:
            raise NotFound("this competition does not play to separation between two entrants")
        body = {
            "first": report.first,
            "second": report.second,
            **dataclasses.asdict(report.state),
            **dataclasses.asdict(report.verdict),
            "elo0": report.settings.elo0,
            "elo1": report.settings.elo1,
            "alpha": report.settings.alpha,
            "beta": report.settings.beta,
            "max_games": report.settings.max_games,
        }
        return Response(SeparationSerializer(body).data)

    @extend_schema(parameters=[OpponentsQuerySerializer], responses=OpponentsSerializer, filters=False)
    @action(detail=True, methods=["get"], pagination_class=None, filter_backends=[])
    def opponents(self, request: Request, pk: int) -> Response:
        """The table's first bot versions, best first, as opponents for the offline gauntlet
        (`python -m engine gauntlet --vs-ladder`, docs/gauntlet.md): a built-in version's strategy, an HTTP
        version's address to its owner only, an uploaded version by its kind alone (never its code)."""
        query = OpponentsQuerySerializer(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        # Only the competition's own row: the list's counts and staff are not part of this answer.
        competition = get_object_or_404(Competition.objects.all(), pk=pk)
        viewer = request.user.pk if request.user.is_authenticated else None
        found = top_opponents(competition, top=query.validated_data["top"], viewer_user_id=viewer)
        body = {"game": competition.game, "options": competition.options, "opponents": found}
        return Response(OpponentsSerializer(body).data)

    @extend_schema(responses=BracketSerializer, filters=False)
    @action(detail=True, methods=["get"], pagination_class=None, filter_backends=[])
    def bracket(self, request: Request, pk: int) -> Response:
        """A knockout's bracket: seeds, each round's tables (best first once played, who went on), byes,
        wildcards, who dropped to the lower bracket or went out, and the places so far."""
        competition = self.get_object()
        drawn = knockout_bracket(competition)
        if drawn is None:
            raise NotFound("this competition has no bracket: it is not a knockout, or it has not started")
        return Response(BracketSerializer(drawn).data)

    @extend_schema(responses=ProgressSerializer, filters=False)
    @action(detail=True, methods=["get"], pagination_class=None, filter_backends=[])
    def progress(self, request: Request, pk: int) -> Response:
        """Matches done out of total (by status), games recorded and games per second."""
        return Response(ProgressSerializer(competition_progress(self.get_object())).data)
