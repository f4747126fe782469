"""Rounds and matches: read-only schedules, with a match's sets or race on its page and retry for errors."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from league.admin.permissions import can_organise
from tournaments.admin.actions import retry_matches
from tournaments.admin.figures import match_points_text, points_text
from tournaments.admin.pages import match_page, unknown_game_reported
from tournaments.admin.scope import CompetitionPartAdmin, PageContextAdmin, ReadOnlyInline
from tournaments.admin.seeds import match_seed_text
from tournaments.models import Match, MatchParticipant, Round


class MatchInline(ReadOnlyInline[Match, Round]):
    model = Match
    fields = ("number", "status", "finished_at")
    readonly_fields = fields
    show_change_link = True


@admin.register(Round)
class RoundAdmin(CompetitionPartAdmin[Round]):
    list_display = ["__str__", "competition", "match_count", "created_at"]
    list_filter = ["competition__game", ("competition", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["competition__name"]
    list_select_related = ["competition"]
    ordering = ["competition_id", "number"]
    readonly_fields = ["competition", "number", "created_at"]
    inlines = [MatchInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Round]:
        return super().get_queryset(request).annotate(match_total=Count("matches"))

    @admin.display(description="Matches", ordering="match_total")
    def match_count(self, round_: Round) -> int:
        return getattr(round_, "match_total", 0)


class ParticipantInline(ReadOnlyInline[MatchParticipant, Match]):
    """Who sat where, and how each finished: places, scores and match points written as people write them."""

    model = MatchParticipant
    fields = ("seat_shown", "entrant", "place", "score_shown", "points_shown")
    readonly_fields = fields
    verbose_name = "player"
    verbose_name_plural = "players"

    def get_queryset(self, request: HttpRequest) -> QuerySet[MatchParticipant]:
        return super().get_queryset(request).select_related("entrant", "match__competition")

    @admin.display(description="Seat")
    def seat_shown(self, participant: MatchParticipant) -> int:
        return participant.seat + 1  # seats are stored from 0, as the engine numbers them

    @admin.display(description="Place")
    def place(self, participant: MatchParticipant) -> str:
        return "-" if participant.rank is None else str(participant.rank)

    @admin.display(description="Score")
    def score_shown(self, participant: MatchParticipant) -> str:
        return "-" if participant.score is None else points_text(participant.score)

    @admin.display(description="Match points")
    def points_shown(self, participant: MatchParticipant) -> str:
        if participant.match_units is None:
            return "-"
        return match_points_text(participant.match_units, participant.match.competition.players_per_match)


@admin.register(Match)
class MatchAdmin(PageContextAdmin[Match], CompetitionPartAdmin[Match]):
    list_display = ["__str__", "competition", "round_number", "number", "seated", "status", "finished_at"]
    list_filter = ["status", "competition__game", ("competition", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["competition__name", "participants__entrant__name"]
    list_select_related = ["competition", "round"]
    fieldsets = [
        (
            None,
            {
                "fields": [
                    "competition",
                    "round",
                    "number",
                    "status",
                    "table_link",
                    "replay_link",
                    "error",
                    "seed_shown",
                    "rated",
                    "created_at",
                    "started_at",
                    "finished_at",
                ]
            },
        ),
        # What the workers and the live tables keep for themselves: there for whoever looks into a stuck match.
        (
            "Workers and live tables",
            {
                "fields": ["queued_at", "heartbeat_at", "attempts", "version", "commitments"],
                "classes": ["collapse"],
            },
        ),
    ]
    # The seed and salt are shown (by seed_shown, and in the records) only once the match is over: never listed.
    readonly_fields = [name for _, part in fieldsets for name in part["fields"] if isinstance(name, str)]
    inlines = [ParticipantInline]
    actions = [retry_matches]
    change_form_template = "admin/tournaments/match/change_form.html"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Match]:
        return super().get_queryset(request).prefetch_related("participants__entrant")

    @admin.display(description="Round", ordering="round__number")
    def round_number(self, match: Match) -> int:
        return match.round.number

    @admin.display(description="Seed")
    def seed_shown(self, match: Match) -> str:
        return match_seed_text(match)

    @admin.display(description="Live table")
    def table_link(self, match: Match) -> str:
        # The web table (tournaments/web/): an organiser watches it with the spectator's view, or plays their seat.
        if match.status != Match.Status.LIVE:
            return "-"
        return format_html('<a href="{}">open the table</a>', reverse("site:table", args=[match.pk]))

    @admin.display(description="Replay")
    def replay_link(self, match: Match) -> str:
        # The replay viewer's page lists the match's other games.
        if match.status != Match.Status.DONE:
            return "-"
        return format_html('<a href="{}">replay the games</a>', reverse("site:match-replay", args=[match.pk, 1]))

    @admin.display(description="Participants (rank)")
    def seated(self, match: Match) -> str:
        return ", ".join(
            p.entrant.name if p.rank is None else f"{p.entrant.name} ({p.rank})"
            for p in sorted(match.participants.all(), key=lambda p: p.seat)
        )

    def has_run_permission(self, request: HttpRequest) -> bool:
        return can_organise(request)

    def page_context(self, request: HttpRequest, obj: Match) -> dict[str, Any]:
        shown: dict[str, Any] = {}  # what stays if the game or the format is not on this server
        with unknown_game_reported(request):
            shown = match_page(obj)
        return shown
