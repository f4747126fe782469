"""Query-string filters for competitions, matches and games: game, status, player and date ranges.

Dates are ranges (``created_after=2025-01-01&created_before=2025-01-31``, both inclusive);
a value that does not parse is a 400 naming the filter.
"""

from __future__ import annotations

import django_filters as filters
from django.db.models import QuerySet
from django.utils.choices import CallableChoiceIterator

from config.api_input import WholeNumberFilter
from league.models import GAME_CHOICES
from tournaments.formats.registry import format_choices
from tournaments.models import Competition, Game, Match, MatchParticipant
from tournaments.selectors import competitions_of_player, matches_of_player


class CompetitionFilter(filters.FilterSet):
    game = filters.ChoiceFilter(choices=GAME_CHOICES)
    status = filters.ChoiceFilter(choices=Competition.Status.choices)
    # Named so, since DRF keeps ?format= for choosing the response's format (?format=json). The choices are an
    # iterable read afresh at each use (as GAME_CHOICES): a bare callable leaves the schema without its enum.
    competition_format = filters.ChoiceFilter(
        field_name="format", choices=CallableChoiceIterator(format_choices), label="Format"
    )
    club = WholeNumberFilter(field_name="club_id", label="Club (id)")
    player = WholeNumberFilter(method="filter_player", label="Entered by this player, in person or by bot (id)")
    created = filters.DateFromToRangeFilter(field_name="created_at")
    started = filters.DateFromToRangeFilter(field_name="started_at")
    finished = filters.DateFromToRangeFilter(field_name="finished_at")

    class Meta:
        model = Competition
        fields = ["game", "status", "competition_format", "club", "player", "created", "started", "finished"]

    def filter_player(self, queryset: QuerySet[Competition], name: str, value: int) -> QuerySet[Competition]:
        return queryset.filter(pk__in=competitions_of_player(value))


class MatchFilter(filters.FilterSet):
    competition = WholeNumberFilter(field_name="competition_id", label="Competition (id)")
    round = WholeNumberFilter(field_name="round__number", label="Round number")
    game = filters.ChoiceFilter(field_name="competition__game", choices=GAME_CHOICES)
    status = filters.ChoiceFilter(choices=Match.Status.choices)
    player = WholeNumberFilter(method="filter_player", label="Played by this player, in person or by bot (id)")
    entrant = WholeNumberFilter(method="filter_entrant", label="Played by this entrant (id)")
    created = filters.DateFromToRangeFilter(field_name="created_at")
    finished = filters.DateFromToRangeFilter(field_name="finished_at")

    class Meta:
        model = Match
        fields = ["competition", "round", "game", "status", "player", "entrant", "created", "finished"]

    # Subqueries rather than joins through participants: one row per match, no DISTINCT needed.
    def filter_player(self, queryset: QuerySet[Match], name: str, value: int) -> QuerySet[Match]:
        return queryset.filter(pk__in=matches_of_player(value))

    def filter_entrant(self, queryset: QuerySet[Match], name: str, value: int) -> QuerySet[Match]:
        return queryset.filter(pk__in=MatchParticipant.objects.filter(entrant_id=value).values("match_id"))


class GameFilter(filters.FilterSet):
    match = WholeNumberFilter(field_name="match_id", label="Match (id)")
    competition = WholeNumberFilter(field_name="match__competition_id", label="Competition (id)")
    game = filters.ChoiceFilter(field_name="match__competition__game", choices=GAME_CHOICES)
    winner = WholeNumberFilter(field_name="winner_id", label="Won by this entrant (id)")
    recorded = filters.DateFromToRangeFilter(field_name="recorded_at")

    class Meta:
        model = Game
        fields = ["match", "competition", "game", "winner", "recorded"]
