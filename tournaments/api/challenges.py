"""/api/tournaments/{id}/challenges/: a challenge ladder's challenges, its history. Anyone reads.

An entrant's side (the person, or the bot's owner) or an organiser issues a challenge for it,
accepts or declines for a defender, and withdraws for the challenger. The ladder's rules are the
services' (tournaments/services/challenges.py): 400 for a challenge they do not allow, 409 for a
challenge or an entrant in the wrong state.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch, QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response

from config.api_input import JSONInput
from config.schema import errors
from league.api.identity import viewing_player
from tournaments.api.permissions import answerable_player_id, is_organiser
from tournaments.api.scoping import CompetitionScoped, schema_only
from tournaments.api.serializers import MAX_SEED, EntrantBriefSerializer
from tournaments.models import Challenge, ChallengeSide, Entrant
from tournaments.services.challenges import challenge_accept, challenge_decline, challenge_issue, challenge_withdraw

# --- Shapes ---------------------------------------------------------------------------------------


class ChallengeSideSerializer(serializers.ModelSerializer[ChallengeSide]):
    entrant = EntrantBriefSerializer()

    class Meta:
        model = ChallengeSide
        fields = ["entrant", "role", "place", "accepted_at"]


class PlaceSerializer(serializers.Serializer[Any]):
    place = serializers.IntegerField()
    entrant = serializers.IntegerField()
    name = serializers.CharField()


class ChallengeSerializer(serializers.ModelSerializer[Challenge]):
    sides = ChallengeSideSerializer(many=True)
    places_before = serializers.SerializerMethodField(help_text="the places it decided, as they were")
    places_after = serializers.SerializerMethodField(help_text="the same places once it was decided")

    class Meta:
        model = Challenge
        fields = [
            "number",
            "status",
            "challenger",
            "sides",
            "issued_by",
            "issued_at",
            "deadline",
            "reminded_at",
            "accepted_at",
            "decided_at",
            "match",
            "outcome",
            "places_before",
            "places_after",
        ]
        read_only_fields = fields

    def _places(self, challenge: Challenge, entrants: list[int]) -> list[dict[str, Any]]:
        names: dict[int, str] = self.context.get("names") or dict(
            Entrant.objects.filter(pk__in=entrants).values_list("id", "name")
        )
        top = challenge.top_place or 1
        return [
            {"place": top + i, "entrant": entrant, "name": names.get(entrant, "")} for i, entrant in enumerate(entrants)
        ]

    @extend_schema_field(PlaceSerializer(many=True))
    def get_places_before(self, challenge: Challenge) -> list[dict[str, Any]]:
        return self._places(challenge, challenge.places_before)

    @extend_schema_field(PlaceSerializer(many=True))
    def get_places_after(self, challenge: Challenge) -> list[dict[str, Any]]:
        return self._places(challenge, challenge.places_after)


class ChallengeIssueSerializer(JSONInput[Challenge]):
    challenger = serializers.IntegerField(min_value=1, max_value=MAX_SEED, help_text="your entrant's id")
    defender = serializers.IntegerField(
        min_value=1,
        max_value=MAX_SEED,
        required=False,
        allow_null=True,
        default=None,
        help_text="the entrant challenged (two-player games); a multiplayer game challenges those directly above",
    )


class ChallengeAnswerSerializer(JSONInput[Challenge]):
    defender = serializers.IntegerField(
        min_value=1,
        max_value=MAX_SEED,
        required=False,
        allow_null=True,
        default=None,
        help_text="the defender answered for; left out, the one you answer for",
    )


# --- Views ----------------------------------------------------------------------------------------


class ChallengeViewSet(CompetitionScoped, mixins.ListModelMixin, viewsets.GenericViewSet[Challenge]):
    serializer_class = ChallengeSerializer
    permission_classes = [IsAuthenticatedOrReadOnly]
    lookup_field = "number"
    lookup_value_converter = "int"

    def get_queryset(self) -> QuerySet[Challenge]:
        if schema_only(self):
            return Challenge.objects.none()
        sides = ChallengeSide.objects.select_related("entrant__bot_version__bot").order_by("place")
        return (
            self.competition.challenges.select_related("challenger__bot_version__bot")
            .prefetch_related(Prefetch("sides", queryset=sides))
            .order_by("-number")
        )

    def get_serializer_context(self) -> dict[str, Any]:
        context = dict(super().get_serializer_context())
        if not schema_only(self):
            # The names of the places before and after, read once for the page.
            context["names"] = dict(self.competition.entrants.values_list("id", "name"))
        return context

    def _entrant(self, entrant_id: int, field: str) -> Entrant:
        entrant = self.competition.entrants.select_related("bot_version__bot").filter(pk=entrant_id).first()
        if entrant is None:
            raise ValidationError({field: [f"entrant {entrant_id} is not in this competition"]})
        return entrant

    def _may_act_for(self, request: Request, entrant: Entrant) -> bool:
        player = viewing_player(request)
        return (player is not None and answerable_player_id(entrant) == player.pk) or is_organiser(
            request, self.competition
        )

    def _shown(self, challenge: Challenge, code: int = status.HTTP_200_OK) -> Response:
        fresh = self.get_queryset().get(pk=challenge.pk)
        return Response(self.get_serializer(fresh).data, status=code)

    @extend_schema(responses=ChallengeSerializer)
    def retrieve(self, request: Request, **kwargs: Any) -> Response:
        return self._shown(get_object_or_404(self.get_queryset(), number=self.kwargs["number"]))

    @extend_schema(request=ChallengeIssueSerializer, responses={201: ChallengeSerializer})
    @errors(add=[409])
    def create(self, request: Request, **kwargs: Any) -> Response:
        """Challenge up the ladder: an entrant up to ``challenge_reach`` places above (two-player games), or
        the entrants directly above (multiplayer). Bots accept at once; a bot-only challenge is played at once."""
        data = ChallengeIssueSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        challenger = self._entrant(data.validated_data["challenger"], "challenger")
        if not self._may_act_for(request, challenger):
            raise PermissionDenied("you may challenge for yourself or your own bots; organisers for anyone")
        defender_id = data.validated_data["defender"]
        defender = None if defender_id is None else self._entrant(defender_id, "defender")
        player = viewing_player(request)
        assert player is not None  # IsAuthenticatedOrReadOnly
        challenge = challenge_issue(
            competition=self.competition, challenger=challenger, defender=defender, issued_by=player
        )
        return self._shown(challenge, status.HTTP_201_CREATED)

    def _defender(self, request: Request, number: int) -> Entrant:
        """The defender a request answers for: the one named, or the one side of the challenge the viewer
        answers for."""
        data = ChallengeAnswerSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        challenge = get_object_or_404(self.get_queryset(), number=number)
        defenders = [side.entrant for side in challenge.sides.all() if side.role == ChallengeSide.Role.DEFENDER]
        named = data.validated_data["defender"]
        if named is not None:
            chosen = [d for d in defenders if d.pk == named]
            if not chosen:
                raise ValidationError({"defender": [f"entrant {named} is not a defender in challenge {number}"]})
        else:
            player = viewing_player(request)
            chosen = [d for d in defenders if player is not None and answerable_player_id(d) == player.pk]
            if not chosen and is_organiser(request, self.competition):
                # An organiser answers for the one defender of a two-player challenge without naming it.
                chosen = defenders
            if len(chosen) > 1:
                raise ValidationError({"defender": ["name the defender you answer for"]})
        if not chosen or not self._may_act_for(request, chosen[0]):
            raise PermissionDenied("only a defender's side (or an organiser) answers a challenge")
        return chosen[0]

    @extend_schema(request=ChallengeAnswerSerializer, responses=ChallengeSerializer)
    @errors(add=[409])
    @action(detail=True, methods=["post"])
    def accept(self, request: Request, **kwargs: Any) -> Response:
        """A defender accepts; when every defender has, the match is played (a bot's at once, a person's at a
        live table or from a transcript)."""
        number = self.kwargs["number"]
        defender = self._defender(request, number)
        return self._shown(challenge_accept(competition=self.competition, number=number, defender=defender))

    @extend_schema(request=ChallengeAnswerSerializer, responses=ChallengeSerializer)
    @errors(add=[409])
    @action(detail=True, methods=["post"])
    def decline(self, request: Request, **kwargs: Any) -> Response:
        """A defender declines, and so forfeits: the challenger moves up past it."""
        number = self.kwargs["number"]
        defender = self._defender(request, number)
        return self._shown(challenge_decline(competition=self.competition, number=number, defender=defender))

    @extend_schema(request=None, responses=ChallengeSerializer)
    @errors(add=[409], drop=[400])
    @action(detail=True, methods=["post"])
    def withdraw(self, request: Request, **kwargs: Any) -> Response:
        """The challenger takes the challenge back before it is accepted; nobody moves."""
        number = self.kwargs["number"]
        challenge = get_object_or_404(self.get_queryset(), number=number)
        if not self._may_act_for(request, challenge.challenger):
            raise PermissionDenied("only the challenger's side (or an organiser) withdraws a challenge")
        return self._shown(challenge_withdraw(competition=self.competition, number=number))
