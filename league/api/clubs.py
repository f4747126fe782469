"""/api/clubs/ and /api/clubs/{id}/members/: anyone reads; the creator organises; organisers add people."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response

from league.api.filters import ClubFilter, MembershipFilter
from league.api.identity import acting_player
from league.api.permissions import is_club_organiser
from league.api.serializers import (
    ClubCreateSerializer,
    ClubSerializer,
    ClubUpdateSerializer,
    MembershipCreateSerializer,
    MembershipSerializer,
)
from league.models import Club, Membership
from league.selectors import club_list, club_memberships
from league.services import club_add_member, club_create, club_update


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
        return Response(ClubSerializer(club_list().get(pk=club.pk)).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=ClubUpdateSerializer, responses=ClubSerializer)
    def partial_update(self, request: Request, pk: int) -> Response:
        """An organiser renames the club or says who may create its competitions."""
        club = self.get_object()
        if not is_club_organiser(request, club):
            raise PermissionDenied("only the club's organisers may change it")
        data = ClubUpdateSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        club_update(club=club, **data.validated_data)
        return Response(ClubSerializer(club_list().get(pk=club.pk)).data)


class MembershipViewSet(mixins.ListModelMixin, viewsets.GenericViewSet[Membership]):
    """A club's members with their roles; an organiser adds a member, or changes one's role by adding again."""

    serializer_class = MembershipSerializer
    filterset_class = MembershipFilter

    @cached_property
    def club(self) -> Club:
        return get_object_or_404(Club, pk=self.kwargs["club_pk"])

    def get_queryset(self) -> QuerySet[Membership]:
        if getattr(self, "swagger_fake_view", False):  # the schema generator has no URL kwargs
            return Membership.objects.none()
        return club_memberships(club=self.club)

    @extend_schema(request=MembershipCreateSerializer, responses={201: MembershipSerializer, 200: MembershipSerializer})
    def create(self, request: Request, **kwargs: Any) -> Response:
        if not is_club_organiser(request, self.club):
            raise PermissionDenied("only the club's organisers may add members")
        data = MembershipCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        player = data.validated_data["player"]
        existed = club_memberships(club=self.club).filter(player=player).exists()
        membership = club_add_member(club=self.club, player=player, role=data.validated_data["role"])
        code = status.HTTP_200_OK if existed else status.HTTP_201_CREATED
        return Response(MembershipSerializer(membership).data, status=code)
