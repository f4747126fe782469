"""The league's Conflict (league/errors.py), under the name the tournaments' services have always used."""

from __future__ import annotations

from league.errors import Conflict

__all__ = ["Conflict"]
