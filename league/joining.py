"""Becoming and ceasing to be a club's member: joining, invitations, join requests, leaving.

A club says how people join (``Club.joining``): at once, by a request an organiser
decides, or only with an invitation code. Leaving or being removed deletes the
membership only: entrants and their results belong to competitions, not to the club
roll, so a past member's results stay.

Every change that counts or decides (an invitation's uses, a request's status, a role
or a removal that could take the last organiser) runs under the row's lock, so two
people racing for an invitation's last use, two organisers deciding one request, or
two organisers demoting each other, cannot both win. Codes and personal invitations are an
organiser's offers, made and withdrawn under the club row's lock: they go when the organiser's
role does (removed, leaving, demoted), so none brings the role back.

Organisers bring a particular person in by a personal invitation the person answers
(league.personal_invitations); no API path makes anyone a member without their say.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import F
from django.urls import reverse
from django.utils import timezone

from league.errors import Conflict
from league.models import Club, Invitation, JoinRequest, Membership, PersonalInvitation, Player
from league.notifications.kinds import Kind
from league.notifications.services import notify
from league.organiser_staff import staff_follows_organiser_role
from league.webhooks.services import club_event

#: An invitation lives at most this long, and at least an hour.
MAX_INVITATION_DAYS = 90
#: The most people one invitation admits.
MAX_INVITATION_USES = 1000


@dataclass(frozen=True)
class Joined:
    """What asking to join gave: a membership at once (an open club), or a request to decide."""

    membership: Membership | None = None
    request: JoinRequest | None = None


def _refuse_member(club: Club, player: Player) -> None:
    if Membership.objects.filter(club=club, player=player).exists():
        raise Conflict(f"you are already a member of {club.name}")


def admit(club: Club, player: Player, role: str) -> Membership:
    """The membership a person asked for or accepted (never one an organiser imposes); a Conflict if they have one."""
    try:
        with transaction.atomic():
            membership = Membership.objects.create(club=club, player=player, role=role)
            if role == Membership.Role.ORGANISER:  # an organiser's code or invitation: the admin opens too
                staff_follows_organiser_role(player=player)
            return membership
    except IntegrityError:  # joined another way at the same moment
        raise Conflict(f"you are already a member of {club.name}") from None


def _tell_organisers(club: Club, player: Player, note: str) -> None:
    notify(
        players=club.memberships.filter(role=Membership.Role.ORGANISER).values_list("player_id", flat=True),
        kind=Kind.JOIN_REQUEST,
        title=f"{player.display_name} asks to join {club.name}",
        body=f"Their note: “{note.strip()}”" if note.strip() else "Accept or decline the request.",
        link=reverse("site:club-requests", args=[club.slug]),
        club=club,
    )
    # The club's chat hears who asks, not their note (it is written to the organisers).
    club_event(
        club_id=club.pk,
        kind=Kind.JOIN_REQUEST,
        text=f"{player.display_name} asks to join {club.name}",
        link=reverse("site:club-requests", args=[club.slug]),
        data={"player": player.pk},
    )


def club_join(*, club: Club, player: Player, note: str = "") -> Joined:
    """Join an open club at once, or ask to join one that admits by request (asking again returns the request)."""
    _refuse_member(club, player)
    if club.joining == Club.Joining.OPEN:
        return Joined(membership=admit(club, player, Membership.Role.MEMBER))
    if club.joining == Club.Joining.REQUEST:
        pending = JoinRequest.objects.filter(club=club, player=player, status=JoinRequest.Status.PENDING).first()
        if pending is not None:
            return Joined(request=pending)
        try:
            with transaction.atomic():
                request = JoinRequest.objects.create(club=club, player=player, note=note)
                _tell_organisers(club, player, note)
                return Joined(request=request)
        except IntegrityError:  # the same person asked twice at once: the other ask made it
            return Joined(request=JoinRequest.objects.get(club=club, player=player, status=JoinRequest.Status.PENDING))
    raise PermissionDenied(f"{club.name} admits members by invitation only: ask one of its organisers for a code")


def invitation_create(
    *, club: Club, created_by: Player, days: int = 7, max_uses: int = 1, role: str = Membership.Role.MEMBER
) -> Invitation:
    errors = {}
    if not 1 <= days <= MAX_INVITATION_DAYS:
        errors["days"] = f"an invitation lasts 1 to {MAX_INVITATION_DAYS} days, not {days}"
    if not 1 <= max_uses <= MAX_INVITATION_USES:
        errors["max_uses"] = f"an invitation admits 1 to {MAX_INVITATION_USES} people, not {max_uses}"
    if problem := role_problem(role):
        errors["role"] = problem
    if errors:
        raise ValidationError(errors)
    with transaction.atomic():
        # Under the club's lock, as the maker's removal or demotion is: a code made while they lose their
        # role is either refused here or withdrawn with their other offers (withdraw_offers_of).
        lock_club(club)
        check_acting_organiser(club, created_by, "invite people to it")
        return Invitation.objects.create(
            club=club,
            code=secrets.token_urlsafe(24),  # 24 bytes: 32 URL-safe characters, the column's length
            role=role,
            created_by=created_by,
            expires_at=timezone.now() + timedelta(days=days),
            max_uses=max_uses,
        )


def invitation_problem(invitation: Invitation) -> str:
    """Why the invitation admits no one now ("" if it does)."""
    if invitation.revoked_at is not None:
        return "this invitation was withdrawn by the club's organisers"
    if invitation.expires_at <= timezone.now():
        return f"this invitation expired on {invitation.expires_at:%Y-%m-%d %H:%M} UTC"
    if invitation.uses >= invitation.max_uses:
        return f"this invitation has been used {invitation.uses} times, all it allows"
    return ""


def invitation_accept(*, code: str, player: Player) -> Membership:
    """Join the invitation's club in its role; Invitation.DoesNotExist for a code that names none."""
    with transaction.atomic():
        invitation = Invitation.objects.select_for_update().select_related("club").get(code=code)
        _refuse_member(invitation.club, player)
        problem = invitation_problem(invitation)
        if problem:
            raise Conflict(problem)
        invitation.uses += 1
        invitation.save(update_fields=["uses"])
        return admit(invitation.club, player, invitation.role)


def invitation_revoke(*, invitation: Invitation) -> Invitation:
    if invitation.revoked_at is None:
        invitation.revoked_at = timezone.now()
        invitation.save(update_fields=["revoked_at"])
    return invitation


def join_request_decide(*, join_request: JoinRequest, organiser: Player, accept: bool) -> JoinRequest:
    """Accept (the player becomes a member) or decline a pending request; a decided one is a Conflict."""
    with transaction.atomic():
        locked = JoinRequest.objects.select_for_update().select_related("club", "player").get(pk=join_request.pk)
        if locked.status != JoinRequest.Status.PENDING:
            raise Conflict(f"this request was already {locked.status}")
        locked.status = JoinRequest.Status.ACCEPTED if accept else JoinRequest.Status.DECLINED
        locked.decided_at, locked.decided_by = timezone.now(), organiser
        locked.save(update_fields=["status", "decided_at", "decided_by"])
        if accept:
            Membership.objects.get_or_create(club=locked.club, player=locked.player)
    return locked


def join_request_withdraw(*, join_request: JoinRequest) -> JoinRequest:
    with transaction.atomic():
        locked = JoinRequest.objects.select_for_update().get(pk=join_request.pk)
        if locked.status != JoinRequest.Status.PENDING:
            raise Conflict(f"this request was already {locked.status}")
        locked.status = JoinRequest.Status.WITHDRAWN
        locked.save(update_fields=["status"])
    return locked


def role_problem(role: str) -> str:
    """Why ``role`` is no role in a club ("" if it is one)."""
    return "" if role in Membership.Role.values else f"role must be one of {', '.join(Membership.Role.values)}"


def check_role(role: str) -> None:
    if problem := role_problem(role):
        raise ValidationError({"role": problem})


def lock_club(club: Club) -> None:
    """In the caller's transaction: queue behind every other change of the club's roll and its offers."""
    # The organiser rule below reads the roll and then changes it, and two organisers demoting or removing
    # each other must not both pass it; an offer made by an organiser losing their role must not slip past
    # the withdrawal of their offers.
    Club.objects.select_for_update().get(pk=club.pk)


def check_acting_organiser(club: Club, by: Player | None, what: str = "do this") -> None:
    """Under the club's lock: the organiser acting is one still (a request allowed a moment ago may have lost
    its role to another organiser's change since). ``by`` None: a superuser or a fixture, not an organiser."""
    if by is not None and not Membership.objects.filter(club=club, player=by, role=Membership.Role.ORGANISER).exists():
        raise PermissionDenied(f"only the organisers of {club.name} may {what}")


def _keep_an_organiser(club: Club, membership: Membership, role: str | None) -> None:
    """The one rule every change of the roll goes through: no club is left without an organiser.

    ``role`` is the membership's new role, or None when it ends (leaving, removal). Called under the club
    row's lock, so of two organisers stepping down, demoting or removing each other at once, the second
    sees the first's change and is refused.
    """
    if membership.role != Membership.Role.ORGANISER or role == Membership.Role.ORGANISER:
        return
    others = Membership.objects.filter(club=club, role=Membership.Role.ORGANISER).exclude(pk=membership.pk)
    if not others.exists():
        raise Conflict(
            f"{membership.player.display_name} is the last organiser of {club.name}: "
            "make another member organiser first"
        )


def _withdraw_offers_of(club: Club, player: Player) -> None:
    """The player's open invitation codes and pending personal invitations of the club, withdrawn: they were
    made on an organiser's authority, which the player is losing (removed, leaving or demoted). Otherwise a
    removed organiser could redeem their own organiser code, or someone accept their offer, and the role
    would come back (docs/clubs.md). Under the club's lock, as every offer is made."""
    now = timezone.now()
    # A code being accepted holds its row's lock: this update waits for it, and then skips it if it was used up.
    Invitation.objects.filter(
        club=club, created_by=player, revoked_at__isnull=True, expires_at__gt=now, uses__lt=F("max_uses")
    ).update(revoked_at=now)
    PersonalInvitation.objects.filter(club=club, invited_by=player, status=PersonalInvitation.Status.PENDING).update(
        status=PersonalInvitation.Status.WITHDRAWN, decided_at=now
    )


def _roll_entry(club: Club, player: Player, by: Player | None, *, missing: str) -> Membership:
    """In the caller's transaction, under the club's lock: the player's membership, which ``by`` may change
    (still an organiser); a Conflict saying ``missing`` if the player is not a member."""
    lock_club(club)
    check_acting_organiser(club, by)
    membership = Membership.objects.select_related("player").filter(club=club, player=player).first()
    if membership is None:
        raise Conflict(missing)
    return membership


def club_set_role(*, club: Club, player: Player, role: str, by: Player | None = None) -> Membership:
    """Change a member's role (an organiser's decision, ``by``); the club's last organiser cannot step down.

    Only a member's role changes here: someone outside the club is invited (league.personal_invitations).
    An organiser who steps down or is demoted loses their open offers with the role.
    """
    check_role(role)
    with transaction.atomic():
        missing = f"{player.display_name} is not a member of {club.name}: invite them instead"
        membership = _roll_entry(club, player, by, missing=missing)
        _keep_an_organiser(club, membership, role)
        if membership.role == Membership.Role.ORGANISER and role != Membership.Role.ORGANISER:
            _withdraw_offers_of(club, player)
        if membership.role != role:
            organiser_before = membership.role == Membership.Role.ORGANISER
            membership.role = role
            membership.save(update_fields=["role"])
            if organiser_before or role == Membership.Role.ORGANISER:
                staff_follows_organiser_role(player=player)
    return membership


def club_remove_member(*, club: Club, player: Player, by: Player | None = None) -> None:
    """Take a player off the roll (leaving, or removed by an organiser ``by``); their results stay, their
    open offers do not.

    The club's last organiser cannot go: the club would have no one to run it.
    """
    with transaction.atomic():
        membership = _roll_entry(club, player, by, missing=f"{player.display_name} is not a member of {club.name}")
        _keep_an_organiser(club, membership, None)
        _withdraw_offers_of(club, player)
        membership.delete()
        if membership.role == Membership.Role.ORGANISER:
            staff_follows_organiser_role(player=player)
