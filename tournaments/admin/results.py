"""Recorded results (games and their records, sets, standings): shown to organisers, never edited."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from engine.errors import EngineError
from engine.games import UnknownGame
from engine.record import Record
from engine.verify import verify
from league.standings import FIGURE_COLUMNS, tiebreaks
from tournaments.admin.figures import match_points_text, rating_text, shown_game_number
from tournaments.admin.pages import UNKNOWN_GAME_NOTE
from tournaments.admin.scope import CompetitionPartAdmin, MatchPartAdmin
from tournaments.admin.seeds import HIDDEN, match_over
from tournaments.admin.titles import TitledPages, game_title, set_title
from tournaments.models import Competition, Game, MatchSet, Standing


def pretty_json(value: Any, *, compact: bool = False) -> str:
    text = json.dumps(value, separators=(",", ":")) if compact else json.dumps(value, indent=2, sort_keys=True)
    return format_html('<pre style="white-space: pre-wrap; max-height: 40em; overflow: auto">{}</pre>', text)


@admin.register(Game)
class GameAdmin(TitledPages[Game], MatchPartAdmin[Game]):
    list_display = ["title", "match", "competition", "game_number", "winner", "seed_shown", "recorded_at", "replay"]
    list_filter = ["match__competition__game", ("match__competition", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["match__competition__name", "winner__name"]
    list_select_related = ["match__competition", "winner"]
    date_hierarchy = "recorded_at"
    fields = (
        "match",
        "game_number",
        "winner",
        "seating_view",
        "seed_shown",
        "replay",
        "options_view",
        "result_view",
        "verdict",
        "deal_view",
        "record_view",
        "recorded_at",
    )
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[Game]:
        queryset = super().get_queryset(request)
        match = request.resolver_match
        if match is not None and match.url_name == "tournaments_game_changelist":
            # A list never shows the records, and a page of 1923 records is megabytes.
            queryset = queryset.defer("record", "deal")
        return queryset

    def object_title(self, obj: Game) -> str:
        return game_title(obj)

    @admin.display(description="Number", ordering="number")
    def game_number(self, game: Game) -> int:
        return shown_game_number(game.number)

    @admin.display(description="Competition", ordering="match__competition__name")
    def competition(self, game: Game) -> Competition:
        return game.match.competition

    @admin.display(description="Replay")
    def replay(self, game: Game) -> str:
        # A game still in play has a page too, which says so and shows no card.
        return format_html('<a href="{}">replay</a>', reverse("site:replay", args=[game.pk]))

    @admin.display(description="Seating (entrant ids by seat)")
    def seating_view(self, game: Game) -> str:
        return pretty_json(game.seating)

    @admin.display(description="Options")
    def options_view(self, game: Game) -> str:
        return pretty_json(game.options)

    @admin.display(description="Result")
    def result_view(self, game: Game) -> str:
        return pretty_json(game.result)

    # A game row is written when its match is recorded, so these are normally shown; should a game
    # ever exist before its match is over, its seed, deal and record (which holds both) stay hidden.

    @admin.display(description="Seed")
    def seed_shown(self, game: Game) -> str:
        return str(game.seed) if match_over(game.match) else HIDDEN

    @admin.display(description="Deal")
    def deal_view(self, game: Game) -> str:
        return pretty_json(game.deal) if match_over(game.match) else HIDDEN

    @admin.display(description="Record (replayable)")
    def record_view(self, game: Game) -> str:
        return pretty_json(game.record, compact=True) if match_over(game.match) else HIDDEN

    @admin.display(description="Replay check")
    def verdict(self, game: Game) -> str:
        try:
            return str(verify(Record.from_dict(game.record)))
        except EngineError as error:
            return f"unreadable record: {error}"


@admin.register(MatchSet)
class MatchSetAdmin(TitledPages[MatchSet], MatchPartAdmin[MatchSet]):
    list_display = ["title", "match", "game_number", "number", "play_on", "score_summary"]
    list_filter = ["play_on", "match__competition__game", ("match__competition", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["match__competition__name"]
    list_select_related = ["match", "game"]
    fields = ("match", "game_link", "number", "play_on", "scores_view")
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[MatchSet]:
        # The game rides along for its number only; its record stays in the database.
        return super().get_queryset(request).defer("game__record", "game__deal")

    def object_title(self, obj: MatchSet) -> str:
        return set_title(obj)

    @admin.display(description="Game", ordering="game__number")
    def game_number(self, row: MatchSet) -> int:
        return shown_game_number(row.game.number)

    @admin.display(description="Game")
    def game_link(self, row: MatchSet) -> str:
        url = reverse("admin:tournaments_game_change", args=[row.game_id])
        return format_html('<a href="{}">{}</a>', url, game_title(row.game))

    @admin.display(description="Scores by entrant id")
    def score_summary(self, row: MatchSet) -> str:
        return "; ".join(
            f"{entrant}: " + ", ".join(f"{key} {value}" for key, value in figures.items())
            for entrant, figures in row.scores.items()
        )

    @admin.display(description="Scores by entrant id")
    def scores_view(self, row: MatchSet) -> str:
        return pretty_json(row.scores)


@admin.register(Standing)
class StandingAdmin(CompetitionPartAdmin[Standing]):
    list_display = [
        "entrant",
        "competition",
        "played",
        "won",
        "drawn",
        "lost",
        "match_points",
        "games_won",
        "mu_shown",
        "sigma_shown",
        "ordinal_shown",
    ]
    list_filter = ["competition__game", ("competition", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["entrant__name", "competition__name"]
    list_select_related = ["entrant", "competition"]
    ordering = ["competition_id", "-match_units", "entrant__name"]
    fields = (
        "competition",
        "entrant",
        "played",
        "won",
        "drawn",
        "lost",
        "match_points",
        "match_units",
        "games_played",
        "games_won",
        "game_figures",
        "mu_shown",
        "sigma_shown",
        "ordinal_shown",
        "updated_at",
    )
    readonly_fields = fields

    @admin.display(description="The game's own figures")
    def game_figures(self, standing: Standing) -> str:
        """Each figure the game sums per game, under its label, in the game's order (its profile says)."""
        try:
            own = [t for t in tiebreaks(standing.competition.game) if t.column in FIGURE_COLUMNS]
        except UnknownGame as exc:
            return f"{exc}: {UNKNOWN_GAME_NOTE}"
        shown = [
            f"{t.label}: {getattr(standing, t.column)}" + ("" if t.higher_first else " (fewer first)") for t in own
        ]
        return "; ".join(shown) or "—"

    @admin.display(description="Match points", ordering="match_units")
    def match_points(self, standing: Standing) -> str:
        return match_points_text(standing.match_units, standing.competition.players_per_match)

    # Ratings to two places, as the competition page shows them.

    @admin.display(description="μ", ordering="mu")
    def mu_shown(self, standing: Standing) -> str:
        return rating_text(standing.mu)

    @admin.display(description="σ", ordering="sigma")
    def sigma_shown(self, standing: Standing) -> str:
        return rating_text(standing.sigma)

    @admin.display(description="Ordinal", ordering="ordinal")
    def ordinal_shown(self, standing: Standing) -> str:
        return rating_text(standing.ordinal)
