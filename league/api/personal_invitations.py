"""Personal invitations over the API (league.personal_invitations): an organiser's offer to one person.

- /api/clubs/{club}/personal-invitations/: the club's, for its organisers; …/{id}/withdraw/.
- /api/players/me/invitations/: the caller's own; …/{id}/accept/ (they join) and …/{id}/decline/.
Organisers make them with POST /api/clubs/{club}/members/ (league/api/clubs.py).
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from config.schema import errors
from league.api.identity import acting_player, viewing_player
from league.api.joining import InClub
from league.api.serializers import MembershipSerializer, PersonalInvitationSerializer
from league.models import PersonalInvitation
from league.personal_invitations import (
    personal_invitation_accept,
    personal_invitation_decline,
    personal_invitation_withdraw,
)


def _with_names(invitations: QuerySet[PersonalInvitation]) -> QuerySet[PersonalInvitation]:
    return invitations.select_related("club", "player")


class ClubPersonalInvitationViewSet(InClub, mixins.ListModelMixin, viewsets.GenericViewSet[PersonalInvitation]):
    """The people a club's organisers have invited, newest first, answered or not."""

    serializer_class = PersonalInvitationSerializer
    permission_classes = [IsAuthenticated]
    lookup_value_converter = "int"

    def get_queryset(self) -> QuerySet[PersonalInvitation]:
        if getattr(self, "swagger_fake_view", False):  # the schema generator has no URL kwargs
            return PersonalInvitation.objects.none()
        return _with_names(PersonalInvitation.objects.filter(club=self.club))

    @errors(add=[403])
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        self.require_organiser(request, "see whom it has invited")
        return super().list(request, *args, **kwargs)

    @extend_schema(request=None, responses=PersonalInvitationSerializer)
    @errors(add=[409], drop=[400])
    @action(detail=True, methods=["post"])
    def withdraw(self, request: Request, pk: int, **kwargs: Any) -> Response:
        """Take back an invitation not yet answered (409 once it is)."""
        self.require_organiser(request, "withdraw its invitations")
        invitation = personal_invitation_withdraw(invitation=get_object_or_404(self.get_queryset(), pk=pk))
        return Response(PersonalInvitationSerializer(invitation).data)


class MyInvitationViewSet(mixins.ListModelMixin, viewsets.GenericViewSet[PersonalInvitation]):
    """The caller's invitations to clubs, newest first; only the invited person sees or answers one."""

    serializer_class = PersonalInvitationSerializer
    permission_classes = [IsAuthenticated]
    lookup_value_converter = "int"

    def get_queryset(self) -> QuerySet[PersonalInvitation]:
        if getattr(self, "swagger_fake_view", False):
            return PersonalInvitation.objects.none()
        me = viewing_player(self.request)
        invitations = (
            PersonalInvitation.objects.filter(player=me) if me is not None else PersonalInvitation.objects.none()
        )
        return _with_names(invitations)

    def _mine(self, pk: int) -> PersonalInvitation:
        # Someone else's invitation is not in the caller's list: a 404, as if it did not exist.
        return get_object_or_404(self.get_queryset(), pk=pk)

    @extend_schema(request=None, responses={201: MembershipSerializer})
    @errors(add=[409], drop=[400])
    @action(detail=True, methods=["post"])
    def accept(self, request: Request, pk: int) -> Response:
        """Join the club in the role offered; 409 if the invitation was answered or withdrawn, or you are a member."""
        membership = personal_invitation_accept(invitation=self._mine(pk), player=acting_player(request))
        return Response(MembershipSerializer(membership).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses=PersonalInvitationSerializer)
    @errors(add=[409], drop=[400])
    @action(detail=True, methods=["post"])
    def decline(self, request: Request, pk: int) -> Response:
        """Say no; the club's organisers may invite you again later."""
        invitation = personal_invitation_decline(invitation=self._mine(pk), player=acting_player(request))
        return Response(PersonalInvitationSerializer(invitation).data)
