"""/api/matches/: anyone reads matches, Banter races and 1923 set tables; organisers retry failed matches."""

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
from tournaments.selectors import BANTER_TARGET, bot_runs_owned, match_detail, match_list, match_race, match_set_table
from tournaments.services.play import match_retry


class MatchViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[Match]):
    """Matches with participants and games; one match also lists its stored sets (1923) or rounds (Banter)."""

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


class _GamesOfOneKind(MatchScoped, viewsets.GenericViewSet[Game]):
    """A per-game view that exists only for one game's matches; for any other game it is a 404."""

    game_name: str

    def get_queryset(self) -> QuerySet[Game]:
        # The rows come from a selector; this queryset only tells the schema generator the model.
        return Game.objects.none()

    def checked_match(self) -> Match:
        if self.match.competition.game != self.game_name:
            raise Http404(f"only {self.game_name} matches have this view; this one is {self.match.competition.game}")
        return self.match


class MatchRaceViewSet(_GamesOfOneKind):
    """Banter: each side's points after every round on the way to 40, play-on rounds marked; a page per game."""

    serializer_class = GameRaceSerializer
    game_name = "banter"

    def list(self, request: Request, **kwargs: Any) -> Response:
        match = self.checked_match()
        names = _names(match)
        races = [
            {
                "game": race.game.pk,
                "number": race.game.number,
                "target": BANTER_TARGET,
                "winner": race.game.winner_id,
                "rounds": [
                    {
                        "number": row.number,
                        "play_on": row.play_on,
                        "passed_target": row.passed_target,
                        "points": [
                            {"entrant": entrant, "name": names.get(entrant, ""), "points": points, "total": total}
                            for entrant, (points, total) in sorted(row.points.items())
                        ],
                    }
                    for row in race.rounds
                ],
            }
            for race in match_race(match)
        ]
        page = self.paginate_queryset(races)
        return self.get_paginated_response(GameRaceSerializer(page, many=True).data)


class MatchSetViewSet(_GamesOfOneKind):
    """1923: every set of every game with each entrant's cards, Aces and points; a page per game."""

    serializer_class = GameSetTableSerializer
    game_name = "1923"

    def list(self, request: Request, **kwargs: Any) -> Response:
        match = self.checked_match()
        names = _names(match)
        tables = [
            {
                "game": game.pk,
                "number": game.number,
                "winner": game.winner_id,
                "sets": [
                    {
                        "number": row.number,
                        "scores": [
                            {
                                "entrant": int(entrant),
                                "name": names.get(int(entrant), ""),
                                **{key: figures.get(key, 0) for key in ("cards", "aces", "points")},
                            }
                            for entrant, figures in sorted(row.scores.items(), key=lambda item: int(item[0]))
                        ],
                    }
                    for row in sets
                ],
            }
            for game, sets in match_set_table(match)
        ]
        page = self.paginate_queryset(tables)
        return self.get_paginated_response(GameSetTableSerializer(page, many=True).data)
