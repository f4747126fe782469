"""What a service says when a request meets the wrong moment: a 409, with nothing changed.

Bad input is Django's ValidationError (a 400) and a refusal Django's PermissionDenied (a 403);
config/api.py turns this one into 409 Conflict. Both apps raise it; it lives here, the lower one.
"""

from __future__ import annotations


class Conflict(Exception):
    """The request is well formed and allowed, but the state it acts on does not allow it now."""
