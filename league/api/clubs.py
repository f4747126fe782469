"""/api/clubs/ and /api/clubs/{id}/members/: anyone reads; the creator organises; organisers change members'
roles, invite people (who accept or decline) and remove members; anyone asks to join (…/join/) as the club
allows, and a member leaves (…/leave/). Invitation codes and join requests are league/api/joining.py, personal
invitations league/api/personal_invitations.py."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from config.schema import errors
from league.api.filters import ClubFilter, MembershipFilter
from league.api.identity import acting_player
from league.api.permissions import is_club_organiser
from league.api.serializers import (
    ClubCreateSerializer,
    ClubJoinSerializer,
    ClubSerializer,
    ClubUpdateSerializer,
    JoinRequestSerializer,
    MembershipCreateSerializer,
    MembershipSerializer,
    PersonalInvitationSerializer,
)
from league.joining import club_join, club_remove_member, club_set_role
from league.models import Club, Membership
from league.personal_invitations import club_invite
from league.selectors import club_list, club_memberships
from league.services import club_create, club_update


class ClubViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[Club]):
    serializer_class = ClubSerializer
    filterset_class = ClubFilter
    lookup_value_converter = "int"

    def get_queryset(self) -> QuerySet[Club]:
        return club_list()

    @extend_schema(request=ClubCreateSerializer, responses={201: ClubSerializer})
    def create(self, request: Request) -> Response:
        data = ClubCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        club = club_create(organiser=acting_player(request), **data.validated_data)
        shown = ClubSerializer(club_list().get(pk=club.pk), context={"request": request})
        return Response(shown.data, status=status.HTTP_201_CREATED)

    @extend_schema(request=ClubUpdateSerializer, responses=ClubSerializer)
    def partial_update(self, request: Request, pk: int) -> Response:
        """An organiser renames the club or says who may create its competitions."""
        club = self.get_object()
        if not is_club_organiser(request, club):
            raise PermissionDenied("only the club's organisers may change it")
        data = ClubUpdateSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        club_update(club=club, **data.validated_data)
        return Response(ClubSerializer(club_list().get(pk=club.pk), context={"request": request}).data)

    @extend_schema(request=ClubJoinSerializer, responses={201: MembershipSerializer, 202: JoinRequestSerializer})
    @errors(add=[409])
    @action(detail=True, methods=["post"], permission_classes=[IsAuthenticated])
    def join(self, request: Request, pk: int) -> Response:
        """Join an open club at once (201), or ask to join one that admits by request (202, the request).

        A club that admits by invitation only refuses (403): accept an invitation's code instead.
        """
        data = ClubJoinSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        joined = club_join(club=self.get_object(), player=acting_player(request), **data.validated_data)
        if joined.membership is not None:
            return Response(MembershipSerializer(joined.membership).data, status=status.HTTP_201_CREATED)
        return Response(JoinRequestSerializer(joined.request).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(request=None, responses={204: None})
    @errors(add=[409], drop=[400])
    @action(detail=True, methods=["post"], permission_classes=[IsAuthenticated])
    def leave(self, request: Request, pk: int) -> Response:
        """Leave the club; results in its competitions stay. Its last organiser cannot leave (409)."""
        club_remove_member(club=self.get_object(), player=acting_player(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class MembershipViewSet(mixins.ListModelMixin, viewsets.GenericViewSet[Membership]):
    """A club's members with their roles; an organiser changes a member's role, invites someone else (who
    becomes a member by accepting), or removes a member (their results stay)."""

    serializer_class = MembershipSerializer
    filterset_class = MembershipFilter
    lookup_value_converter = "int"

    @cached_property
    def club(self) -> Club:
        return get_object_or_404(Club, pk=self.kwargs["club_pk"])

    def get_queryset(self) -> QuerySet[Membership]:
        if getattr(self, "swagger_fake_view", False):  # the schema generator has no URL kwargs
            return Membership.objects.none()
        return club_memberships(club=self.club)

    @extend_schema(
        request=MembershipCreateSerializer,
        responses={200: MembershipSerializer, 202: PersonalInvitationSerializer},
    )
    @errors(add=[409])
    def create(self, request: Request, **kwargs: Any) -> Response:
        """A member's new role (200); anyone else is invited in the role (202, the pending invitation, the same one
        if asked again) and is a member only once they accept it. The club's last organiser cannot step down (409).
        """
        if not is_club_organiser(request, self.club):
            raise PermissionDenied("only the club's organisers may change roles or invite people")
        data = MembershipCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        player, role = data.validated_data["player"], data.validated_data["role"]
        organiser = acting_player(request)
        if club_memberships(club=self.club).filter(player=player).exists():
            membership = club_set_role(club=self.club, player=player, role=role, by=organiser)
            return Response(MembershipSerializer(membership).data, status=status.HTTP_200_OK)
        invitation = club_invite(club=self.club, player=player, role=role, invited_by=organiser)
        return Response(PersonalInvitationSerializer(invitation).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(responses={204: None})
    @errors(add=[409])
    def destroy(self, request: Request, pk: int, **kwargs: Any) -> Response:
        """Remove a member by their membership's id; the club's last organiser cannot be removed (409)."""
        if not is_club_organiser(request, self.club):
            raise PermissionDenied("only the club's organisers may remove members")
        membership = get_object_or_404(club_memberships(club=self.club), pk=pk)
        club_remove_member(club=self.club, player=membership.player, by=acting_player(request))
        return Response(status=status.HTTP_204_NO_CONTENT)
