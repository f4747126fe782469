"""The admin site for competitions: an organiser runs the club's competitions from here.

- Superusers see every competition; an organiser (see ``league/admin/__init__.py``) sees the competitions
  of the clubs they organise, and everything played in them.
- Creating, editing, entering, starting, playing, cancelling and retrying all go through the
  services; a service's refusal becomes a form error or an admin message, never a 500.
- Recorded results (games and their records, sets, participants' scores, standings) are read-only
  for everybody: the admin shows them and never edits them. So are a ladder's challenges, which only
  the services decide.

Django's autodiscovery imports this package; importing these modules registers their ModelAdmins.
"""

from tournaments.admin import competitions, ladders, matches, results, transcripts  # noqa: F401
