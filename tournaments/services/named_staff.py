"""A competition's named organisers and referees go with their membership of its club (issue 21, finding 4).

Naming a member on a competition (its organiser, by creating it; a referee, by an organiser's PATCH) gives
them powers over that one competition, and only while they are members of its club: that is decided in
one place, tournaments.selectors.competition_role. When a membership ends (leaving, removal, or the row
going any other way) the names go too, in the same transaction, so that the API stops listing people who
can no longer act, and joining the club again (an open club takes anyone at once) brings no power back.

league may not call tournaments (dependencies point one way), so this listens for the membership row's
deletion rather than being called by league.joining.
"""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_delete

from league.models import Membership
from tournaments.models import Competition


def named_staff_forget(*, club_id: int, player_id: int) -> None:
    """Take the player's name off every competition of the club, as organiser and as referee."""
    for named in (Competition.organisers.through, Competition.referees.through):
        named.objects.filter(competition__club_id=club_id, player_id=player_id).delete()


def _membership_ended(sender: type[Membership], instance: Membership, **kwargs: Any) -> None:
    named_staff_forget(club_id=instance.club_id, player_id=instance.player_id)


def connect() -> None:
    """Called once, by the app's ready()."""
    post_delete.connect(_membership_ended, sender=Membership, dispatch_uid="tournaments.named_staff")
