"""Who may see and change what in the admin: superusers, organisers, owners, and the bases that apply it."""

from __future__ import annotations

from typing import Any, TypeVar

from django.contrib import admin
from django.db.models import Model, QuerySet
from django.http import HttpRequest

from league.admin.service_errors import RefusalsAsMessages
from league.models import Bot, Club, Membership, Player

_M = TypeVar("_M", bound=Model)

# --- Who is asking -------------------------------------------------------------------------------


def is_superuser(request: HttpRequest) -> bool:
    return bool(request.user.is_active and request.user.is_superuser)


def organised_club_ids(request: HttpRequest) -> frozenset[int]:
    """The clubs the logged-in staff user organises; remembered on the request, as one page asks many times."""
    cached: frozenset[int] | None = getattr(request, "_organised_club_ids", None)
    if cached is None:
        user = request.user
        if user.is_active and user.is_staff:
            cached = frozenset(
                Membership.objects.filter(player__user_id=user.pk, role=Membership.Role.ORGANISER).values_list(
                    "club_id", flat=True
                )
            )
        else:
            cached = frozenset()
        request._organised_club_ids = cached  # type: ignore[attr-defined]
    return cached


def can_organise(request: HttpRequest) -> bool:
    return is_superuser(request) or bool(organised_club_ids(request))


def own_player(request: HttpRequest) -> Player | None:
    if not request.user.is_authenticated:
        return None
    return Player.objects.filter(user_id=request.user.pk).first()


def runs_club(request: HttpRequest, club: Any) -> bool:
    """A superuser runs every club; an organiser the clubs they organise (``club`` may be any model)."""
    return is_superuser(request) or (isinstance(club, Club) and club.pk in organised_club_ids(request))


def members_only(request: HttpRequest, queryset: QuerySet[_M], player: str = "pk") -> QuerySet[_M]:
    """``queryset`` as an admin user may see it: all of it for a superuser; for an organiser, the rows whose
    ``player`` (a lookup to a Player) is a member of a club they organise (issue 21, finding 8).

    Players, their usernames, and the bots and versions they own (with an upload's checksum) are shown to
    organisers only for their own clubs' members; every list, change page, autocomplete and raw-id lookup
    reads its rows through the ModelAdmin's queryset, so filtering it there covers them all.
    """
    if is_superuser(request):
        return queryset
    members = Membership.objects.filter(club_id__in=organised_club_ids(request)).values("player_id")
    # A subquery rather than a join, so a member of two of the organiser's clubs is one row.
    return queryset.filter(**{f"{player}__in": members})


def owns_bot(request: HttpRequest, bot: Bot) -> bool:
    """Only a bot's owner (or a superuser) adds versions to it or retires it, as in the API."""
    return is_superuser(request) or (request.user.is_active and bot.owner.user_id == request.user.pk)


# --- The bases every admin here builds on --------------------------------------------------------


class OrganiserAdmin(RefusalsAsMessages, admin.ModelAdmin[_M]):
    """Visible to superusers and organisers; read-only unless a subclass says otherwise."""

    def has_module_permission(self, request: HttpRequest) -> bool:
        return can_organise(request)

    def has_view_permission(self, request: HttpRequest, obj: _M | None = None) -> bool:
        return can_organise(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: _M | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: _M | None = None) -> bool:
        # Rows here carry history (entries, results); nothing is deleted from the admin.
        return False


class ClubScopedAdmin(OrganiserAdmin[_M]):
    """Organisers see only the rows of the clubs they organise; superusers see all."""

    #: The lookup from this model to its club's id.
    club_lookup = "club_id"

    def get_queryset(self, request: HttpRequest) -> QuerySet[_M]:
        queryset = super().get_queryset(request)
        if is_superuser(request):
            return queryset
        return queryset.filter(**{f"{self.club_lookup}__in": organised_club_ids(request)})

    def club_id_of(self, obj: _M) -> int:
        value: Any = obj
        for part in self.club_lookup.split("__"):
            value = getattr(value, part)
        return int(value)

    def in_scope(self, request: HttpRequest, obj: _M | None) -> bool:
        return obj is None or is_superuser(request) or self.club_id_of(obj) in organised_club_ids(request)

    def has_view_permission(self, request: HttpRequest, obj: _M | None = None) -> bool:
        return can_organise(request) and self.in_scope(request, obj)
