"""Who sees what is played in a competition: superusers everything, organisers what their clubs run."""

from __future__ import annotations

from typing import TypeVar

from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest

from league.admin.permissions import ClubScopedAdmin, can_organise, is_superuser, organised_club_ids
from tournaments.models import Competition

_M = TypeVar("_M", bound=Model)
_Parent = TypeVar("_Parent", bound=Model)


class CompetitionPartAdmin(ClubScopedAdmin[_M]):
    """Something played in a competition: organisers see those of their clubs' competitions."""

    club_lookup = "competition__club_id"


class MatchPartAdmin(ClubScopedAdmin[_M]):
    """Something recorded in a match (a game, a set): organisers see those of their clubs' competitions."""

    club_lookup = "match__competition__club_id"


class ReadOnlyInline(admin.TabularInline[_M, _Parent]):
    """Rows listed on their parent's page for organisers to read: never added, changed or deleted there, so
    shown as a plain table (a subclass that lets rows be deleted uses Django's own template)."""

    extra = 0
    template = "admin/tournaments/includes/read_only_tabular.html"

    def has_view_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return can_organise(request)

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


def runs_competition(request: HttpRequest, competition: Competition) -> bool:
    return is_superuser(request) or competition.club_id in organised_club_ids(request)
