"""Who sees what is played in a competition: superusers everything, organisers what their clubs run."""

from __future__ import annotations

from typing import Any, TypeVar

from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest, HttpResponse

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


class PageContextAdmin(admin.ModelAdmin[_M]):
    """A change page with more than Django's form on it: ``page_context`` adds to the page's context. Put it
    first among a ModelAdmin's bases."""

    def page_context(self, request: HttpRequest, obj: _M) -> dict[str, Any]:
        return {}

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        obj = self.get_object(request, object_id)
        context = dict(extra_context or {})
        if obj is not None:
            context.update(self.page_context(request, obj))
        return super().change_view(request, object_id, form_url, context)


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
