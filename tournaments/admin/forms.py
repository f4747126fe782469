"""The competition forms: each checks what it can up front and asks the services about the ruleset."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.admin.widgets import FilteredSelectMultiple
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.utils.functional import lazy
from django.utils.html import escape

from engine.games import game_names, get_game
from league.admin.form_helpers import model_choice_field, player_lookup
from league.admin.permissions import is_superuser, members_only, organised_club_ids, own_player
from league.admin.service_errors import add_service_errors
from league.models import BotVersion, Club, Player
from tournaments.admin.competition_fieldsets import form_spec
from tournaments.admin.setting_fields import closed_note, fix, fixed_note, in_words, setting_fields
from tournaments.formats.base import Format
from tournaments.formats.common import competition_spec
from tournaments.formats.form_fields import initial_values, setting_values
from tournaments.formats.registry import UnknownFormat, format_of
from tournaments.formats.spec import Spec
from tournaments.models import Competition
from tournaments.services.competition_settings import current_settings, settings_checked
from tournaments.services.competitions import validate_ruleset


def options_help() -> str:
    """Every game's options, for the create form."""
    parts = []
    for name in game_names():
        described = get_game(name).OPTIONS.describe()
        listed = ", ".join(f"{o['name']} (default {o['default']!r})" for o in described) or "none"
        parts.append(f"{name}: {listed}")
    # The admin prints help text unescaped, so the engine's words are escaped here.
    return escape('A JSON object, e.g. {"target_points": 50}. Options by game — ' + "; ".join(parts) + ".")


def check_options(form: forms.BaseForm, data: dict[str, Any], *, game: str, players_per_match: int) -> None:
    """Replace ``data["options"]`` by the ruleset validate_ruleset makes of it, or put its refusal on the form."""
    try:
        data["options"] = validate_ruleset(
            game=game, options=data.get("options") or {}, players_per_match=players_per_match
        )
    except ValidationError as error:
        add_service_errors(form, error)


def _settings_checked(
    form: forms.BaseForm,
    format: Format,
    given: dict[str, object],
    *,
    club_id: int,
    game: str,
    current: Competition | None,
) -> None:
    """Check the form's settings on the services' one path (services/competition_settings.py); a refusal goes
    on the field it names, in the form's words."""
    try:
        settings_checked(format=format, given=given, club_id=club_id, game=game, current=current)
    except ValidationError as error:
        add_service_errors(form, in_words(error, competition_spec(format)))


def _spec_errors(form: forms.BaseForm, spec: Spec) -> bool:
    """Whether a setting's own field refused its value: the settings are then not checked together, since
    the services would read a default in its place and could refuse a value nobody gave."""
    return any(setting.name in form.errors for setting in spec)


class CompetitionAddForm(forms.ModelForm[Competition]):
    """A new competition of one format (``competition_format``): its fields are the settings every competition
    has and the format's own, made from their specs (tournaments/formats/form_fields.py)."""

    organiser = forms.ModelChoiceField(
        queryset=Player.objects.none(), help_text="Recorded as the creator and first organiser of the competition."
    )
    options = forms.JSONField(
        label="Rules (options)", required=False, initial=dict, help_text=lazy(options_help, str)()
    )
    seed = forms.IntegerField(
        required=False,
        min_value=0,
        max_value=2**62,
        # People's matches never derive from it (services/round_rows.py, match_seed); it stays hidden until the end.
        help_text="Leave empty for a random seed; fix it to replay the bot-only matches. "
        "Matches with people get secret seeds of their own. Shown once the competition is over.",
    )

    class Meta:
        model = Competition
        fields = ["club", "name", "game"]

    #: Set by competition_add_form: the format, and the request (the clubs and organisers offered depend on it).
    competition_format: Format
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
            organisers = Player.objects.filter(pk=me.pk) if me else Player.objects.none()
        model_choice_field(self, "club").queryset = clubs
        model_choice_field(self, "organiser").queryset = organisers
        self.fields.update(setting_fields(self.spec, competitions=Competition.objects.filter(club__in=clubs)))
        if me is not None:
            self.fields["organiser"].initial = me.pk
        if clubs.count() == 1:
            self.fields["club"].initial = clubs.get().pk

    @property
    def spec(self) -> Spec:
        return form_spec(self.competition_format)

    def settings(self) -> dict[str, object]:
        return setting_values(self.spec, self.cleaned_data)

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        game, people, club = data.get("game"), data.get("players_per_match"), data.get("club")
        if game and people and "options" not in self.errors:
            check_options(self, data, game=game, players_per_match=people)
        # A bad ruleset and a bad setting are told together, so one round trip shows every refusal.
        if game and club is not None and not _spec_errors(self, self.spec):
            _settings_checked(self, self.competition_format, self.settings(), club_id=club.pk, game=game, current=None)
        return data


def competition_add_form(format: Format, request: HttpRequest) -> type[CompetitionAddForm]:
    return type("CompetitionAddFormFor", (CompetitionAddForm,), {"competition_format": format, "request": request})


class CompetitionChangeForm(forms.ModelForm[Competition]):
    """The name at any time; every setting, those that may no longer change disabled with a note saying why
    (most change only while entries are open, a ladder's reach at any time); the ruleset while entries are
    open. Through competition_update, which checks them on the same path as the form.

    A browser does not send a disabled field; a value sent for one anyway that differs from the stored one
    is refused on its field, never dropped in silence.
    """

    options = forms.JSONField(label="Rules (options)", required=False, help_text=lazy(options_help, str)())

    class Meta:
        model = Competition
        fields = ["name"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        competition: Competition = self.instance
        format = self.format
        if format is None:
            # Its settings cannot be read without their spec: only the name can change.
            self.initial["options"] = competition.options
            fix(self.fields["options"], "Fixed: this server does not have the competition's format.")
            return
        others = Competition.objects.filter(club_id=competition.club_id).exclude(pk=competition.pk)
        self.fields.update(setting_fields(self.spec, competitions=others))
        for name, value in initial_values(self.spec, current_settings(competition, format)).items():
            self.initial[name] = value
        self.initial["options"] = competition.options
        for setting in self.spec:
            note = fixed_note(setting, competition)
            if note:
                fix(self.fields[setting.name], note)
        if competition.status != Competition.Status.OPEN:
            fix(self.fields["options"], closed_note(competition))

    @property
    def format(self) -> Format | None:
        """The competition's format; None if this server does not have it (a format module removed)."""
        try:
            return format_of(self.instance)
        except UnknownFormat:
            return None

    @property
    def spec(self) -> Spec:
        return () if self.format is None else form_spec(self.format)

    def _changed(self) -> set[str]:
        # A disabled JSONField counts itself changed when nothing was sent (Django compares with None).
        return {name for name in self.changed_data if not self.fields[name].disabled}

    def changed_settings(self) -> dict[str, object]:
        """The settings whose fields changed."""
        changed = self._changed()
        return {name: value for name, value in setting_values(self.spec, self.cleaned_data).items() if name in changed}

    def update_arguments(self) -> dict[str, Any]:
        """What changed, as competition_update takes it (what did not change left out)."""
        changed, data = self._changed(), self.cleaned_data
        return {
            "name": data["name"] if "name" in changed else None,
            "options": data["options"] if "options" in changed else None,
            "settings": self.changed_settings(),
        }

    def _sent_to_fixed(self, name: str) -> tuple[bool, object]:
        """Whether the request sent a value for the disabled field ``name`` (a browser never does), and that
        value read by the field; a value the field refuses goes on it."""
        field, key = self.fields[name], self.add_prefix(name)
        if key not in self.data:
            return False, None
        try:
            return True, field.clean(field.widget.value_from_datadict(self.data, self.files, key))
        except ValidationError as error:
            self.add_error(name, error)
            return False, None

    def fixed_changes(self) -> dict[str, object]:
        """The settings sent for disabled fields with a value other than the stored one: the services refuse
        them, saying why."""
        format = self.format
        if format is None:
            return {}
        current = current_settings(self.instance, format)
        sent: dict[str, object] = {}
        for setting in self.spec:
            if not self.fields[setting.name].disabled:
                continue
            given, value = self._sent_to_fixed(setting.name)
            if given:
                sent.update(setting_values((setting,), {setting.name: value}))
        return {name: value for name, value in sent.items() if value != current.get(name)}

    def _fixed_options_changed(self) -> None:
        competition: Competition = self.instance
        given, value = self._sent_to_fixed("options")
        if not given or value == competition.options:
            return
        if competition.status == Competition.Status.OPEN:  # open, but of a format this server lacks
            self.add_error("options", "Cannot change: this server does not have the competition's format.")
        else:  # the words competition_update refuses it with
            self.add_error(
                "options", f"Can change only while entries are open; the competition is {competition.status}."
            )

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        competition: Competition = self.instance
        if self.fields["options"].disabled:
            self._fixed_options_changed()
        elif "options" in self._changed() and "options" not in self.errors:
            check_options(self, data, game=competition.game, players_per_match=competition.players_per_match)
        given = {**self.changed_settings(), **self.fixed_changes()}
        format = self.format
        if given and format is not None and not _spec_errors(self, self.spec):
            _settings_checked(
                self, format, given, club_id=competition.club_id, game=competition.game, current=competition
            )
        return data


class BotVersionsField(forms.ModelMultipleChoiceField[BotVersion]):
    """Bot versions offered by bot, number, strategy and owner rather than by their str()."""

    def label_from_instance(self, obj: BotVersion) -> str:
        return f"{obj.bot.name} v{obj.number} — {obj.strategy or obj.kind}, {obj.bot.owner.display_name}"


class AddEntrantsForm(forms.Form):
    bot_versions = BotVersionsField(
        queryset=BotVersion.objects.none(), required=False, widget=FilteredSelectMultiple("bot versions", False)
    )
    players = forms.ModelMultipleChoiceField(
        queryset=Player.objects.none(),
        required=False,
        widget=FilteredSelectMultiple("players", False),
        help_text="Club members who play in person: their matches are refereed games, not played by the engine.",
    )

    def __init__(self, *args: Any, competition: Competition, request: HttpRequest, **kwargs: Any) -> None:
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
        # An organiser is offered their clubs' members' bots, never another club's (issue 21, finding 8).
        versions = members_only(request, versions, "bot__owner")
        players = (
            Player.objects.filter(memberships__club_id=competition.club_id)
            .exclude(pk__in=entered.filter(player__isnull=False).values("player_id"))
            .order_by("display_name", "id")
            .distinct()
        )
        model_choice_field(self, "bot_versions").queryset = versions
        model_choice_field(self, "players").queryset = players

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if not data.get("bot_versions") and not data.get("players") and not self.errors:
            raise ValidationError("choose at least one bot version or player")
        return data
