"""Competitions and their entrants: created, edited and entered through the services."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.options import InlineModelAdmin
from django.db.models import Count, IntegerField, Model, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.forms.models import BaseInlineFormSet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse

from league.admin.permissions import can_organise
from league.admin.saving import adopt, formset_saved
from tournaments.admin.actions import (
    cancel_competitions,
    play_pending_matches,
    retry_errored_matches,
    start_competitions,
)
from tournaments.admin.competition_fieldsets import common_fieldsets, format_fieldsets
from tournaments.admin.forms import CompetitionAddForm, CompetitionChangeForm, competition_add_form
from tournaments.admin.pages import ENTRANTS_ON_PAGE, competition_page, unknown_game_reported
from tournaments.admin.scope import CompetitionPartAdmin, PageContextAdmin, ReadOnlyInline, runs_competition
from tournaments.admin.seeds import competition_seed_text
from tournaments.admin.views import CompetitionRunViews, change_url
from tournaments.formats.base import Format
from tournaments.formats.registry import UnknownFormat, all_formats, format_choices, format_of, get_format
from tournaments.models import Competition, Entrant, Match
from tournaments.services.competitions import competition_create, competition_update, entrant_withdraw

if TYPE_CHECKING:
    # Only in django-stubs: the shape of ModelAdmin.fieldsets.
    from django.contrib.admin.options import _FieldsetSpec


class FirstEntrantsFormSet(BaseInlineFormSet):  # type: ignore[type-arg]
    """The competition's first ENTRANTS_ON_PAGE entrants, not all of a ladder's thousand: the same rows on the
    page and in the withdrawals it posts back."""

    def get_queryset(self) -> QuerySet[Entrant]:
        if not hasattr(self, "_first"):
            self._first: QuerySet[Entrant] = super().get_queryset().order_by("id")[:ENTRANTS_ON_PAGE]
        return self._first


class EntrantInline(ReadOnlyInline[Entrant, Competition]):
    """The entrant list: read-only, and an entrant can be withdrawn until the competition starts.

    New entrants come through "Add entrants", which checks the game, readiness and room.
    """

    model = Entrant
    formset = FirstEntrantsFormSet
    # Withdrawing posts each row's delete box: Django's own table has them.
    template = "admin/edit_inline/tabular.html"
    fields = ("name", "bot_version", "player", "joined_at")
    readonly_fields = fields
    show_change_link = True

    def get_queryset(self, request: HttpRequest) -> QuerySet[Entrant]:
        return super().get_queryset(request).select_related("bot_version__bot", "player")

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return isinstance(obj, Competition) and obj.status == Competition.Status.OPEN and runs_competition(request, obj)


def counted(rows: QuerySet[Any]) -> Coalesce:
    """How many of ``rows`` belong to the outer competition, as a subquery (0, not null, for none)."""
    per_competition = rows.filter(competition=OuterRef("pk")).order_by().values("competition")
    return Coalesce(Subquery(per_competition.annotate(n=Count("pk")).values("n")), 0, output_field=IntegerField())


class FormatFilter(admin.SimpleListFilter):
    title = "format"
    parameter_name = "format"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return format_choices()

    def queryset(self, request: HttpRequest, queryset: QuerySet[Competition]) -> QuerySet[Competition]:
        return queryset.filter(format=self.value()) if self.value() else queryset


@admin.register(Competition)
class CompetitionAdmin(PageContextAdmin[Competition], CompetitionRunViews):
    list_display = ["name", "club", "game", "format_label", "status", "entrant_count", "progress", "created_at"]
    list_filter = ["game", "status", FormatFilter, ("club", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["name", "club__name"]
    list_select_related = ["club"]
    ordering = ["-created_at", "-id"]
    date_hierarchy = "created_at"
    inlines = [EntrantInline]
    actions = [start_competitions, play_pending_matches, retry_errored_matches, cancel_competitions]
    change_form_template = "admin/tournaments/competition/change_form.html"
    #: Shown, never changed here; the settings are the change form's fields.
    info_fields = (
        "club",
        "game",
        "format_label",
        "seed_shown",
        "status",
        "organiser_list",
        "created_by",
        "created_at",
        "started_at",
        "finished_at",
    )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Competition]:
        # One count per row, each from its own index: joining entrants and matches to count both would make
        # entrants × matches rows for every competition (10 million for a ladder of 1,000 bots and 10,000
        # matches). The changelist's total leaves these out (Django drops annotations a count does not use).
        return (
            super()
            .get_queryset(request)
            .annotate(
                entrant_total=counted(Entrant.objects.all()),
                match_total=counted(Match.objects.all()),
                match_done=counted(Match.objects.filter(status=Match.Status.DONE)),
            )
        )

    @admin.display(description="Entrants", ordering="entrant_total")
    def entrant_count(self, competition: Competition) -> int:
        return getattr(competition, "entrant_total", 0)

    @admin.display(description="Matches done")
    def progress(self, competition: Competition) -> str:
        return f"{getattr(competition, 'match_done', 0)} / {getattr(competition, 'match_total', 0)}"

    @admin.display(description="Format", ordering="format")
    def format_label(self, competition: Competition) -> str:
        try:
            return get_format(competition.format).label
        except UnknownFormat:
            return f"{competition.format} (not on this server)"

    @admin.display(description="Seed")
    def seed_shown(self, competition: Competition) -> str:
        return competition_seed_text(competition)

    @admin.display(description="Organisers")
    def organiser_list(self, competition: Competition) -> str:
        return ", ".join(p.display_name for p in competition.organisers.all())

    # Permissions: organisers add to their clubs, and change (edit, enter, run) their clubs' competitions.

    def has_add_permission(self, request: HttpRequest) -> bool:
        return can_organise(request)

    def has_change_permission(self, request: HttpRequest, obj: Competition | None = None) -> bool:
        return can_organise(request) and self.in_scope(request, obj)

    # The forms: one to create through competition_create, one to edit through competition_update.

    def add_view(
        self, request: HttpRequest, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        # A competition's fields depend on its format: the format is chosen first, on a page of its own.
        chosen = self._chosen_format(request)
        if chosen is None:
            return self._choose_format(request)
        context = {"title": f"Add a competition: {chosen.label}", **(extra_context or {})}
        return super().add_view(request, form_url, context)

    def _choose_format(self, request: HttpRequest) -> HttpResponse:
        asked = request.GET.get("format", "")
        kept = request.GET.copy()  # the changelist's filters, to return to after saving
        choices = []
        for format in all_formats():
            kept["format"] = format.key
            choices.append((format, f"?{kept.urlencode()}"))
        context = {
            **self.admin_site.each_context(request),
            "title": "Add a competition: choose its format",
            "opts": self.model._meta,
            "choices": choices,
            "unknown": asked,
        }
        return TemplateResponse(request, "admin/tournaments/competition/choose_format.html", context)

    @staticmethod
    def _chosen_format(request: HttpRequest) -> Format | None:
        try:
            return get_format(request.GET.get("format", ""))
        except UnknownFormat:
            return None

    def get_form(
        self, request: HttpRequest, obj: Competition | None = None, change: bool = False, **kwargs: Any
    ) -> Any:
        if obj is None:
            chosen = self._chosen_format(request)
            if chosen is None:
                raise Http404("choose a format first")
            kwargs["form"] = competition_add_form(chosen, request)
        else:
            kwargs["form"] = CompetitionChangeForm
        # The settings' fields are made by the forms, from the specs: the fieldsets name them.
        kwargs["fields"] = None
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fieldsets(self, request: HttpRequest, obj: Competition | None = None) -> _FieldsetSpec:
        if obj is None:
            chosen = self._chosen_format(request)
            if chosen is None:
                raise Http404("choose a format first")
            kept = request.GET.copy()
            kept.pop("format", None)
            return [
                (None, {"fields": ["club", "name", "game", "organiser"]}),
                *format_fieldsets(chosen, choose_again=f"?{kept.urlencode()}"),
                *common_fieldsets(chosen),
                ("Replaying", {"fields": ["seed"]}),
            ]
        try:
            format = format_of(obj)
        except UnknownFormat:  # said on the page (unknown_game_reported); only the name can change
            return [(None, {"fields": ["name", "options"]}), ("Competition", {"fields": self.info_fields})]
        return [
            (None, {"fields": ["name"]}),
            *format_fieldsets(format),
            *common_fieldsets(format),
            ("Competition", {"fields": self.info_fields}),
        ]

    def get_readonly_fields(self, request: HttpRequest, obj: Competition | None = None) -> list[str]:
        # Settings that may no longer change are disabled by the change form, which says why.
        return [] if obj is None else list(self.info_fields)

    def save_model(
        self, request: HttpRequest, obj: Competition, form: forms.ModelForm[Competition], change: bool
    ) -> None:
        data = form.cleaned_data
        if isinstance(form, CompetitionChangeForm):
            competition_update(competition=obj, **form.update_arguments())
            return
        assert isinstance(form, CompetitionAddForm)  # get_form gives an add form to a new competition
        created = competition_create(
            club=data["club"],
            created_by=data["organiser"],
            name=data["name"],
            game=data["game"],
            format=form.competition_format.key,
            options=data["options"],
            seed=data["seed"],
            settings=form.settings(),
        )
        adopt(obj, created)

    def save_related(
        self, request: HttpRequest, form: forms.ModelForm[Competition], formsets: Any, change: bool
    ) -> None:
        # The organisers were set by competition_create; only the entrant list's withdrawals remain.
        for formset in formsets:
            self.save_formset(request, form, formset, change)

    def save_formset(
        self, request: HttpRequest, form: forms.ModelForm[Competition], formset: Any, change: bool
    ) -> None:
        withdrawn = [entrant_form.instance for entrant_form in formset.deleted_forms]
        for entrant in withdrawn:
            entrant_withdraw(entrant=entrant)
        formset_saved(formset, deleted=list(withdrawn))

    def get_inlines(self, request: HttpRequest, obj: Competition | None) -> list[type[InlineModelAdmin[Any, Any]]]:
        # A new competition has no entrants; they join once it exists.
        return list(self.inlines) if obj is not None else []

    def get_inline_instances(self, request: HttpRequest, obj: Competition | None = None) -> list[Any]:
        inlines = super().get_inline_instances(request, obj)
        for inline in inlines:
            if isinstance(inline, EntrantInline) and not inline.has_delete_permission(request, obj):
                # Once entries close nobody withdraws here: the entrants are a plain table like every read-only list.
                inline.template = ReadOnlyInline.template
        return inlines

    def response_add(
        self, request: HttpRequest, obj: Competition, post_url_continue: str | None = None
    ) -> HttpResponse:
        # The next step after creating is entering people and bots, which happens on the competition's page.
        if "_addanother" not in request.POST and "_popup" not in request.POST:
            self.message_user(request, f"Created {obj.name}: add its entrants, then start it.", messages.SUCCESS)
            return HttpResponseRedirect(change_url(obj.pk))
        return super().response_add(request, obj, post_url_continue)

    def page_context(self, request: HttpRequest, obj: Competition) -> dict[str, Any]:
        # Below the form: standings, the latest matches' sets or race, and the buttons that run the competition.
        shown: dict[str, Any] = {}  # what stays if the game or the format is not on this server
        with unknown_game_reported(request):
            shown = competition_page(obj, may_run=self.has_run_permission(request))
        return shown


@admin.register(Entrant)
class EntrantAdmin(CompetitionPartAdmin[Entrant]):
    list_display = ["name", "competition", "kind", "bot_version", "player", "joined_at"]
    list_filter = ["competition__game", ("competition", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["name", "competition__name", "player__display_name", "bot_version__bot__name"]
    list_select_related = ["competition", "bot_version__bot", "player"]
    readonly_fields = ["competition", "name", "bot_version", "player", "joined_at"]

    @admin.display(description="Kind")
    def kind(self, entrant: Entrant) -> str:
        return "bot" if entrant.bot_version_id is not None else "person"
