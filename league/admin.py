"""The admin site for people and programs: players, clubs and memberships, bots and their versions.

Who may do what here:
- a superuser may do everything the services allow;
- an organiser is an active staff user whose player holds an organiser membership in a club
  (Club page → Memberships → role ``organiser``, plus "Staff status" on the user). Organisers
  see every player and bot (both are public through the API), see only the clubs they organise,
  add players and members to those clubs, and add bots owned by their clubs' members;
- only a bot's owner (or a superuser) adds versions to it or retires it, as in the API.

Every write goes through ``league.services``; whatever has no service yet (a club's name and
slug, removing a member) is shown read-only rather than saved behind the services' back.
"""

from __future__ import annotations

from typing import Any, TypeVar

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.options import InlineModelAdmin
from django.contrib.admin.widgets import AutocompleteSelect
from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.db.models import Count, Model, QuerySet
from django.forms.models import BaseInlineFormSet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils.html import escape

from engine.bots import bot_names
from engine.games import GAME_NAMES
from league.models import Bot, BotVersion, Club, Membership, Player
from league.services import (
    bot_create,
    bot_retire,
    bot_update,
    bot_version_create_builtin,
    club_add_member,
    club_create,
    player_create,
    player_update,
)

_M = TypeVar("_M", bound=Model)

#: What ``get_fields`` returns, as django-stubs types it: field names, or a row of names shown on one line.
FieldGroups = list[str | list[str] | tuple[str, ...]]

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


def add_service_errors(form: forms.BaseForm, error: ValidationError) -> None:
    """Put a service's ValidationError on the form fields it names (the rest on the form itself)."""
    if hasattr(error, "error_dict"):
        for field, field_messages in error.message_dict.items():
            if field in form.fields:
                form.add_error(field, field_messages)
            else:
                # The form has no such field: keep the service's name for it in the message.
                form.add_error(None, [f"{field}: {m}" for m in field_messages])
    else:
        form.add_error(None, error.messages)


def model_choice_field(form: forms.BaseForm, name: str) -> forms.ModelChoiceField[Any]:
    """A form's model choice field by name (``form.fields`` holds them as plain Fields)."""
    field = form.fields[name]
    if not isinstance(field, forms.ModelChoiceField):
        raise TypeError(f"{type(form).__name__}.{name} is not a ModelChoiceField")
    return field


def service_error_text(error: ValidationError) -> str:
    if hasattr(error, "error_dict"):
        return "; ".join(f"{field}: {' '.join(msgs)}" for field, msgs in error.message_dict.items())
    return " ".join(error.messages)


# --- Shared admin behaviour ----------------------------------------------------------------------


class OrganiserAdmin(admin.ModelAdmin[_M]):
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

    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        # Forms check what they can up front; a service that still refuses (a race, a rule only it
        # knows) has rolled its transaction back, and the organiser gets its reason, not a 500.
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except ValidationError as error:
            self.message_user(request, service_error_text(error), messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())


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


def formset_saved(
    formset: Any,
    *,
    new: list[Model] | None = None,
    changed: list[tuple[Model, list[str]]] | None = None,
    deleted: list[Model] | None = None,
) -> None:
    """Tell the admin's change history what a formset's services did, as formset.save() would have."""
    formset.new_objects = new or []
    formset.changed_objects = changed or []
    formset.deleted_objects = deleted or []


def adopt(unsaved: Model, created: Model) -> None:
    """Make the admin's unsaved form instance the row a service created, so the admin's
    success message, log entry and redirect all point at it."""
    vars(unsaved).update(vars(created))


# --- Players ---------------------------------------------------------------------------------------


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
        if get_user_model().objects.filter(username=username).exists():
            raise ValidationError(f"the username {username!r} is taken")
        return username

    def clean_password(self) -> str:
        password: str = self.cleaned_data.get("password") or ""
        if password:
            password_validation.validate_password(password)
        return password


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
        return (
            super()
            .get_queryset(request)
            .annotate(bot_total=Count("bots", distinct=True))
            .prefetch_related("memberships__club")
        )

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


# --- Clubs and memberships -----------------------------------------------------------------------


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
        return obj is not None and _runs_club(request, obj)

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return obj is not None and _runs_club(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


def _runs_club(request: HttpRequest, club: Any) -> bool:
    return is_superuser(request) or (isinstance(club, Club) and club.pk in organised_club_ids(request))


def player_lookup() -> AutocompleteSelect:
    """A search box over all players (the list could be long), answered by PlayerAdmin's search."""
    return AutocompleteSelect(Membership._meta.get_field("player"), admin.site)


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
    list_display = ["name", "slug", "member_count", "organiser_list", "created_at"]
    search_fields = ["name", "slug"]
    ordering = ["name", "id"]
    readonly_fields = ["name", "slug", "created_at"]
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
        return can_organise(request) and (obj is None or _runs_club(request, obj))

    def get_form(self, request: HttpRequest, obj: Club | None = None, change: bool = False, **kwargs: Any) -> Any:
        if obj is None:
            kwargs["form"] = ClubAddForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fields(self, request: HttpRequest, obj: Club | None = None) -> FieldGroups:
        return ["name", "slug", "organiser"] if obj is None else ["name", "slug", "created_at"]

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
        for member_form in formset.forms:
            if not member_form.has_changed():
                continue
            data = member_form.cleaned_data
            adding = member_form.instance.pk is None
            player = data["player"] if adding else member_form.instance.player
            membership = club_add_member(club=club, player=player, role=data["role"])
            if adding:
                new.append(membership)
            else:
                changed.append((membership, member_form.changed_data))
        formset_saved(formset, new=new, changed=changed)


@admin.register(Membership)
class MembershipAdmin(ClubScopedAdmin[Membership]):
    list_display = ["player", "club", "role", "joined_at"]
    list_filter = ["role", ("club", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["player__display_name", "player__user__username", "club__name"]
    list_select_related = ["player", "club"]
    date_hierarchy = "joined_at"


# --- Bots and versions -----------------------------------------------------------------------------


def _owns(request: HttpRequest, bot: Bot) -> bool:
    return is_superuser(request) or (request.user.is_active and bot.owner.user_id == request.user.pk)


STRATEGY_CHOICES = [("", "—")] + [(name, name) for name in sorted({n for g in GAME_NAMES for n in bot_names(g)})]


class BotAddForm(forms.ModelForm[Bot]):
    strategy = forms.ChoiceField(
        choices=STRATEGY_CHOICES,
        required=False,
        label="First built-in version",
        # The admin prints help text unescaped, so the engine's names are escaped here.
        help_text=escape(
            "Optional: an engine strategy that becomes version 1. "
            + "; ".join(f"{game}: {', '.join(bot_names(game))}" for game in GAME_NAMES)
        ),
    )

    class Meta:
        model = Bot
        fields = ["owner", "name", "game", "description"]

    request: HttpRequest

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        owners = Player.objects.select_related("user")
        if is_superuser(self.request):
            self.fields["owner"].widget = player_lookup()
        else:
            # An organiser keeps house bots for the clubs they run, never for strangers: a short list.
            owners = owners.filter(memberships__club_id__in=organised_club_ids(self.request)).distinct()
        model_choice_field(self, "owner").queryset = owners

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        owner, name = data.get("owner"), data.get("name")
        if owner is not None and name and Bot.objects.filter(owner=owner, name=name).exists():
            self.add_error("name", f"{owner} already has a bot called {name!r}")
        game, strategy = data.get("game"), data.get("strategy")
        if game and strategy and strategy not in bot_names(game):
            self.add_error(
                "strategy", f"{game} has no strategy {strategy!r}: choose one of {', '.join(bot_names(game))}"
            )
        return data

    def validate_unique(self) -> None:
        # clean() names the clash in plain words; the model's own message would repeat it.
        pass


class BotChangeForm(forms.ModelForm[Bot]):
    """Only the name and description change (bot_update); the game and owner are fixed at creation."""

    class Meta:
        model = Bot
        fields = ["name", "description"]

    def clean_name(self) -> str:
        name: str = self.cleaned_data["name"]
        clash = Bot.objects.filter(owner_id=self.instance.owner_id, name=name).exclude(pk=self.instance.pk)
        if clash.exists():
            raise ValidationError(f"{self.instance.owner} already has a bot called {name!r}")
        return name


class BotVersionInlineForm(forms.ModelForm[BotVersion]):
    strategy = forms.ChoiceField(choices=STRATEGY_CHOICES, required=True)

    class Meta:
        model = BotVersion
        fields = ["strategy"]


class BotVersionFormSet(BaseInlineFormSet[BotVersion, Bot, forms.ModelForm[BotVersion]]):
    def clean(self) -> None:
        super().clean()
        game = self.instance.game
        for form in self.extra_forms:
            strategy = form.cleaned_data.get("strategy") if form.has_changed() else None
            if strategy and strategy not in bot_names(game):
                form.add_error(
                    "strategy", f"{game} has no strategy {strategy!r}: choose one of {', '.join(bot_names(game))}"
                )


class BotVersionInline(admin.TabularInline[BotVersion, Bot]):
    """Versions never change: existing rows are read-only, and a new row names a built-in strategy."""

    model = BotVersion
    form = BotVersionInlineForm
    formset = BotVersionFormSet
    extra = 1
    fields = ["number", "kind", "strategy", "parameters", "status", "status_detail", "created_at"]
    readonly_fields = ["number", "kind", "parameters", "status", "status_detail", "created_at"]
    can_delete = False
    show_change_link = True

    def has_view_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return can_organise(request)

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return isinstance(obj, Bot) and obj.retired_at is None and _owns(request, obj)

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


class RetiredFilter(admin.SimpleListFilter):
    title = "retired"
    parameter_name = "retired"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin[Any]) -> list[tuple[str, str]]:
        return [("yes", "Retired"), ("no", "Active")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Bot]) -> QuerySet[Bot]:
        if self.value() in ("yes", "no"):
            return queryset.filter(retired_at__isnull=self.value() == "no")
        return queryset


@admin.register(Bot)
class BotAdmin(OrganiserAdmin[Bot]):
    list_display = ["name", "game", "owner", "version_count", "retired", "created_at"]
    list_filter = ["game", RetiredFilter]
    search_fields = ["name", "owner__display_name", "owner__user__username"]
    list_select_related = ["owner"]
    ordering = ["name", "id"]
    readonly_fields = ["owner", "game", "retired_at", "created_at"]
    inlines = [BotVersionInline]
    actions = ["retire_bots"]
    date_hierarchy = "created_at"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Bot]:
        return super().get_queryset(request).annotate(version_total=Count("versions"))

    @admin.display(description="Versions", ordering="version_total")
    def version_count(self, bot: Bot) -> int:
        return getattr(bot, "version_total", 0)

    @admin.display(description="Retired", boolean=True, ordering="retired_at")
    def retired(self, bot: Bot) -> bool:
        return bot.retired_at is not None

    def has_add_permission(self, request: HttpRequest) -> bool:
        return can_organise(request)

    def has_change_permission(self, request: HttpRequest, obj: Bot | None = None) -> bool:
        # "Change" is adding versions and retiring, which only the owner may do (as in the API).
        return can_organise(request) and (obj is None or _owns(request, obj))

    def has_retire_permission(self, request: HttpRequest) -> bool:
        return can_organise(request)

    def get_form(self, request: HttpRequest, obj: Bot | None = None, change: bool = False, **kwargs: Any) -> Any:
        if obj is None:
            kwargs["form"] = type("BoundBotAddForm", (BotAddForm,), {"request": request})
        else:
            kwargs["form"] = BotChangeForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fields(self, request: HttpRequest, obj: Bot | None = None) -> FieldGroups:
        if obj is None:
            return ["owner", "name", "game", "description", "strategy"]
        return ["owner", "name", "game", "description", "retired_at", "created_at"]

    def get_readonly_fields(self, request: HttpRequest, obj: Bot | None = None) -> list[str]:
        return list(self.readonly_fields) if obj is not None else []

    def get_inlines(self, request: HttpRequest, obj: Bot | None) -> list[type[InlineModelAdmin[Any, Any]]]:
        return list(self.inlines) if obj is not None else []

    def save_model(self, request: HttpRequest, obj: Bot, form: forms.ModelForm[Bot], change: bool) -> None:
        data = form.cleaned_data
        if change:
            if form.changed_data:
                # The form has already written its values onto obj; the service compares against the stored row.
                stored = Bot.objects.get(pk=obj.pk)
                bot_update(bot=stored, name=data["name"], description=data["description"])
            return
        bot = bot_create(owner=data["owner"], name=data["name"], game=data["game"], description=data["description"])
        if data.get("strategy"):
            bot_version_create_builtin(bot=bot, strategy=data["strategy"])
        adopt(obj, bot)

    def save_formset(self, request: HttpRequest, form: forms.ModelForm[Bot], formset: Any, change: bool) -> None:
        bot: Bot = form.instance
        created = [
            bot_version_create_builtin(bot=bot, strategy=version_form.cleaned_data["strategy"])
            for version_form in formset.extra_forms
            if version_form.has_changed()
        ]
        formset_saved(formset, new=list(created))

    @admin.action(
        description="Retire the selected bots (they can no longer enter competitions)", permissions=["retire"]
    )
    def retire_bots(self, request: HttpRequest, queryset: QuerySet[Bot]) -> None:
        retired, refused = [], []
        for bot in queryset.select_related("owner"):
            if _owns(request, bot):
                bot_retire(bot=bot)
                retired.append(bot.name)
            else:
                refused.append(bot.name)
        if retired:
            self.message_user(request, f"Retired: {', '.join(retired)}.", messages.SUCCESS)
        if refused:
            self.message_user(
                request, f"Only a bot's owner may retire it; not retired: {', '.join(refused)}.", messages.ERROR
            )


@admin.register(BotVersion)
class BotVersionAdmin(OrganiserAdmin[BotVersion]):
    list_display = ["__str__", "game", "owner", "kind", "strategy", "status", "created_at"]
    list_filter = ["kind", "status", "bot__game"]
    search_fields = ["bot__name", "strategy", "bot__owner__display_name"]
    list_select_related = ["bot__owner"]
    date_hierarchy = "created_at"
    # The validation log and an HTTP bot's URL (which may carry a token) are the owner's, through the API;
    # the uploaded code is shown by name and checksum only.
    fields = [
        "bot",
        "number",
        "kind",
        "strategy",
        "parameters",
        "filename",
        "entry",
        "sha256",
        "status",
        "status_detail",
        "queued_at",
        "created_at",
    ]

    def get_queryset(self, request: HttpRequest) -> QuerySet[BotVersion]:
        return super().get_queryset(request).defer("source", "log")

    @admin.display(description="Game", ordering="bot__game")
    def game(self, version: BotVersion) -> str:
        return version.bot.get_game_display()

    @admin.display(description="Owner", ordering="bot__owner__display_name")
    def owner(self, version: BotVersion) -> Player:
        return version.bot.owner
