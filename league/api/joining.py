"""Joining clubs: invitations an organiser makes and anyone with the code accepts, and join requests.

- /api/clubs/{club}/invitations/: the club's invitations (organisers); POST makes one; …/{id}/revoke/.
- /api/invitations/{code}/: what a code admits to (signed in); …/accept/ joins.
- /api/clubs/{club}/join-requests/: the club's requests (organisers see all, others their own);
  …/{id}/accept/ and …/decline/ (organisers), …/withdraw/ (the one who asked).
Asking to join and leaving are actions on the club (league/api/clubs.py).
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
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
from league.api.identity import acting_player, viewing_player
from league.api.permissions import is_club_organiser
from league.api.serializers import (
    InvitationCreateSerializer,
    InvitationSerializer,
    JoinRequestSerializer,
    MembershipSerializer,
)
from league.joining import (
    invitation_accept,
    invitation_create,
    invitation_revoke,
    join_request_decide,
    join_request_withdraw,
)
from league.models import Club, Invitation, JoinRequest


class InClub:
    kwargs: dict[str, Any]

    @cached_property
    def club(self) -> Club:
        return get_object_or_404(Club, pk=self.kwargs["club_pk"])

    def require_organiser(self, request: Request, what: str) -> None:
        if not is_club_organiser(request, self.club):
            raise PermissionDenied(f"only the club's organisers may {what}")


class ClubInvitationViewSet(InClub, mixins.ListModelMixin, viewsets.GenericViewSet[Invitation]):
    """A club's invitations, newest first: its organisers' to make, list and withdraw."""

    serializer_class = InvitationSerializer
    permission_classes = [IsAuthenticated]
    lookup_value_converter = "int"

    def get_queryset(self) -> QuerySet[Invitation]:
        if getattr(self, "swagger_fake_view", False):  # the schema generator has no URL kwargs
            return Invitation.objects.none()
        return Invitation.objects.filter(club=self.club).select_related("club")

    @errors(add=[403])
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        self.require_organiser(request, "see its invitations")
        return super().list(request, *args, **kwargs)

    @extend_schema(request=InvitationCreateSerializer, responses={201: InvitationSerializer})
    def create(self, request: Request, **kwargs: Any) -> Response:
        """Make a code that admits up to ``max_uses`` people in ``role`` for ``days`` days."""
        self.require_organiser(request, "invite people")
        data = InvitationCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        invitation = invitation_create(club=self.club, created_by=acting_player(request), **data.validated_data)
        return Response(InvitationSerializer(invitation).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses=InvitationSerializer)
    @errors(drop=[400])
    @action(detail=True, methods=["post"])
    def revoke(self, request: Request, pk: int, **kwargs: Any) -> Response:
        """Withdraw the code: it admits no one from now on (those it admitted stay members)."""
        self.require_organiser(request, "withdraw its invitations")
        invitation = invitation_revoke(invitation=get_object_or_404(self.get_queryset(), pk=pk))
        return Response(InvitationSerializer(invitation).data)


class InvitationViewSet(mixins.RetrieveModelMixin, viewsets.GenericViewSet[Invitation]):
    """An invitation by its code: what it admits to, and accepting it."""

    serializer_class = InvitationSerializer
    permission_classes = [IsAuthenticated]
    lookup_field = "code"
    lookup_value_converter = "str"
    queryset = Invitation.objects.select_related("club")

    @extend_schema(request=None, responses={201: MembershipSerializer})
    @errors(add=[409], drop=[400])
    @action(detail=True, methods=["post"])
    def accept(self, request: Request, code: str) -> Response:
        """Join the club in the invitation's role; 409 if it expired, was withdrawn or is used up."""
        invitation = self.get_object()
        membership = invitation_accept(code=invitation.code, player=acting_player(request))
        return Response(MembershipSerializer(membership).data, status=status.HTTP_201_CREATED)


class JoinRequestViewSet(InClub, mixins.ListModelMixin, viewsets.GenericViewSet[JoinRequest]):
    """Requests to join a club: its organisers see and decide them all; anyone else sees their own."""

    serializer_class = JoinRequestSerializer
    permission_classes = [IsAuthenticated]
    lookup_value_converter = "int"

    def get_queryset(self) -> QuerySet[JoinRequest]:
        if getattr(self, "swagger_fake_view", False):
            return JoinRequest.objects.none()
        requests = JoinRequest.objects.filter(club=self.club).select_related("player")
        if is_club_organiser(self.request, self.club):
            return requests
        own = viewing_player(self.request)
        return requests.filter(player=own) if own is not None else requests.none()

    def _decide(self, pk: int, *, accept: bool) -> Response:
        self.require_organiser(self.request, "decide who joins")
        join_request = get_object_or_404(self.get_queryset(), pk=pk)
        decided = join_request_decide(join_request=join_request, organiser=acting_player(self.request), accept=accept)
        return Response(JoinRequestSerializer(decided).data)

    @extend_schema(request=None, responses=JoinRequestSerializer)
    @errors(add=[409], drop=[400])
    @action(detail=True, methods=["post"])
    def accept(self, request: Request, pk: int, **kwargs: Any) -> Response:
        """The player becomes a member."""
        return self._decide(pk, accept=True)

    @extend_schema(request=None, responses=JoinRequestSerializer)
    @errors(add=[409], drop=[400])
    @action(detail=True, methods=["post"])
    def decline(self, request: Request, pk: int, **kwargs: Any) -> Response:
        return self._decide(pk, accept=False)

    @extend_schema(request=None, responses=JoinRequestSerializer)
    @errors(add=[409], drop=[400])
    @action(detail=True, methods=["post"])
    def withdraw(self, request: Request, pk: int, **kwargs: Any) -> Response:
        """The one who asked takes the request back."""
        join_request = get_object_or_404(self.get_queryset(), pk=pk)
        if join_request.player.user_id != request.user.pk:
            raise DjangoPermissionDenied("only the one who asked may withdraw a request")
        return Response(JoinRequestSerializer(join_request_withdraw(join_request=join_request)).data)
