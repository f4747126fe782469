"""/api/matches/: anyone reads matches and their games' breakdowns (sets or a race); organisers retry failed matches."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer

from engine.games.profile import Race, SetTable
from tournaments.api.filters import MatchFilter
from tournaments.api.permissions import IsOrganiserOrReadOnly
from tournaments.api.scoping import MatchScoped
from tournaments.api.serializers import (
    BotRunSerializer,
    GameRaceSerializer,
    GameSetTableSerializer,
    MatchDetailSerializer,
    MatchSerializer,
)
from tournaments.models import Game, Match
from tournaments.selectors import bot_runs_owned, breakdown_of, match_breakdown, match_detail, match_list
from tournaments.services.play import match_retry


class MatchViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[Match]):
    """Matches with participants and games; one match also lists its games' stored sets or race rounds."""

    filterset_class = MatchFilter
    permission_classes = [IsAuthenticatedOrReadOnly, IsOrganiserOrReadOnly]
    lookup_value_converter = "int"

    def get_queryset(self) -> QuerySet[Match]:
        return match_list() if self.action == "list" else match_detail()

    def get_serializer_class(self) -> type[BaseSerializer[Match]]:
        return MatchSerializer if self.action == "list" else MatchDetailSerializer

    @extend_schema(request=None, responses=MatchDetailSerializer)
    @action(detail=True, methods=["post"])
    def retry(self, request: Request, pk: int) -> Response:
        """Send a match in error back to pending; the next play (or worker) plays it again."""
        match = match_retry(match=self.get_object())
        return Response(MatchDetailSerializer(match_detail().get(pk=match.pk)).data)

    # Not paginated (a match has a few bots), and so documented: the schema said a page of them (issue 11, 5).
    # No filters either: the match's own runs, whatever the query string says.
    @extend_schema(responses=BotRunSerializer(many=True), filters=False)
    @action(
        detail=True, methods=["get"], permission_classes=[IsAuthenticated], pagination_class=None, filter_backends=[]
    )
    def logs(self, request: Request, pk: int) -> Response:
        """The logs of this match's uploaded and HTTP bots that the caller owns; nobody sees another's."""
        match = get_object_or_404(Match.objects.all(), pk=pk)
        return Response(BotRunSerializer(bot_runs_owned(match=match, user=request.user), many=True).data)


def _names(match: Match) -> dict[int, str]:
    return dict(match.participants.values_list("entrant_id", "entrant__name"))


class _BreakdownView(MatchScoped, viewsets.GenericViewSet[Game]):
    """A match's breakdown of one kind (``Race`` or ``SetTable``): a 404 for a game whose profile has another."""

    kind: type[Race] | type[SetTable]

    def get_queryset(self) -> QuerySet[Game]:
        # The rows come from a selector; this queryset only tells the schema generator the model.
        return Game.objects.none()

    def breakdown(self) -> Any:
        game = self.match.competition.game
        breakdown = breakdown_of(game)
        if not isinstance(breakdown, self.kind):
            raise Http404(f"this match's game ({game}) has no {self.kind.kind}: see /api/games/ for its results")
        return breakdown


class MatchRaceViewSet(_BreakdownView):
    """A race to a target (Banter's to 40): each side's points after every round, play-on marked; a page per game."""

    serializer_class = GameRaceSerializer
    kind = Race

    def list(self, request: Request, **kwargs: Any) -> Response:
        race: Race = self.breakdown()
        names = _names(self.match)
        races = [
            {
                "game": game.game.pk,
                "number": game.game.number,
                "target": race.target,
                "winner": game.game.winner_id,
                "rounds": [
                    {
                        "number": row.number,
                        "play_on": row.marked,
                        "passed_target": row.past_target,
                        "points": [
                            {"entrant": entrant, "name": names.get(entrant, ""), **cell}
                            for entrant, cell in sorted(row.cells.items())
                        ],
                    }
                    for row in game.rows
                ],
            }
            for game in match_breakdown(self.match)
        ]
        page = self.paginate_queryset(races)
        return self.get_paginated_response(GameRaceSerializer(page, many=True).data)


class MatchSetViewSet(_BreakdownView):
    """A game played in sets (1923): every set of every game with each entrant's figures; a page per game."""

    serializer_class = GameSetTableSerializer
    kind = SetTable

    def list(self, request: Request, **kwargs: Any) -> Response:
        table: SetTable = self.breakdown()
        names = _names(self.match)
        columns = [{"key": column.key, "label": column.label} for column in table.columns]
        tables = [
            {
                "game": game.game.pk,
                "number": game.game.number,
                "winner": game.game.winner_id,
                "columns": columns,
                "sets": [
                    {
                        "number": row.number,
                        "scores": [
                            {"entrant": entrant, "name": names.get(entrant, ""), "figures": figures}
                            for entrant, figures in sorted(row.cells.items())
                        ],
                    }
                    for row in game.rows
                ],
            }
            for game in match_breakdown(self.match)
        ]
        page = self.paginate_queryset(tables)
        return self.get_paginated_response(GameSetTableSerializer(page, many=True).data)
