"""The organiser's competition forms: choose a game and a format, then name it and set its settings; later,
change what may still change.

Every setting field is made from the format's declared spec (tournaments/formats/form_fields.py, with the
admin's help sentences), every rule field from the game's options in the engine (web/rule_fields.py). The
forms check only the shape of each field: the services (competition_create, competition_update, and through
them settings_checked) decide, and their refusals are put on the fields they name in the form's words.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from django import forms
from django.core.exceptions import ValidationError
from django.forms import BoundField
from django.utils.html import format_html

from engine.games import get_game
from league.models import game_choices
from tournaments.admin.competition_fieldsets import PEOPLE_FIELDS
from tournaments.admin.setting_fields import in_words, setting_fields
from tournaments.formats.base import Format
from tournaments.formats.common import COMPETITION_SETTINGS, competition_spec
from tournaments.formats.durations import seconds_in_words
from tournaments.formats.form_fields import initial_values, setting_values
from tournaments.formats.registry import all_formats
from tournaments.formats.spec import Changes, Choice, Seconds, Setting, Spec
from tournaments.models import Competition
from tournaments.services.competition_settings import current_settings
from tournaments.web.refusals import call_for_form
from tournaments.web.rule_fields import PREFIX, rule_fields, rule_initial, rule_values, rules_differ, rules_in_words

NAME_HINT = "What members will see in the club's list, e.g. “Thursday cup”."
#: The hidden field that lists the settings a change page showed, so a setting left out of it is not "unset".
SHOWN = "shown"
#: Where a refusal of the rules as a whole goes (the form shows a name it has no field for before the message).
RULES_REFUSED = "The rules of the game"

T = TypeVar("T")


def format_choice_label(format: Format) -> str:
    """A format as step 1 offers it: its name, and when a club would choose it."""
    return format_html(
        '<span class="choice-name">{}</span> <span class="choice-hint">{}</span>',
        format.label,
        _sentence(format.summary),
    )


class ChooseForm(forms.Form):
    """Step 1: which game, and how it is played."""

    # Callables, read each time the form is made: a game or format registered later is offered too.
    game = forms.ChoiceField(label="Game", widget=forms.RadioSelect, choices=lambda: game_choice_labels())
    format = forms.ChoiceField(label="How it is played", widget=forms.RadioSelect, choices=lambda: format_choices())


def game_choice_labels() -> list[tuple[str, str]]:
    """Each game by its name, with how many sit at its table."""
    labels: list[tuple[str, str]] = []
    for key, name in game_choices():
        game = get_game(key)
        low, high = game.MIN_PLAYERS, game.MAX_PLAYERS
        seats = f"{low} players" if low == high else f"{low} to {high} players"
        labels.append(
            (
                key,
                format_html(
                    '<span class="choice-name">{}</span> <span class="choice-hint">For {}.</span>', name, seats
                ),
            )
        )
    return labels


def format_choices() -> list[tuple[str, str]]:
    return [(f.key, format_choice_label(f)) for f in all_formats()]


@dataclass(frozen=True)
class Section:
    heading: str
    fields: list[BoundField]
    note: str = ""


def _other_setting_names(spec: Spec) -> set[str]:
    """Settings some registered format has and this one does not: a page for this format never sends them."""
    own = {setting.name for setting in spec}
    return {s.name for f in all_formats() for s in competition_spec(f)} - own


class SettingsForm(forms.Form):
    """The fields of one format's settings and one game's rules, laid out in sections; what the services refuse
    goes on the field it names (``submit``)."""

    competition_format: Format
    game: str

    @property
    def spec(self) -> Spec:
        return competition_spec(self.competition_format)

    def settings(self) -> dict[str, object]:
        given = setting_values(tuple(s for s in self.spec if s.name in self.fields), self.cleaned_data)
        # A setting of another format sent anyway goes to the service, which refuses it by name, as the API does.
        given.update({name: self.data[name] for name in _other_setting_names(self.spec) if name in self.data})
        return given

    def rules(self) -> dict[str, object]:
        return rule_values(self.game, self.cleaned_data)

    def submit(self, call: Callable[[], T]) -> T | None:
        """Run a service for this valid form; what it refuses goes on the fields it names, in the form's words."""

        def worded() -> T:
            try:
                return call()
            except ValidationError as error:
                raise self.in_words(error) from None

        return call_for_form(self, worded)

    def in_words(self, error: ValidationError) -> ValidationError:
        """A services' refusal naming settings by their labels, and a refusal of the rules on the rule it names
        (the rest under "The rules of the game", which the form has no field for)."""
        if not hasattr(error, "error_dict"):
            return error
        by_field = dict(in_words(error, self.spec).message_dict)
        rules = by_field.pop("options", [])
        worded = rules_in_words(ValidationError({"options": rules}), self.game).messages if rules else []
        for raw, message in zip(rules, worded, strict=True):
            found = _OPTION.search(raw)
            key = PREFIX + found.group(1) if found else ""
            if key in self.fields:
                by_field.setdefault(key, []).append(message.split(": ", 1)[-1])
            else:
                by_field.setdefault(RULES_REFUSED, []).append(message)
        return ValidationError(by_field)

    def sections(self) -> list[Section]:
        """The fields under headings a club secretary would look for: the format's own first."""
        shown = set(self.fields)
        out: list[Section] = []
        if "name" in shown:
            out.append(Section("The competition", [self["name"]]))
        by_heading: dict[str, list[str]] = {}
        for setting in self.competition_format.settings:
            by_heading.setdefault(setting.section or self.competition_format.label, []).append(setting.name)
        for heading, names in by_heading.items():
            note = self.competition_format.summary if heading == self.competition_format.label else ""
            out.append(Section(heading, [self[n] for n in names if n in shown], _sentence(note)))
        common = [s.name for s in COMPETITION_SETTINGS]
        out.append(Section("Matches", [self[n] for n in common if n in shown and n not in PEOPLE_FIELDS]))
        label = get_game(self.game).PROFILE.label
        out.append(Section(f"The rules of {label}", [self[n] for n in self.fields if n.startswith(PREFIX)]))
        out.append(
            Section(
                "When people play",
                [self[n] for n in common if n in shown and n in PEOPLE_FIELDS],
                "How members play their matches; a competition of bots only can leave these.",
            )
        )
        return [section for section in out if section.fields]


def _sentence(words: str) -> str:
    words = words.strip()
    if not words:
        return ""
    words = words[0].upper() + words[1:]
    return words if words.endswith(".") else f"{words}."


#: How the engine names an option in a refusal.
_OPTION = re.compile(r"option '([^']+)'", re.IGNORECASE)


#: A choice of this many or fewer is shown as buttons, every choice readable on a phone (a list cuts long words).
FEW_CHOICES = 4


def _with_fields(form: SettingsForm, spec: Spec, competitions: Any, *, game: str, rules: bool) -> None:
    form.fields.update(setting_fields(spec, competitions=competitions))
    if rules:
        form.fields.update(rule_fields(game))
    for field in form.fields.values():
        if isinstance(field, forms.ModelChoiceField):
            field.empty_label = "None"
        if type(field) is forms.ChoiceField:
            choices = list(field.choices)  # type: ignore[arg-type]  # stubs: a field's choices are normalised
            if len(choices) <= FEW_CHOICES:
                field.widget = forms.RadioSelect(choices=choices)


class NewCompetitionForm(SettingsForm):
    """Step 2: the name, every setting of the format with its default, and the game's rules."""

    name = forms.CharField(label="Name", max_length=120, help_text=NAME_HINT)


def new_competition_form(
    format: Format, game: str, *, club_id: int, data: Mapping[str, Any] | None = None
) -> NewCompetitionForm:
    form = NewCompetitionForm(data=data)
    form.competition_format, form.game = format, game
    # A knockout seeded by another competition's standings names one of the club's of this game.
    others = Competition.objects.filter(club_id=club_id, game=game).order_by("-created_at", "-id")
    _with_fields(form, form.spec, others, game=game, rules=True)
    return form


class ChangeForm(SettingsForm):
    """What may still change: the name, the settings that may change now, the rules while entries are open.

    A setting that may not change now is shown as a fact, not a field. The page lists the fields it showed in
    ``shown``; one it showed whose value differs goes to competition_update, which refuses it if the
    competition has moved on since the page was drawn (started, say), saying why.
    """

    name = forms.CharField(label="Name", max_length=120)

    competition: Competition

    def changes(self) -> dict[str, Any]:
        """What changed, as competition_update takes it."""
        competition, data = self.competition, self.cleaned_data
        current = initial_values(self.spec, _current(competition, self.competition_format))
        settings = {name: v for name, v in self.settings().items() if v != current.get(name)}
        with_rules = any(n.startswith(PREFIX) for n in self.fields)
        return {
            "name": data["name"] if data.get("name") != competition.name else None,
            "settings": settings,
            "options": self.rules() if with_rules and rules_differ(self.game, data, competition.options) else None,
        }


def _current(competition: Competition, format: Format) -> dict[str, object]:
    return dict(current_settings(competition, format))


def changeable_now(competition: Competition, format: Format) -> list[str]:
    """The settings a change page offers now: never those fixed at creation; those fixed once entries close
    only while they are open."""
    open_ = competition.status == Competition.Status.OPEN
    return [
        s.name
        for s in competition_spec(format)
        if s.changes is Changes.ANY_TIME or (s.changes is Changes.WHILE_OPEN and open_)
    ]


def change_form(competition: Competition, format: Format, data: Mapping[str, Any] | None = None) -> ChangeForm:
    spec = competition_spec(format)
    rules_open = competition.status == Competition.Status.OPEN
    if data is None:
        names = set(changeable_now(competition, format))
        with_rules = rules_open
    else:
        # What the page showed, whatever the competition's state now: the service says what may no longer change.
        names = set(str(data.get(SHOWN, "")).split(","))
        with_rules = "rules" in names
    form = ChangeForm(data=data, initial={"name": competition.name})
    form.competition, form.competition_format, form.game = competition, format, competition.game
    others = Competition.objects.filter(club_id=competition.club_id, game=competition.game).exclude(pk=competition.pk)
    _with_fields(form, tuple(s for s in spec if s.name in names), others, game=competition.game, rules=with_rules)
    form.initial.update(initial_values(spec, _current(competition, format)))
    form.initial.update(rule_initial(competition.game, competition.options))
    form.initial[SHOWN] = ",".join([*(s.name for s in spec if s.name in names), *(["rules"] if with_rules else [])])
    form.fields[SHOWN] = forms.CharField(widget=forms.HiddenInput, required=False)
    return form


#: Why a setting the change page does not offer cannot change, by when it may.
FIXED_WHY = {
    Changes.AT_CREATION: "Chosen when the competition was created",
    Changes.WHILE_OPEN: "Fixed once the competition started",
}


def fixed_facts(competition: Competition, format: Format, form: ChangeForm) -> list[tuple[str, list[tuple[str, str]]]]:
    """The settings the page does not offer, as (why they cannot change, [(label, value)]), grouped by why."""
    current = _current(competition, format)
    groups: dict[str, list[tuple[str, str]]] = {}
    for setting in competition_spec(format):
        if setting.name not in form.fields:
            why = FIXED_WHY.get(setting.changes, "Fixed now")
            groups.setdefault(why, []).append((setting.label, shown_value(setting, current.get(setting.name))))
    return list(groups.items())


def shown_value(setting: Setting, value: object) -> str:
    """A stored setting as a person reads it: a choice by its words, a flag as yes or no, empty as "Not set"."""
    words: dict[object, str] = dict(setting.choices) if isinstance(setting, Choice) else {}
    if value is None or value == "":
        return words.get("", "Not set")
    if isinstance(value, bool):
        return "Yes" if value else "No"
    if isinstance(setting, Seconds) and isinstance(value, int):
        return seconds_in_words(value)
    return words.get(value, str(value))
