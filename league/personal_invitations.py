"""Personal invitations: how an organiser brings a particular person into a club (issue 21, finding 9).

An organiser offers a place, in a role, to one person; the person accepts (and only then is a member)
or declines; the organisers may withdraw an offer not yet answered. Nobody is made a member, or so
entered in a competition where their clock would run, without saying yes.

Inviting again while an invitation is pending returns that invitation, with the latest role offered; a
partial unique index (one pending invitation per club and person) makes that hold when two organisers
invite at the same moment. Answers are decided under the invitation row's lock, like join requests.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.utils import timezone

from league.errors import Conflict
from league.joining import admit, check_acting_organiser, check_role, lock_club
from league.models import Club, Membership, PersonalInvitation, Player

Status = PersonalInvitation.Status


def club_invite(*, club: Club, player: Player, role: str, invited_by: Player) -> PersonalInvitation:
    """Offer ``player`` a place in ``club`` in ``role``; the same pending invitation if one is open.

    Someone already a member is refused (409): an organiser changes a member's role instead.
    """
    check_role(role)
    with transaction.atomic():
        # Under the club's lock, as the inviter's removal or demotion is: an invitation made while they lose
        # their role is either refused here or withdrawn with their other offers (league.joining).
        lock_club(club)
        check_acting_organiser(club, invited_by, "invite people to it")
        if Membership.objects.filter(club=club, player=player).exists():
            raise Conflict(f"{player.display_name} is already a member of {club.name}: change their role instead")
        pending = _pending(club, player)
        if pending is None:
            try:
                with transaction.atomic():
                    return PersonalInvitation.objects.create(club=club, player=player, role=role, invited_by=invited_by)
            except IntegrityError:
                # Another organiser invited them at the same moment: the index kept theirs, which is this one.
                pending = _pending(club, player)
                if pending is None:  # answered or withdrawn in between: a fresh state, so ask again
                    raise Conflict(f"{player.display_name}'s invitation to {club.name} changed: try again") from None
        if pending.role != role:
            # The latest offer is the one that stands: the person has not answered yet.
            pending.role, pending.invited_by = role, invited_by
            pending.save(update_fields=["role", "invited_by"])
        return pending


def _pending(club: Club, player: Player) -> PersonalInvitation | None:
    return (
        PersonalInvitation.objects.select_for_update()
        .select_related("club", "player")
        .filter(club=club, player=player, status=Status.PENDING)
        .first()
    )


def _decide(invitation: PersonalInvitation, status: str) -> PersonalInvitation:
    """The invitation, locked, moved from pending to ``status``; a decided one is a Conflict."""
    locked = PersonalInvitation.objects.select_for_update().select_related("club", "player").get(pk=invitation.pk)
    if locked.status != Status.PENDING:
        raise Conflict(f"this invitation was already {locked.status}")
    locked.status, locked.decided_at = status, timezone.now()
    locked.save(update_fields=["status", "decided_at"])
    return locked


def _check_invited(invitation: PersonalInvitation, player: Player) -> None:
    if invitation.player_id != player.pk:
        raise PermissionDenied("only the invited person may answer an invitation")


def personal_invitation_accept(*, invitation: PersonalInvitation, player: Player) -> Membership:
    """The invited person says yes: they join in the role offered. Already a member (by a code, say): 409."""
    _check_invited(invitation, player)
    with transaction.atomic():
        # A refusal by admit() rolls the status back with it: the invitation stays pending.
        locked = _decide(invitation, Status.ACCEPTED)
        return admit(locked.club, player, locked.role)


def personal_invitation_decline(*, invitation: PersonalInvitation, player: Player) -> PersonalInvitation:
    _check_invited(invitation, player)
    with transaction.atomic():
        return _decide(invitation, Status.DECLINED)


def personal_invitation_withdraw(*, invitation: PersonalInvitation) -> PersonalInvitation:
    """The club's organisers take back an invitation not yet answered."""
    with transaction.atomic():
        return _decide(invitation, Status.WITHDRAWN)
