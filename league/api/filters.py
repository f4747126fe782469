"""Query-string filters for the people-and-programs lists; a bad value is a 400 naming the filter."""

from __future__ import annotations

import django_filters as filters
from django.db.models import QuerySet

from config.api_input import BooleanFilter, WholeNumberFilter
from league.models import GAME_CHOICES, Bot, BotVersion, Club, Membership, Player


class PlayerFilter(filters.FilterSet):
    name = filters.CharFilter(field_name="display_name", lookup_expr="icontains")
    club = WholeNumberFilter(method="filter_club", label="Members of this club (id)")
    joined = filters.DateFromToRangeFilter(field_name="created_at", label="Profile created between these dates")

    class Meta:
        model = Player
        fields = ["name", "club", "joined"]

    def filter_club(self, queryset: QuerySet[Player], name: str, value: int) -> QuerySet[Player]:
        # A subquery, not a join: the list keeps one row per player.
        return queryset.filter(pk__in=Membership.objects.filter(club_id=value).values("player_id"))


class BotFilter(filters.FilterSet):
    game = filters.ChoiceFilter(choices=GAME_CHOICES)
    owner = WholeNumberFilter(field_name="owner_id", label="Owner (player id)")
    retired = BooleanFilter(method="filter_retired", label="Retired bots only (true) or active only (false)")
    created = filters.DateFromToRangeFilter(field_name="created_at")

    class Meta:
        model = Bot
        fields = ["game", "owner", "retired", "created"]

    def filter_retired(self, queryset: QuerySet[Bot], name: str, value: bool) -> QuerySet[Bot]:
        return queryset.filter(retired_at__isnull=not value)


class BotVersionFilter(filters.FilterSet):
    kind = filters.ChoiceFilter(choices=BotVersion.Kind.choices)
    status = filters.ChoiceFilter(choices=BotVersion.Status.choices)

    class Meta:
        model = BotVersion
        fields = ["kind", "status"]


class ClubFilter(filters.FilterSet):
    member = WholeNumberFilter(method="filter_member", label="Clubs this player belongs to (id)")

    class Meta:
        model = Club
        fields = ["member"]

    def filter_member(self, queryset: QuerySet[Club], name: str, value: int) -> QuerySet[Club]:
        # A subquery leaves the member_count annotation counting every member, not just this one.
        return queryset.filter(pk__in=Membership.objects.filter(player_id=value).values("club_id"))


class MembershipFilter(filters.FilterSet):
    role = filters.ChoiceFilter(choices=Membership.Role.choices)

    class Meta:
        model = Membership
        fields = ["role"]
