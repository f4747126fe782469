"""Clubs and their memberships: superusers create clubs and add members; organisers change members' roles.

Organisers add no one here: an existing person joins a club only by accepting an invitation (docs/clubs.md),
so the membership rows an organiser may add are none. Every role change goes through club_set_role, which
keeps the club an organiser.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.admin.options import InlineModelAdmin
from django.db.models import Count, Model, QuerySet
from django.http import HttpRequest

from league.admin.form_helpers import FieldGroups, player_lookup
from league.admin.permissions import ClubScopedAdmin, can_organise, is_superuser, own_player, runs_club
from league.admin.saving import adopt, formset_saved
from league.joining import club_set_role
from league.models import Club, Membership, Player
from league.services import club_add_member, club_create


class MembershipInlineForm(forms.ModelForm[Membership]):
    class Meta:
        model = Membership
        fields = ["player", "role"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk is not None:
            # A membership belongs to one person: change its role, or add a new row for someone else.
            self.fields["player"].disabled = True


class MembershipInline(admin.TabularInline[Membership, Club]):
    model = Membership
    form = MembershipInlineForm
    extra = 1
    fields = ["player", "role", "joined_at"]
    readonly_fields = ["joined_at"]
    autocomplete_fields = ["player"]
    can_delete = False

    def has_view_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return can_organise(request)

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        # Enrolling an existing person without their say is a superuser's alone; organisers invite (the API).
        return obj is not None and is_superuser(request)

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return obj is not None and runs_club(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


class ClubAddForm(forms.ModelForm[Club]):
    organiser = forms.ModelChoiceField(
        queryset=Player.objects.select_related("user"), widget=player_lookup(), help_text="The club's first organiser."
    )

    class Meta:
        model = Club
        fields = ["name", "slug"]


@admin.register(Club)
class ClubAdmin(ClubScopedAdmin[Club]):
    club_lookup = "id"
    list_display = ["name", "slug", "joining", "member_count", "organiser_list", "created_at"]
    search_fields = ["name", "slug"]
    ordering = ["name", "id"]
    readonly_fields = ["name", "slug", "joining", "created_at"]
    inlines = [MembershipInline]
    prepopulated_fields = {"slug": ["name"]}

    def get_queryset(self, request: HttpRequest) -> QuerySet[Club]:
        return (
            super()
            .get_queryset(request)
            .annotate(member_total=Count("memberships", distinct=True))
            .prefetch_related("memberships__player")
        )

    @admin.display(description="Members", ordering="member_total")
    def member_count(self, club: Club) -> int:
        return getattr(club, "member_total", 0)

    @admin.display(description="Organisers")
    def organiser_list(self, club: Club) -> str:
        return ", ".join(m.player.display_name for m in club.memberships.all() if m.role == Membership.Role.ORGANISER)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return is_superuser(request)

    def has_change_permission(self, request: HttpRequest, obj: Club | None = None) -> bool:
        # "Change" here means its memberships; the club's own fields have no service to edit them yet.
        return can_organise(request) and (obj is None or runs_club(request, obj))

    def get_form(self, request: HttpRequest, obj: Club | None = None, change: bool = False, **kwargs: Any) -> Any:
        if obj is None:
            kwargs["form"] = ClubAddForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fields(self, request: HttpRequest, obj: Club | None = None) -> FieldGroups:
        return ["name", "slug", "organiser"] if obj is None else ["name", "slug", "joining", "created_at"]

    def get_readonly_fields(self, request: HttpRequest, obj: Club | None = None) -> list[str]:
        return list(self.readonly_fields) if obj is not None else []

    def get_prepopulated_fields(self, request: HttpRequest, obj: Club | None = None) -> dict[str, Any]:
        return dict(self.prepopulated_fields) if obj is None else {}

    def get_inlines(self, request: HttpRequest, obj: Club | None) -> list[type[InlineModelAdmin[Any, Any]]]:
        # A new club's first member is its organiser, from the form; further members come after.
        return list(self.inlines) if obj is not None else []

    def save_model(self, request: HttpRequest, obj: Club, form: forms.ModelForm[Club], change: bool) -> None:
        if change:
            return
        data = form.cleaned_data
        adopt(obj, club_create(name=data["name"], slug=data["slug"], organiser=data["organiser"]))

    def save_formset(self, request: HttpRequest, form: forms.ModelForm[Club], formset: Any, change: bool) -> None:
        club: Club = form.instance
        new: list[Model] = []
        changed: list[tuple[Model, list[str]]] = []
        # The organiser acting, checked again under the club's lock; a superuser acts as no member.
        by = None if is_superuser(request) else own_player(request)
        for member_form in formset.forms:
            if not member_form.has_changed():
                continue
            data = member_form.cleaned_data
            if member_form.instance.pk is None:  # only a superuser gets rows to add (has_add_permission)
                new.append(club_add_member(club=club, player=data["player"], role=data["role"]))
            else:
                player = member_form.instance.player
                membership = club_set_role(club=club, player=player, role=data["role"], by=by)
                changed.append((membership, member_form.changed_data))
        formset_saved(formset, new=new, changed=changed)


@admin.register(Membership)
class MembershipAdmin(ClubScopedAdmin[Membership]):
    list_display = ["player", "club", "role", "joined_at"]
    list_filter = ["role", ("club", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["player__display_name", "player__user__username", "club__name"]
    list_select_related = ["player", "club"]
    date_hierarchy = "joined_at"
