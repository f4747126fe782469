"""Ladders in the admin: the Challenge pages (read-only: challenges change only through the services and
the API, tournaments/services/challenges.py) and the ladder parts of the competition page."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Prefetch, QuerySet
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join

from tournaments.admin.scope import CompetitionPartAdmin, ReadOnlyInline
from tournaments.ladder_selectors import (
    entrant_names,
    place_changes,
)
from tournaments.models import Challenge, ChallengeSide


class ChallengeSideInline(ReadOnlyInline[ChallengeSide, Challenge]):
    model = ChallengeSide
    fields = ("entrant", "role", "place", "accepted_at", "open")
    readonly_fields = fields
    verbose_name = "side"
    verbose_name_plural = "sides (place when the challenge was issued)"

    def get_queryset(self, request: HttpRequest) -> QuerySet[ChallengeSide]:
        return super().get_queryset(request).select_related("entrant").order_by("place")


@admin.register(Challenge)
class ChallengeAdmin(CompetitionPartAdmin[Challenge]):
    """Every challenge of every ladder in sight. Read-only, as OrganiserAdmin makes it: nothing to add,
    change or delete here, since a challenge's places are only ever moved by the services."""

    list_display = [
        "__str__",
        "competition",
        "status",
        "challenger",
        "defenders",
        "issued_at",
        "deadline",
        "decided_at",
        "outcome",
    ]
    list_filter = ["status", ("competition", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["challenger__name", "sides__entrant__name"]
    list_select_related = ["competition", "challenger"]
    ordering = ["-issued_at", "-id"]
    date_hierarchy = "issued_at"
    fields = (
        "competition",
        "number",
        "status",
        "challenger",
        "issued_by",
        "issued_at",
        "deadline",
        "reminded_at",
        "accepted_at",
        "decided_at",
        "match",
        "outcome",
        "places_view",
    )
    readonly_fields = fields
    inlines = [ChallengeSideInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Challenge]:
        sides = ChallengeSide.objects.select_related("entrant").order_by("place")
        return super().get_queryset(request).prefetch_related(Prefetch("sides", queryset=sides))

    @admin.display(description="Defenders")
    def defenders(self, challenge: Challenge) -> str:
        return ", ".join(s.entrant.name for s in challenge.sides.all() if s.role == ChallengeSide.Role.DEFENDER)

    @admin.display(description="Places before → after")
    def places_view(self, challenge: Challenge) -> str:
        changes = place_changes(challenge, entrant_names(challenge.competition_id))
        if not changes:
            return "no places decided" if challenge.decided_at else "not decided yet"
        rows = format_html_join(
            "",
            '<tr><td class="number">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>',
            ((c.place, c.before, c.after, "moved" if c.moved else "") for c in changes),
        )
        return format_html(
            '<table class="ladder-places"><thead><tr><th>Place</th><th>Before</th><th>After</th><th></th></tr></thead>'
            "<tbody>{}</tbody></table>",
            rows,
        )
