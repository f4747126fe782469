"""The admin site for competitions: an organiser runs the club's competitions from here.

- Superusers see every competition; an organiser (see ``league/admin.py``) sees the competitions
  of the clubs they organise, and everything played in them.
- Creating, editing, entering, starting, playing, cancelling and retrying all go through the
  services; a service's refusal becomes a form error or an admin message, never a 500.
- Recorded results (games and their records, sets, participants' scores, standings) are read-only
  for everybody: the admin shows them and never edits them.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.widgets import FilteredSelectMultiple
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import transaction
from django.db.models import Count, Model, Q, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import escape, format_html

from engine.errors import EngineError
from engine.games import GAME_NAMES, get_game
from engine.record import Record
from engine.verify import verify
from league.admin import (
    ClubScopedAdmin,
    add_service_errors,
    adopt,
    can_organise,
    formset_saved,
    is_superuser,
    organised_club_ids,
    own_player,
    player_lookup,
    service_error_text,
)
from league.models import BotVersion, Club, Player
from league.standings import TIEBREAKS
from tournaments.models import (
    Competition,
    Entrant,
    Game,
    Match,
    MatchParticipant,
    MatchSet,
    Round,
    Standing,
    units_per_point,
)
from tournaments.selectors import (
    BANTER_TARGET,
    GameRace,
    competition_match_sheets,
    competition_progress,
    competition_standings,
    match_race,
    match_set_table,
)
from tournaments.services.competitions import (
    UNCHANGED,
    competition_cancel,
    competition_create,
    competition_start,
    competition_update,
    entrant_join,
    entrant_withdraw,
    validate_ruleset,
)
from tournaments.services.play import competition_play_pending, match_retry

# --- Showing figures ---------------------------------------------------------------------------------


def points_text(value: Fraction | int | float) -> str:
    """Match points read as people write them: 3, 1.5, 2.33."""
    if isinstance(value, Fraction) and value.denominator == 1:
        return str(value.numerator)
    if isinstance(value, int):
        return str(value)
    return f"{float(value):.2f}".rstrip("0").rstrip(".")


def matches(count: int) -> str:
    return f"{count} match" if count == 1 else f"{count} matches"


@dataclass(frozen=True)
class StandingLine:
    rank: str
    name: str
    entrant_id: int
    played: int
    won: int
    drawn: int
    lost: int
    tiebreaks: list[str]
    mu: float
    sigma: float
    ordinal: float


def standings_lines(competition: Competition) -> tuple[list[str], list[StandingLine]]:
    """The tiebreak labels of the competition's game, and its table with shared ranks marked ``2=``."""
    rows = competition_standings(competition)
    sharing = Counter(row.rank for row in rows)
    lines = [
        StandingLine(
            rank=f"{row.rank}=" if sharing[row.rank] > 1 else str(row.rank),
            name=row.standing.entrant.name,
            entrant_id=row.standing.entrant_id,
            played=row.standing.played,
            won=row.standing.won,
            drawn=row.standing.drawn,
            lost=row.standing.lost,
            tiebreaks=[points_text(value) for _, value in row.tiebreaks],
            mu=row.standing.mu,
            sigma=row.standing.sigma,
            ordinal=row.standing.ordinal,
        )
        for row in rows
    ]
    return [t.label for t in TIEBREAKS[competition.game]], lines


@dataclass(frozen=True)
class SeatLine:
    name: str
    rank: int | None
    score: str
    points: str


@dataclass(frozen=True)
class SetLine:
    game: int
    number: int
    #: Per participant in seat order: (cards, Aces, points).
    cells: list[tuple[Any, Any, Any]]


@dataclass(frozen=True)
class RaceLine:
    game: int
    number: int
    #: Per participant in seat order: (points this round, total so far).
    cells: list[tuple[Any, Any]]
    play_on: bool
    #: Names of those at or past 40 after this round.
    past_target: list[str]


@dataclass(frozen=True)
class MatchView:
    match: Match
    round_number: int
    seats: list[SeatLine]
    set_lines: list[SetLine]
    race_lines: list[RaceLine]

    @property
    def seat_names(self) -> list[str]:
        return [seat.name for seat in self.seats]


def seat_lines(participants: Sequence[MatchParticipant], players_per_match: int) -> list[SeatLine]:
    per_point = units_per_point(players_per_match)
    return [
        SeatLine(
            name=p.entrant.name,
            rank=p.rank,
            score="" if p.score is None else points_text(float(p.score)),
            points="" if p.match_units is None else points_text(Fraction(p.match_units, per_point)),
        )
        for p in participants
    ]


def set_lines(
    participants: Sequence[MatchParticipant], table: Sequence[tuple[Game, Sequence[MatchSet]]]
) -> list[SetLine]:
    keys = [str(p.entrant_id) for p in participants]
    lines = []
    for game, sets in table:
        for row in sets:
            cells = []
            for key in keys:
                figures = row.scores.get(key, {})
                cells.append((figures.get("cards", "–"), figures.get("aces", "–"), figures.get("points", "–")))
            lines.append(SetLine(game=game.number, number=row.number, cells=cells))
    return lines


def race_lines(participants: Sequence[MatchParticipant], races: Sequence[GameRace]) -> list[RaceLine]:
    names = {p.entrant_id: p.entrant.name for p in participants}
    lines = []
    for race in races:
        for step in race.rounds:
            lines.append(
                RaceLine(
                    game=race.game.number,
                    number=step.number,
                    cells=[step.points.get(p.entrant_id, ("–", "–")) for p in participants],
                    play_on=step.play_on,
                    past_target=[names.get(e, str(e)) for e in step.passed_target],
                )
            )
    return lines


def pretty_json(value: Any, *, compact: bool = False) -> str:
    text = json.dumps(value, separators=(",", ":")) if compact else json.dumps(value, indent=2, sort_keys=True)
    return format_html('<pre style="white-space: pre-wrap; max-height: 40em; overflow: auto">{}</pre>', text)


def options_help() -> str:
    """Every game's options, for the create form."""
    parts = []
    for name in GAME_NAMES:
        described = get_game(name).OPTIONS.describe()
        listed = ", ".join(f"{o['name']} (default {o['default']!r})" for o in described) or "none"
        parts.append(f"{name}: {listed}")
    # The admin prints help text unescaped, so the engine's words are escaped here.
    return escape('A JSON object, e.g. {"target_points": 50}. Options by game — ' + "; ".join(parts) + ".")


# --- Scope -------------------------------------------------------------------------------------------


class CompetitionPartAdmin(ClubScopedAdmin):
    """Something played in a competition: organisers see those of their clubs' competitions."""

    club_lookup = "competition__club_id"


def runs_competition(request: HttpRequest, competition: Competition) -> bool:
    return is_superuser(request) or competition.club_id in organised_club_ids(request)


# --- Competitions ------------------------------------------------------------------------------------


class CompetitionAddForm(forms.ModelForm):
    organiser = forms.ModelChoiceField(
        queryset=Player.objects.none(), help_text="Recorded as the creator and first organiser of the competition."
    )
    options = forms.JSONField(required=False, initial=dict, help_text=options_help())
    games_per_match = forms.IntegerField(min_value=1, max_value=1000, initial=1)
    players_per_match = forms.IntegerField(min_value=2, max_value=12, initial=2)
    seed = forms.IntegerField(
        required=False, min_value=0, max_value=2**62, help_text="Leave empty for a random seed; fix it to replay."
    )

    class Meta:
        model = Competition
        fields = [
            "club",
            "name",
            "kind",
            "game",
            "format",
            "players_per_match",
            "games_per_match",
            "max_entrants",
            "options",
            "seed",
        ]

    request: HttpRequest

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        clubs = Club.objects.all()
        me = own_player(self.request)
        if is_superuser(self.request):
            organisers = Player.objects.select_related("user")
            self.fields["organiser"].widget = player_lookup()
        else:
            clubs = clubs.filter(pk__in=organised_club_ids(self.request))
            organisers = Player.objects.filter(pk=me.pk if me else None)
        self.fields["club"].queryset = clubs
        self.fields["organiser"].queryset = organisers
        if me is not None:
            self.fields["organiser"].initial = me.pk
        if clubs.count() == 1:
            self.fields["club"].initial = clubs.get().pk

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        game, people = data.get("game"), data.get("players_per_match")
        if game and people and "options" not in self.errors:
            try:
                data["options"] = validate_ruleset(
                    game=game, options=data.get("options") or {}, players_per_match=people
                )
            except ValidationError as error:
                add_service_errors(self, error)
        limit = data.get("max_entrants")
        if limit is not None and people and limit < people:
            self.add_error("max_entrants", f"must leave room for at least one match of {people}")
        return data


class CompetitionChangeForm(forms.ModelForm):
    """The name can change at any time; rules and size only while entries are open (competition_update).

    The fields are the model's, not declared here, so the admin can drop the read-only ones once the
    competition has started.
    """

    class Meta:
        model = Competition
        fields = ["name", "games_per_match", "max_entrants", "options"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if "games_per_match" in self.fields:
            self.fields["games_per_match"].validators += [MinValueValidator(1), MaxValueValidator(1000)]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        competition: Competition = self.instance
        if "options" in self.changed_data and "options" not in self.errors:
            try:
                data["options"] = validate_ruleset(
                    game=competition.game,
                    options=data.get("options") or {},
                    players_per_match=competition.players_per_match,
                )
            except ValidationError as error:
                add_service_errors(self, error)
        return data


class EntrantInline(admin.TabularInline):
    """The entrant list: read-only, and an entrant can be withdrawn until the competition starts."""

    model = Entrant
    fields = ["name", "bot_version", "player", "joined_at"]
    readonly_fields = fields
    extra = 0
    show_change_link = True

    def get_queryset(self, request: HttpRequest) -> QuerySet[Entrant]:
        return super().get_queryset(request).select_related("bot_version__bot", "player")

    def has_view_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return can_organise(request)

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        # New entrants come through "Add entrants", which checks the game, readiness and room.
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return isinstance(obj, Competition) and obj.status == Competition.Status.OPEN and runs_competition(request, obj)


#: The buttons that run a competition, by step name.
RUN_STEPS = {
    "start": "Start (close entries, build the rounds)",
    "play": "Play pending matches now",
    "retry": "Retry matches in error",
    "cancel": "Cancel…",
}


def available_steps(competition: Competition, progress: dict[str, int]) -> list[str]:
    """The steps that make sense for the competition as it stands (the services refuse the others anyway)."""
    if competition.status == Competition.Status.OPEN:
        return ["start", "cancel"]
    if competition.status == Competition.Status.RUNNING:
        steps = ["play"] if progress["pending"] else []
        return [*steps, *(["retry"] if progress["error"] else []), "cancel"]
    return []


def run_step(step: str, competition: Competition) -> tuple[int, str]:
    """Do one step through its service; (message level, message). A refusal raises ValidationError."""
    if step == "start":
        started = competition_start(competition=competition)
        return messages.SUCCESS, f"Started {started.name}: {matches(started.matches.count())} scheduled."
    if step == "play":
        played = competition_play_pending(competition=competition)
        failed = list(competition.matches.filter(status=Match.Status.ERROR).values_list("error", flat=True)[:1])
        if failed:
            return messages.WARNING, f"Played {matches(played)} of {competition.name}; some are in error: {failed[0]}"
        if played == 0:
            return messages.WARNING, f"{competition.name} has no pending matches to play."
        return messages.SUCCESS, f"Played {matches(played)} of {competition.name}."
    if step == "retry":
        errored = list(competition.matches.filter(status=Match.Status.ERROR))
        if not errored:
            raise ValidationError({"matches": f"no match of {competition.name} is in error"})
        for match in errored:
            match_retry(match=match)
        return messages.SUCCESS, f"{matches(len(errored))} of {competition.name} pending again: play them now."
    if step == "cancel":
        competition_cancel(competition=competition)
        return messages.SUCCESS, f"Cancelled {competition.name}; recorded results stay."
    raise ValidationError({"step": f"unknown step {step!r}"})


class AddEntrantsForm(forms.Form):
    bot_versions = forms.ModelMultipleChoiceField(
        queryset=BotVersion.objects.none(), required=False, widget=FilteredSelectMultiple("bot versions", False)
    )
    players = forms.ModelMultipleChoiceField(
        queryset=Player.objects.none(),
        required=False,
        widget=FilteredSelectMultiple("players", False),
        help_text="Club members who play in person: their matches are refereed games, not played by the engine.",
    )

    def __init__(self, *args: Any, competition: Competition, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        entered = competition.entrants.all()
        # NOT IN over a subquery with NULLs matches nothing, so each subquery keeps only its own kind.
        versions = (
            BotVersion.objects.filter(
                bot__game=competition.game, status=BotVersion.Status.READY, bot__retired_at__isnull=True
            )
            .exclude(pk__in=entered.filter(bot_version__isnull=False).values("bot_version_id"))
            .select_related("bot__owner")
            .order_by("bot__name", "number")
        )
        players = (
            Player.objects.filter(memberships__club_id=competition.club_id)
            .exclude(pk__in=entered.filter(player__isnull=False).values("player_id"))
            .order_by("display_name", "id")
            .distinct()
        )
        self.fields["bot_versions"].queryset = versions
        self.fields["bot_versions"].label_from_instance = lambda v: (
            f"{v.bot.name} v{v.number} — {v.strategy or v.kind}, {v.bot.owner.display_name}"
        )
        self.fields["players"].queryset = players

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if not data.get("bot_versions") and not data.get("players") and not self.errors:
            raise ValidationError("choose at least one bot version or player")
        return data


@admin.register(Competition)
class CompetitionAdmin(ClubScopedAdmin):
    list_display = ["name", "club", "game", "kind", "format", "status", "entrant_count", "progress", "created_at"]
    list_filter = ["game", "status", "kind", "format", ("club", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["name", "club__name"]
    list_select_related = ["club"]
    ordering = ["-created_at", "-id"]
    date_hierarchy = "created_at"
    inlines = [EntrantInline]
    actions = ["start_competitions", "play_pending_matches", "retry_errored_matches", "cancel_competitions"]
    change_form_template = "admin/tournaments/competition/change_form.html"
    info_fields = [
        "club",
        "kind",
        "game",
        "format",
        "players_per_match",
        "seed",
        "status",
        "organiser_list",
        "created_by",
        "created_at",
        "started_at",
        "finished_at",
    ]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Competition]:
        return (
            super()
            .get_queryset(request)
            .annotate(
                entrant_total=Count("entrants", distinct=True),
                match_total=Count("matches", distinct=True),
                match_done=Count("matches", filter=Q(matches__status=Match.Status.DONE), distinct=True),
            )
        )

    @admin.display(description="Entrants", ordering="entrant_total")
    def entrant_count(self, competition: Competition) -> int:
        return getattr(competition, "entrant_total", 0)

    @admin.display(description="Matches done")
    def progress(self, competition: Competition) -> str:
        return f"{getattr(competition, 'match_done', 0)} / {getattr(competition, 'match_total', 0)}"

    @admin.display(description="Organisers")
    def organiser_list(self, competition: Competition) -> str:
        return ", ".join(p.display_name for p in competition.organisers.all())

    # Permissions: organisers add to their clubs, and change (edit, enter, run) their clubs' competitions.

    def has_add_permission(self, request: HttpRequest) -> bool:
        return can_organise(request)

    def has_change_permission(self, request: HttpRequest, obj: Competition | None = None) -> bool:
        return can_organise(request) and self.in_scope(request, obj)

    def has_run_permission(self, request: HttpRequest) -> bool:
        return can_organise(request)

    # The forms: one to create through competition_create, one to edit through competition_update.

    def get_form(
        self, request: HttpRequest, obj: Competition | None = None, change: bool = False, **kwargs: Any
    ) -> Any:
        if obj is None:
            kwargs["form"] = type("BoundCompetitionAddForm", (CompetitionAddForm,), {"request": request})
        else:
            kwargs["form"] = CompetitionChangeForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fieldsets(self, request: HttpRequest, obj: Competition | None = None) -> list[tuple[str | None, Any]]:
        if obj is None:
            return [(None, {"fields": [*CompetitionAddForm.Meta.fields[:-1], "organiser", "seed"]})]
        return [
            (None, {"fields": ["name", "games_per_match", "max_entrants", "options"]}),
            ("Competition", {"fields": self.info_fields}),
        ]

    def get_readonly_fields(self, request: HttpRequest, obj: Competition | None = None) -> list[str]:
        if obj is None:
            return []
        if obj.status == Competition.Status.OPEN:
            return list(self.info_fields)
        # Once the schedule exists its rules are fixed: only the name can still change.
        return [*self.info_fields, "games_per_match", "max_entrants", "options"]

    def save_model(self, request: HttpRequest, obj: Competition, form: forms.ModelForm, change: bool) -> None:
        data = form.cleaned_data
        if change:
            changed = set(form.changed_data)
            competition_update(
                competition=obj,
                name=data["name"] if "name" in changed else None,
                options=data["options"] if "options" in changed else None,
                games_per_match=data["games_per_match"] if "games_per_match" in changed else None,
                max_entrants=data["max_entrants"] if "max_entrants" in changed else UNCHANGED,
            )
            return
        created = competition_create(
            club=data["club"],
            created_by=data["organiser"],
            name=data["name"],
            game=data["game"],
            options=data["options"],
            kind=data["kind"],
            format=data["format"],
            players_per_match=data["players_per_match"],
            games_per_match=data["games_per_match"],
            max_entrants=data["max_entrants"],
            seed=data["seed"],
        )
        adopt(obj, created)

    def save_related(self, request: HttpRequest, form: forms.ModelForm, formsets: Any, change: bool) -> None:
        # The organisers were set by competition_create; only the entrant list's withdrawals remain.
        for formset in formsets:
            self.save_formset(request, form, formset, change)

    def save_formset(self, request: HttpRequest, form: forms.ModelForm, formset: Any, change: bool) -> None:
        withdrawn = [entrant_form.instance for entrant_form in formset.deleted_forms]
        for entrant in withdrawn:
            entrant_withdraw(entrant=entrant)
        formset_saved(formset, deleted=list(withdrawn))

    def get_inlines(self, request: HttpRequest, obj: Competition | None) -> list[type[admin.TabularInline]]:
        # A new competition has no entrants; they join once it exists.
        return list(self.inlines) if obj is not None else []

    def response_add(
        self, request: HttpRequest, obj: Competition, post_url_continue: str | None = None
    ) -> HttpResponse:
        # The next step after creating is entering people and bots, which happens on the competition's page.
        if "_addanother" not in request.POST and "_popup" not in request.POST:
            self.message_user(request, f"Created {obj.name}: add its entrants, then start it.", messages.SUCCESS)
            return HttpResponseRedirect(self._change_url(obj))
        return super().response_add(request, obj, post_url_continue)

    # The page: standings, each match's sets or race, and the buttons that run the competition.

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        competition = self.get_object(request, object_id)
        context = dict(extra_context or {})
        if competition is not None:
            progress = competition_progress(competition)
            labels, lines = standings_lines(competition)
            context.update(
                tiebreak_labels=labels,
                standing_lines=lines,
                match_views=[
                    MatchView(
                        match=sheet.match,
                        round_number=sheet.match.round.number,
                        seats=seat_lines(sheet.participants, competition.players_per_match),
                        set_lines=set_lines(sheet.participants, sheet.set_table),
                        race_lines=race_lines(sheet.participants, sheet.race),
                    )
                    for sheet in competition_match_sheets(competition)
                ],
                progress=progress,
                banter_target=BANTER_TARGET,
                run_buttons=[(step, RUN_STEPS[step]) for step in available_steps(competition, progress)]
                if self.has_run_permission(request)
                else [],
                can_add_entrants=competition.status == Competition.Status.OPEN and self.has_run_permission(request),
            )
        return super().change_view(request, object_id, form_url, context)

    def get_urls(self) -> list[URLPattern]:
        own = [
            path(
                "<path:object_id>/run/",
                self.admin_site.admin_view(self.run_view),
                name="tournaments_competition_run",
            ),
            path(
                "<path:object_id>/entrants/add/",
                self.admin_site.admin_view(self.add_entrants_view),
                name="tournaments_competition_add_entrants",
            ),
        ]
        return own + super().get_urls()

    def _runnable(self, request: HttpRequest, object_id: str) -> Competition:
        if not self.has_run_permission(request):
            raise PermissionDenied
        competition = self.get_object(request, object_id)
        if competition is None:
            # Outside the organiser's clubs, or no such competition: the same answer for both.
            raise Http404("no such competition")
        return competition

    def _change_url(self, competition: Competition) -> str:
        return reverse("admin:tournaments_competition_change", args=[competition.pk])

    def run_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        if request.method != "POST":
            return HttpResponseRedirect(reverse("admin:tournaments_competition_change", args=[object_id]))
        competition = self._runnable(request, object_id)
        step = request.POST.get("step", "")
        if step == "cancel" and request.POST.get("confirmed") != "yes":
            # Cancelling cannot be undone: the button asks once more, as Django's delete does.
            context = {
                **self.admin_site.each_context(request),
                "title": f"Cancel {competition.name}?",
                "opts": self.opts,
                "original": competition,
                "progress": competition_progress(competition),
            }
            return TemplateResponse(request, "admin/tournaments/competition/confirm_cancel.html", context)
        self._run(request, step, [competition])
        return HttpResponseRedirect(self._change_url(competition))

    def add_entrants_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        competition = self._runnable(request, object_id)
        if competition.status != Competition.Status.OPEN:
            self.message_user(
                request, f"Entries are closed: {competition.name} is {competition.status}.", messages.ERROR
            )
            return HttpResponseRedirect(self._change_url(competition))
        form = AddEntrantsForm(request.POST if request.method == "POST" else None, competition=competition)
        if request.method == "POST" and form.is_valid():
            try:
                # All or nothing: a refusal part-way (a full list, say) leaves the list as it was.
                with transaction.atomic():
                    joined = [
                        entrant_join(competition=competition, bot_version=v) for v in form.cleaned_data["bot_versions"]
                    ]
                    joined += [entrant_join(competition=competition, player=p) for p in form.cleaned_data["players"]]
            except ValidationError as error:
                add_service_errors(form, error)
            else:
                names = ", ".join(e.name for e in joined)
                self.message_user(request, f"Entered in {competition.name}: {names}.", messages.SUCCESS)
                return HttpResponseRedirect(self._change_url(competition))
        context = {
            **self.admin_site.each_context(request),
            "title": f"Add entrants to {competition.name}",
            "opts": self.opts,
            "original": competition,
            "competition": competition,
            "form": form,
            "media": self.media + form.media,
        }
        return TemplateResponse(request, "admin/tournaments/competition/add_entrants.html", context)

    # Changelist actions: the same steps for several competitions at once.

    def _run(self, request: HttpRequest, step: str, competitions: Sequence[Competition]) -> None:
        for competition in competitions:
            try:
                level, text = run_step(step, competition)
            except ValidationError as error:
                self.message_user(request, f"{competition.name}: {service_error_text(error)}", messages.ERROR)
            else:
                self.message_user(request, text, level)

    @admin.action(description="Start the selected competitions", permissions=["run"])
    def start_competitions(self, request: HttpRequest, queryset: QuerySet[Competition]) -> None:
        self._run(request, "start", list(queryset.order_by("id")))

    @admin.action(description="Play the pending matches of the selected competitions now", permissions=["run"])
    def play_pending_matches(self, request: HttpRequest, queryset: QuerySet[Competition]) -> None:
        self._run(request, "play", list(queryset.order_by("id")))

    @admin.action(description="Retry the matches in error of the selected competitions", permissions=["run"])
    def retry_errored_matches(self, request: HttpRequest, queryset: QuerySet[Competition]) -> None:
        self._run(request, "retry", list(queryset.order_by("id")))

    @admin.action(description="Cancel the selected competitions", permissions=["run"])
    def cancel_competitions(self, request: HttpRequest, queryset: QuerySet[Competition]) -> None:
        self._run(request, "cancel", list(queryset.order_by("id")))


# --- What is played in them ---------------------------------------------------------------------------


@admin.register(Entrant)
class EntrantAdmin(CompetitionPartAdmin):
    list_display = ["name", "competition", "kind", "bot_version", "player", "joined_at"]
    list_filter = ["competition__game", ("competition", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["name", "competition__name", "player__display_name", "bot_version__bot__name"]
    list_select_related = ["competition", "bot_version__bot", "player"]
    readonly_fields = ["competition", "name", "bot_version", "player", "joined_at"]

    @admin.display(description="Kind")
    def kind(self, entrant: Entrant) -> str:
        return "bot" if entrant.bot_version_id is not None else "person"


class MatchInline(admin.TabularInline):
    model = Match
    fields = ["number", "status", "finished_at"]
    readonly_fields = fields
    extra = 0
    show_change_link = True

    def has_view_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return can_organise(request)

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


@admin.register(Round)
class RoundAdmin(CompetitionPartAdmin):
    list_display = ["__str__", "competition", "match_count", "created_at"]
    list_filter = ["competition__game", ("competition", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["competition__name"]
    list_select_related = ["competition"]
    ordering = ["competition_id", "number"]
    readonly_fields = ["competition", "number", "created_at"]
    inlines = [MatchInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Round]:
        return super().get_queryset(request).annotate(match_total=Count("matches"))

    @admin.display(description="Matches", ordering="match_total")
    def match_count(self, round_: Round) -> int:
        return getattr(round_, "match_total", 0)


class ParticipantInline(admin.TabularInline):
    model = MatchParticipant
    fields = ["seat", "entrant", "rank", "score", "match_units"]
    readonly_fields = fields
    extra = 0

    def get_queryset(self, request: HttpRequest) -> QuerySet[MatchParticipant]:
        return super().get_queryset(request).select_related("entrant")

    def has_view_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return can_organise(request)

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


@admin.register(Match)
class MatchAdmin(CompetitionPartAdmin):
    list_display = ["__str__", "competition", "round_number", "number", "seated", "status", "finished_at"]
    list_filter = ["status", "competition__game", ("competition", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["competition__name", "participants__entrant__name"]
    list_select_related = ["competition", "round"]
    readonly_fields = [
        "competition",
        "round",
        "number",
        "status",
        "error",
        "seed",
        "rated",
        "created_at",
        "started_at",
        "finished_at",
    ]
    inlines = [ParticipantInline]
    actions = ["retry_matches"]
    change_form_template = "admin/tournaments/match/change_form.html"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Match]:
        return super().get_queryset(request).prefetch_related("participants__entrant")

    @admin.display(description="Round", ordering="round__number")
    def round_number(self, match: Match) -> int:
        return match.round.number

    @admin.display(description="Participants (rank)")
    def seated(self, match: Match) -> str:
        return ", ".join(
            p.entrant.name if p.rank is None else f"{p.entrant.name} ({p.rank})"
            for p in sorted(match.participants.all(), key=lambda p: p.seat)
        )

    def has_run_permission(self, request: HttpRequest) -> bool:
        return can_organise(request)

    @admin.action(description="Retry the selected matches in error (back to pending)", permissions=["run"])
    def retry_matches(self, request: HttpRequest, queryset: QuerySet[Match]) -> None:
        retried = 0
        for match in queryset.order_by("id"):
            try:
                match_retry(match=match)
            except ValidationError as error:
                self.message_user(request, f"{match}: {service_error_text(error)}", messages.ERROR)
            else:
                retried += 1
        if retried:
            self.message_user(
                request,
                f"{matches(retried)} pending again: play them from their competition's page.",
                messages.SUCCESS,
            )

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        match = self.get_object(request, object_id)
        context = dict(extra_context or {})
        if match is not None:
            participants = list(match.participants.select_related("entrant").order_by("seat"))
            game = match.competition.game
            context.update(
                seat_names=[p.entrant.name for p in participants],
                set_lines=set_lines(participants, match_set_table(match)) if game == "1923" else [],
                race_lines=race_lines(participants, match_race(match)) if game == "banter" else [],
                banter_target=BANTER_TARGET,
            )
        return super().change_view(request, object_id, form_url, context)


@admin.register(Game)
class GameAdmin(ClubScopedAdmin):
    club_lookup = "match__competition__club_id"
    list_display = ["__str__", "match", "competition", "number", "winner", "seed", "recorded_at"]
    list_filter = ["match__competition__game", ("match__competition", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["match__competition__name", "winner__name"]
    list_select_related = ["match__competition", "winner"]
    date_hierarchy = "recorded_at"
    fields = [
        "match",
        "number",
        "winner",
        "seating_view",
        "seed",
        "options_view",
        "result_view",
        "verdict",
        "deal_view",
        "record_view",
        "recorded_at",
    ]
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[Game]:
        queryset = super().get_queryset(request)
        match = request.resolver_match
        if match is not None and match.url_name == "tournaments_game_changelist":
            # A list never shows the records, and a page of 1923 records is megabytes.
            queryset = queryset.defer("record", "deal")
        return queryset

    @admin.display(description="Competition", ordering="match__competition__name")
    def competition(self, game: Game) -> Competition:
        return game.match.competition

    @admin.display(description="Seating (entrant ids by seat)")
    def seating_view(self, game: Game) -> str:
        return pretty_json(game.seating)

    @admin.display(description="Options")
    def options_view(self, game: Game) -> str:
        return pretty_json(game.options)

    @admin.display(description="Result")
    def result_view(self, game: Game) -> str:
        return pretty_json(game.result)

    @admin.display(description="Deal")
    def deal_view(self, game: Game) -> str:
        return pretty_json(game.deal)

    @admin.display(description="Record (replayable)")
    def record_view(self, game: Game) -> str:
        return pretty_json(game.record, compact=True)

    @admin.display(description="Replay check")
    def verdict(self, game: Game) -> str:
        try:
            return str(verify(Record.from_dict(game.record)))
        except EngineError as error:
            return f"unreadable record: {error}"


@admin.register(MatchSet)
class MatchSetAdmin(ClubScopedAdmin):
    club_lookup = "match__competition__club_id"
    list_display = ["__str__", "match", "game_number", "number", "play_on", "score_summary"]
    list_filter = ["play_on", "match__competition__game", ("match__competition", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["match__competition__name"]
    list_select_related = ["match", "game"]
    fields = ["match", "game", "number", "play_on", "scores_view"]
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[MatchSet]:
        # The game rides along for its number only; its record stays in the database.
        return super().get_queryset(request).defer("game__record", "game__deal")

    @admin.display(description="Game", ordering="game__number")
    def game_number(self, row: MatchSet) -> int:
        return row.game.number

    @admin.display(description="Scores by entrant id")
    def score_summary(self, row: MatchSet) -> str:
        return "; ".join(
            f"{entrant}: " + ", ".join(f"{key} {value}" for key, value in figures.items())
            for entrant, figures in row.scores.items()
        )

    @admin.display(description="Scores by entrant id")
    def scores_view(self, row: MatchSet) -> str:
        return pretty_json(row.scores)


@admin.register(Standing)
class StandingAdmin(CompetitionPartAdmin):
    list_display = [
        "entrant",
        "competition",
        "played",
        "won",
        "drawn",
        "lost",
        "match_points",
        "games_won",
        "mu",
        "sigma",
        "ordinal",
    ]
    list_filter = ["competition__game", ("competition", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["entrant__name", "competition__name"]
    list_select_related = ["entrant", "competition"]
    ordering = ["competition_id", "-match_units", "entrant__name"]
    fields = [
        "competition",
        "entrant",
        "played",
        "won",
        "drawn",
        "lost",
        "match_points",
        "match_units",
        "games_played",
        "games_won",
        "set_points",
        "cards_won",
        "trick_points",
        "rounds_needed",
        "total_score",
        "mu",
        "sigma",
        "ordinal",
        "updated_at",
    ]
    readonly_fields = fields

    @admin.display(description="Match points", ordering="match_units")
    def match_points(self, standing: Standing) -> str:
        return points_text(Fraction(standing.match_units, units_per_point(standing.competition.players_per_match)))
