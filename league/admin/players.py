"""Players: organisers see and rename their clubs' members, and may make a new account in a club they run.

A new account made here is put in the organiser's club at once (club_add_member): it is the organiser's own
creation, with no one yet to ask. An existing person joins only by accepting an invitation (docs/clubs.md).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.db.models import Count, QuerySet
from django.http import HttpRequest

from league.admin.form_helpers import FieldGroups, model_choice_field
from league.admin.permissions import OrganiserAdmin, can_organise, is_superuser, members_only, organised_club_ids
from league.admin.saving import adopt
from league.admin.service_errors import add_service_errors
from league.models import Club, Membership, Player
from league.names import names_check
from league.services import club_add_member, player_create, player_update


class PlayerAddForm(forms.ModelForm[Player]):
    username = forms.CharField(max_length=150, validators=[UnicodeUsernameValidator()])
    password = forms.CharField(
        widget=forms.PasswordInput(render_value=False),
        required=False,
        help_text="Leave empty for a player who will sign in only with an API token.",
    )
    club = forms.ModelChoiceField(queryset=Club.objects.none(), required=False)
    role = forms.ChoiceField(choices=Membership.Role.choices, initial=Membership.Role.MEMBER)

    class Meta:
        model = Player
        fields = ["display_name"]

    request: HttpRequest

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["display_name"].required = False
        self.fields["display_name"].help_text = "Shown in standings; the username if left empty."
        clubs = Club.objects.all()
        if not is_superuser(self.request):
            # An organiser adds people to a club they run, so the club is not optional for them.
            clubs = clubs.filter(pk__in=organised_club_ids(self.request))
            self.fields["club"].required = True
        model_choice_field(self, "club").queryset = clubs

    def clean_username(self) -> str:
        username: str = self.cleaned_data["username"]
        # In any case, as sign-in finds it (and auth_user's unique lower(username) would refuse it anyway).
        if get_user_model().objects.filter(username__iexact=username).exists():
            raise ValidationError(f"the username {username!r} is taken")
        return username

    def clean_password(self) -> str:
        password: str = self.cleaned_data.get("password") or ""
        if password:
            password_validation.validate_password(password)
        return password

    def clean(self) -> dict[str, Any]:
        cleaned: dict[str, Any] = super().clean() or self.cleaned_data
        if "username" in cleaned:
            # Neither name may be another player's, in any case or look-alike spelling (league/names.py).
            try:
                names_check(username=cleaned["username"], display_name=cleaned.get("display_name", "").strip() or None)
            except ValidationError as error:
                add_service_errors(self, error)
        return cleaned


class PlayerChangeForm(forms.ModelForm[Player]):
    class Meta:
        model = Player
        fields = ["display_name"]

    def clean_display_name(self) -> str:
        display_name: str = self.cleaned_data["display_name"]
        # The early answer; player_update's claim holds against a rename racing this one.
        try:
            names_check(display_name=display_name, player=self.instance)
        except ValidationError as error:
            raise ValidationError(error.message_dict["display_name"]) from None
        return display_name


@admin.register(Player)
class PlayerAdmin(OrganiserAdmin[Player]):
    list_display = ["display_name", "username", "club_list", "bot_count", "created_at"]
    list_filter = [("memberships__club", admin.RelatedOnlyFieldListFilter), "memberships__role"]
    search_fields = ["display_name", "user__username", "user__email"]
    list_select_related = ["user"]
    # Explicit, because the annotated counts would drop the model's default order from autocomplete pages.
    ordering = ["display_name", "id"]
    readonly_fields = ["user", "club_list", "bot_count", "created_at"]
    date_hierarchy = "created_at"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Player]:
        # An organiser sees the members of the clubs they organise, and no one else (nor their usernames).
        players = members_only(request, super().get_queryset(request))
        return players.annotate(bot_total=Count("bots", distinct=True)).prefetch_related("memberships__club")

    @admin.display(description="Username", ordering="user__username")
    def username(self, player: Player) -> str:
        return player.user.get_username()

    @admin.display(description="Clubs")
    def club_list(self, player: Player) -> str:
        return ", ".join(
            f"{m.club.name}{' (organiser)' if m.role == Membership.Role.ORGANISER else ''}"
            for m in player.memberships.all()
        )

    @admin.display(description="Bots", ordering="bot_total")
    def bot_count(self, player: Player) -> int:
        return getattr(player, "bot_total", 0)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return can_organise(request)

    def has_change_permission(self, request: HttpRequest, obj: Player | None = None) -> bool:
        # An organiser may fix the name of a member of a club they run; a superuser anyone's.
        if obj is None or is_superuser(request):
            return can_organise(request)
        return obj.memberships.filter(club_id__in=organised_club_ids(request)).exists()

    def get_form(self, request: HttpRequest, obj: Player | None = None, change: bool = False, **kwargs: Any) -> Any:
        if obj is None:
            kwargs["form"] = type("BoundPlayerAddForm", (PlayerAddForm,), {"request": request})
        else:
            kwargs["form"] = PlayerChangeForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fields(self, request: HttpRequest, obj: Player | None = None) -> FieldGroups:
        if obj is None:
            return ["username", "display_name", "password", "club", "role"]
        return ["user", "display_name", "club_list", "bot_count", "created_at"]

    def get_readonly_fields(self, request: HttpRequest, obj: Player | None = None) -> list[str]:
        return list(self.readonly_fields) if obj is not None else []

    def save_model(self, request: HttpRequest, obj: Player, form: forms.ModelForm[Player], change: bool) -> None:
        data = form.cleaned_data
        if change:
            if "display_name" in form.changed_data:
                player_update(player=obj, display_name=data["display_name"])
            return
        player = player_create(
            username=data["username"], display_name=data.get("display_name") or "", password=data["password"] or None
        )
        if data.get("club") is not None:
            club_add_member(club=data["club"], player=player, role=data["role"])
        adopt(obj, player)
