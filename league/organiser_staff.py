"""Staff status follows the organiser role (issue 23): an organiser opens the admin site, scoped to the clubs
they organise (league/admin/permissions.py), without a superuser ticking "Staff status" for them.

The scoped admin asks for nothing but ``is_staff`` and an organiser membership: its ModelAdmins decide every
permission themselves (``OrganiserAdmin``, ``ClubScopedAdmin``), so no group or model permission is granted.

How we tell staff given by the role from staff given for another reason: the role's grant puts the user in the
group ``ROLE_STAFF_GROUP`` (a marker, holding no permissions). Losing the last organiser role takes staff
status away only from a user carrying that marker, so these keep theirs whatever their roles:
- a superuser (never touched at all);
- a user a superuser made staff by hand, before or after becoming an organiser (no marker: staff already
  when the role came, so the role gave nothing to take back).
A superuser who unticks "Staff status" by hand from an organiser is overruled at the next change of the
person's roles only: the role is what opens the admin. Organisers from before this rule were given staff status,
with the marker, by migration league 0010.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from league.models import Membership, Player

#: The marker of staff status given by the organiser role (and so taken back with it).
ROLE_STAFF_GROUP = "Staff through the organiser role"


def staff_follows_organiser_role(*, player: Player) -> None:
    """In the caller's transaction, after a change of the player's roles: staff while they organise a club,
    and not once they organise none (if the role is what made them staff).

    The user row is locked first, so two changes of one person's roles in two clubs at once (made an
    organiser of one, removed from another) are decided one after the other, the second seeing the first's
    membership: the last to commit cannot leave a stale answer.
    """
    user = get_user_model().objects.select_for_update().get(pk=player.user_id)
    if user.is_superuser:
        return
    organises = Membership.objects.filter(player=player, role=Membership.Role.ORGANISER).exists()
    if organises and not user.is_staff:
        user.is_staff = True
        user.save(update_fields=["is_staff"])
        user.groups.add(Group.objects.get_or_create(name=ROLE_STAFF_GROUP)[0])
    elif not organises and user.is_staff and user.groups.filter(name=ROLE_STAFF_GROUP).exists():
        user.is_staff = False
        user.save(update_fields=["is_staff"])
        user.groups.remove(*Group.objects.filter(name=ROLE_STAFF_GROUP))
