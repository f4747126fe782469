"""Bot versions: listed for organisers, and added to a bot by its owner as a built-in engine strategy."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import Model, QuerySet
from django.forms.models import BaseInlineFormSet
from django.http import HttpRequest

from engine.bots import bot_names
from engine.games import game_names
from league.admin.permissions import OrganiserAdmin, can_organise, members_only, owns_bot
from league.models import Bot, BotVersion, Player


def strategy_choices() -> list[tuple[str, str]]:
    """Every engine strategy of every game, for a built-in version (the form checks it fits the bot's game)."""
    return [("", "—")] + [(name, name) for name in sorted({n for g in game_names() for n in bot_names(g)})]


class BotVersionInlineForm(forms.ModelForm[BotVersion]):
    strategy = forms.ChoiceField(choices=strategy_choices, required=True)

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
        return isinstance(obj, Bot) and obj.retired_at is None and owns_bot(request, obj)

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


class SuspendedFilter(admin.SimpleListFilter):
    """Versions suspended for forfeiting most of their recent games (docs/bot-protocol.md, "When a bot breaks");
    only their owner reinstates them, on the bot's page or through the API."""

    title = "suspended"
    parameter_name = "suspended"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin[Any]) -> list[tuple[str, str]]:
        return [("yes", "Suspended"), ("no", "Not suspended")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[BotVersion]) -> QuerySet[BotVersion]:
        if self.value() in ("yes", "no"):
            return queryset.filter(suspended_at__isnull=self.value() == "no")
        return queryset


@admin.register(BotVersion)
class BotVersionAdmin(OrganiserAdmin[BotVersion]):
    list_display = ["__str__", "game", "owner", "kind", "strategy", "status", "suspended", "created_at"]
    list_filter = ["kind", "status", SuspendedFilter, "bot__game"]
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
        "suspended_at",
        "suspension_causes",
        "reinstated_at",
        "queued_at",
        "created_at",
    ]

    def get_queryset(self, request: HttpRequest) -> QuerySet[BotVersion]:
        # An organiser sees the versions (and an upload's checksum) of their clubs' members' bots only.
        return members_only(request, super().get_queryset(request), "bot__owner").defer("source", "log")

    @admin.display(description="Suspended", boolean=True, ordering="suspended_at")
    def suspended(self, version: BotVersion) -> bool:
        return version.suspended_at is not None

    @admin.display(description="Game", ordering="bot__game")
    def game(self, version: BotVersion) -> str:
        return version.bot.get_game_display()

    @admin.display(description="Owner", ordering="bot__owner__display_name")
    def owner(self, version: BotVersion) -> Player:
        return version.bot.owner
