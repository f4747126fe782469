"""Django form fields from a settings spec: the admin's competition forms and the club website's take their
fields from here, so a bound, a default or a word of help is written once, in the format's module."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms
from django.db.models import QuerySet

from league.models import BotVersion
from tournaments.formats.durations import EXAMPLES, SecondsField
from tournaments.formats.spec import (
    BotVersionRef,
    Choice,
    CompetitionRef,
    Flag,
    Number,
    Seconds,
    Setting,
    Spec,
    WholeNumber,
)
from tournaments.models import Competition


def form_field(setting: Setting, *, competitions: QuerySet[Competition] | None = None) -> forms.Field:
    """The form field of one setting; ``competitions`` are those a competition setting may name."""
    common: dict[str, Any] = {
        "label": setting.label,
        "help_text": setting.help,
        "initial": setting.default,
        "required": not setting.nullable,
    }
    if isinstance(setting, Seconds):
        common["help_text"] = f"{setting.help}; write it in words, {EXAMPLES}"
        return SecondsField(minimum=setting.minimum, maximum=setting.maximum, **common)
    if isinstance(setting, WholeNumber):
        return forms.IntegerField(min_value=setting.minimum, max_value=setting.maximum, **common)
    if isinstance(setting, Number):
        return forms.FloatField(min_value=setting.minimum, max_value=setting.maximum, **common)
    if isinstance(setting, Flag):
        return forms.BooleanField(**{**common, "required": False})
    if isinstance(setting, Choice):
        # A choice of "" (no knockout to cut to, say) is a value of its own, not a field left empty.
        return forms.ChoiceField(choices=list(setting.choices), **{**common, "required": "" not in setting.values})
    if isinstance(setting, CompetitionRef):
        return forms.ModelChoiceField(queryset=competitions or Competition.objects.none(), **common)
    if isinstance(setting, BotVersionRef):
        ready = BotVersion.objects.filter(status=BotVersion.Status.READY).select_related("bot")
        return forms.ModelChoiceField(queryset=ready, **common)
    raise TypeError(f"no form field for a {type(setting).__name__}")


def form_fields(spec: Spec, *, competitions: QuerySet[Competition] | None = None) -> dict[str, forms.Field]:
    return {setting.name: form_field(setting, competitions=competitions) for setting in spec}


def setting_values(spec: Spec, cleaned: Mapping[str, Any]) -> dict[str, object]:
    """A form's cleaned values of ``spec``'s settings, as the services take them (rows by their id)."""
    values: dict[str, object] = {}
    for setting in spec:
        if setting.name not in cleaned:
            continue
        value = cleaned[setting.name]
        values[setting.name] = getattr(value, "pk", value) if value is not None else None
    return values


def initial_values(spec: Spec, current: Mapping[str, object]) -> dict[str, object]:
    return {setting.name: current.get(setting.name, setting.default) for setting in spec}
