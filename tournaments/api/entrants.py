"""/api/tournaments/{id}/entrants/: who is in. Owners enter their own bots, club members themselves; organisers
enter any bot and any member of the club."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response

from config.schema import errors
from league.api.identity import viewing_player
from league.models import Player
from tournaments.api.permissions import answerable_player_id, is_organiser
from tournaments.api.scoping import CompetitionScoped, schema_only
from tournaments.api.serializers import EntrantJoinSerializer, EntrantSerializer
from tournaments.models import Entrant
from tournaments.selectors import competition_entrants
from tournaments.services.competitions import entrant_join, entrant_withdraw, is_club_member


def _answers_for(entrant_owner: int | None, player: Player | None) -> bool:
    return player is not None and entrant_owner == player.pk


def _one_of_two(given: str, absent: str) -> dict[str, Any]:
    return {
        "type": "object",
        "title": given,
        "properties": {
            given: {"type": "integer", "description": f"the {given}'s id"},
            absent: {"type": "integer", "nullable": True, "enum": [None], "description": "null, or left out"},
        },
        "required": [given],
    }


#: EntrantJoinSerializer as the schema states it: exactly one of the two ids.
JOIN_REQUEST = {"oneOf": [_one_of_two("bot_version", "player"), _one_of_two("player", "bot_version")]}


class EntrantViewSet(CompetitionScoped, mixins.ListModelMixin, viewsets.GenericViewSet[Entrant]):
    serializer_class = EntrantSerializer
    lookup_value_converter = "int"

    def get_queryset(self) -> QuerySet[Entrant]:
        if schema_only(self):
            return Entrant.objects.none()
        return competition_entrants(competition=self.competition)

    @extend_schema(request={"application/json": JOIN_REQUEST}, responses={201: EntrantSerializer})
    def create(self, request: Request, **kwargs: Any) -> Response:
        """Join: a bot owner enters a ready version of their bot, a person themself; an organiser adds anyone."""
        data = EntrantJoinSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        version, person = data.validated_data["bot_version"], data.validated_data["player"]
        player = viewing_player(request)
        owner = version.bot.owner_id if version is not None else person.pk
        if not (_answers_for(owner, player) or is_organiser(request, self.competition)):
            raise PermissionDenied("you may enter your own bots or yourself; organisers may enter anyone")
        club = self.competition.club
        entering_self = person is not None and _answers_for(person.pk, player)
        if entering_self and not is_club_member(club_id=club.pk, player=person):
            # Entering oneself is a right of the club's members; an organiser entering an outsider is a 400 below.
            raise PermissionDenied(f"only members of {club.name} may enter")
        entrant = entrant_join(competition=self.competition, bot_version=version, player=person)
        return Response(EntrantSerializer(entrant).data, status=status.HTTP_201_CREATED)

    @extend_schema(responses={204: None})
    @errors(add=[409])
    def destroy(self, request: Request, **kwargs: Any) -> Response:
        """Leave (the entrant's owner) or remove (an organiser), before the competition starts; a running ladder's
        entrant may leave at any time it is in no open challenge (409), and keeps its results."""
        entrant = get_object_or_404(self.get_queryset(), pk=self.kwargs["pk"])
        owner = answerable_player_id(entrant)
        if not (_answers_for(owner, viewing_player(request)) or is_organiser(request, self.competition)):
            raise PermissionDenied("only the entrant's owner or the competition's organisers may remove it")
        entrant_withdraw(entrant=entrant)
        return Response(status=status.HTTP_204_NO_CONTENT)
