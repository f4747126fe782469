"""Bots: organisers add house bots for their clubs' members; only the owner adds versions or retires one."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.options import InlineModelAdmin
from django.core.exceptions import ValidationError
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.utils.functional import lazy
from django.utils.html import escape

from engine.bots import bot_names
from engine.games import game_names
from league.admin.bot_versions import BotVersionInline, strategy_choices
from league.admin.form_helpers import FieldGroups, model_choice_field, player_lookup
from league.admin.permissions import (
    OrganiserAdmin,
    can_organise,
    is_superuser,
    members_only,
    organised_club_ids,
    owns_bot,
)
from league.admin.saving import adopt, formset_saved
from league.models import Bot, Player
from league.services import bot_create, bot_retire, bot_update, bot_version_create_builtin


def _strategies_help() -> str:
    # The admin prints help text unescaped, so the engine's names are escaped here.
    return escape(
        "Optional: an engine strategy that becomes version 1. "
        + "; ".join(f"{game}: {', '.join(bot_names(game))}" for game in game_names())
    )


class BotAddForm(forms.ModelForm[Bot]):
    strategy = forms.ChoiceField(
        choices=strategy_choices,
        required=False,
        label="First built-in version",
        help_text=lazy(_strategies_help, str)(),
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
        # An organiser sees the bots of their clubs' members only.
        return members_only(request, super().get_queryset(request), "owner").annotate(version_total=Count("versions"))

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
        return can_organise(request) and (obj is None or owns_bot(request, obj))

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
            if owns_bot(request, bot):
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
