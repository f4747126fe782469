"""Nested routes (/tournaments/{id}/entrants/, /matches/{id}/race/, ...): the parent row, looked up once, or 404."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from django.shortcuts import get_object_or_404

from tournaments.models import Competition, Match


class CompetitionScoped:
    kwargs: dict[str, Any]

    @cached_property
    def competition(self) -> Competition:
        return get_object_or_404(Competition, pk=self.kwargs["competition_pk"])


class MatchScoped:
    kwargs: dict[str, Any]

    @cached_property
    def match(self) -> Match:
        return get_object_or_404(Match.objects.select_related("competition"), pk=self.kwargs["match_pk"])


def schema_only(view: object) -> bool:
    """True while drf-spectacular inspects the view: there are no URL kwargs to look a parent up by."""
    return bool(getattr(view, "swagger_fake_view", False))
