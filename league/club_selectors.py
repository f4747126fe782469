"""Reads for the club pages of the site: the roll, a person's standing with a club, and an organiser's queues.

Each selector owns its joins and its bound, so a page costs the same queries whatever the club's size.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Case, F, IntegerField, QuerySet, Value, When
from django.utils import timezone

from league.models import Club, Invitation, JoinRequest, Membership, PersonalInvitation, Player

#: The most members a club's page lists; the rest are counted (the organisers' members page lists them all).
ROLL_SHOWN = 100


def club_by_slug(slug: str) -> QuerySet[Club]:
    """The club a page's address names, whatever the case it is typed in (slugs are unique in any case)."""
    return Club.objects.filter(slug__iexact=slug)


def club_roll(*, club: Club, limit: int | None = None) -> QuerySet[Membership]:
    """The club's members, organisers first, then referees, then members, each by name."""
    rank = Case(
        When(role=Membership.Role.ORGANISER, then=Value(0)),
        When(role=Membership.Role.REFEREE, then=Value(1)),
        default=Value(2),
        output_field=IntegerField(),
    )
    roll = (
        Membership.objects.filter(club=club)
        .select_related("player__user")
        .annotate(rank=rank)
        .order_by("rank", "player__display_name", "id")
    )
    return roll[:limit] if limit is not None else roll


@dataclass(frozen=True)
class Standing:
    """Where a signed-in person stands with one club: their membership, their open request, offers to them."""

    membership: Membership | None
    pending_request: JoinRequest | None
    invitations: list[PersonalInvitation]


def standing_with(*, club: Club, player: Player | None) -> Standing:
    if player is None:
        return Standing(membership=None, pending_request=None, invitations=[])
    membership = Membership.objects.filter(club=club, player=player).first()
    if membership is not None:
        return Standing(membership=membership, pending_request=None, invitations=[])
    pending = JoinRequest.objects.filter(club=club, player=player, status=JoinRequest.Status.PENDING).first()
    offers = PersonalInvitation.objects.filter(club=club, player=player, status=PersonalInvitation.Status.PENDING)
    return Standing(membership=None, pending_request=pending, invitations=list(offers.select_related("invited_by")))


def pending_join_requests(*, club: Club) -> QuerySet[JoinRequest]:
    """What waits for the club's organisers, oldest first: first asked, first answered."""
    return (
        JoinRequest.objects.filter(club=club, status=JoinRequest.Status.PENDING)
        .select_related("player__user")
        .order_by("created_at", "id")
    )


def open_invitation_links(*, club: Club) -> QuerySet[Invitation]:
    """The club's codes that still admit someone, newest first."""
    now = timezone.now()
    return (
        Invitation.objects.filter(club=club, revoked_at__isnull=True, expires_at__gt=now)
        .filter(uses__lt=F("max_uses"))
        .select_related("created_by")
        .order_by("-created_at", "-id")
    )


def pending_personal_invitations(*, club: Club) -> QuerySet[PersonalInvitation]:
    """The club's offers to particular people that wait for an answer, newest first."""
    return (
        PersonalInvitation.objects.filter(club=club, status=PersonalInvitation.Status.PENDING)
        .select_related("player__user", "invited_by")
        .order_by("-created_at", "-id")
    )
