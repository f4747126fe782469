"""The admin site for people and programs: players, clubs and memberships, bots and their versions.

Who may do what here:
- a superuser may do everything the services allow;
- an organiser is an active staff user whose player holds an organiser membership in a club; the
  services give staff status with the role and take it back with the last one (league/organiser_staff.py),
  so nobody ticks "Staff status" by hand. Organisers
  see only the clubs they organise, the players who are members of them, and the bots (and
  versions) those members own (``permissions.members_only``); they change their members' roles
  (never taking the club's last organiser), make new accounts in their clubs, and add bots owned
  by their clubs' members. They do not add existing people to a club: a person joins by
  accepting an invitation (the API), so nobody is enrolled without saying yes;
- only a bot's owner (or a superuser) adds versions to it or retires it, as in the API.

Every write goes through ``league.services``; whatever has no service yet (a club's name and
slug, removing a member) is shown read-only rather than saved behind the services' back.

The modules, one job each:
- ``permissions``: who is asking, and the OrganiserAdmin / ClubScopedAdmin bases built on it;
- ``service_errors``: a service's ValidationError turned into form errors or an admin message;
- ``saving``: telling the admin's add/change machinery what a service saved;
- ``form_helpers``: small form pieces shared with the competition admin (a player search box…);
- ``players``, ``clubs``, ``bots``, ``bot_versions``: the ModelAdmins and their forms;
- ``joining``: invitation codes, join requests and personal invitations, read-only;
- ``webhooks``: clubs' webhooks and their delivery logs, read-only;
- ``users``: Django's user pages (superusers only), whose usernames follow the names rule (league/names.py).

Django's autodiscovery imports this package; importing these modules registers their ModelAdmins.
"""

from league.admin import bot_versions, bots, clubs, joining, players, users, webhooks  # noqa: F401
