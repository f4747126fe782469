"""The settings as the admin's competition forms show them: fields made from the specs
(tournaments/formats/form_fields.py) with their help as sentences, a note on those that may not change now,
and refusals in the words of the form (a setting's label where the services name it)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from django import forms
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.text import capfirst

from tournaments.formats.form_fields import form_fields
from tournaments.formats.spec import Changes, Choice, Setting, Spec
from tournaments.models import Competition


def _sentence(words: str) -> str:
    # The specs' words are fragments, so that the API can show them too.
    words = capfirst(words.strip()) or ""
    return words if words.endswith((".", "?", "!")) else f"{words}."


def sentence(words: str) -> SafeString:
    """Help as a sentence, escaped: the admin prints help text as HTML."""
    return format_html("{}", _sentence(words))


def setting_fields(spec: Spec, *, competitions: QuerySet[Competition]) -> dict[str, forms.Field]:
    fields = form_fields(spec, competitions=competitions)
    for field in fields.values():
        field.help_text = sentence(str(field.help_text))
    return fields


def fixed_note(setting: Setting, competition: Competition) -> str:
    """Why a setting of ``competition`` may not change now, in words for its form; "" if it may."""
    if setting.changes is Changes.AT_CREATION:
        return "Fixed when the competition was created."
    if setting.changes is Changes.WHILE_OPEN and competition.status != Competition.Status.OPEN:
        return closed_note(competition)
    return ""


def closed_note(competition: Competition) -> str:
    return f"Fixed once entries closed; the competition is {competition.status}."


def fix(field: forms.Field, note: str) -> None:
    """Disable a field, saying why under it."""
    field.disabled = True
    field.help_text = format_html('{} <strong class="fixed-note">{}</strong>', field.help_text, note)


def _identifiers(spec: Spec) -> dict[str, str]:
    """What the services call a setting or one of its choices (a knockout to cut to), by how the form shows it:
    names with an underscore only, which no sentence uses as a word."""
    words = {setting.name: f"“{setting.label}”" for setting in spec}
    for setting in spec:
        if isinstance(setting, Choice):
            words.update({value: label for value, label in setting.choices if value not in words})
    return {name: label for name, label in words.items() if "_" in name}


def in_words(error: ValidationError, spec: Spec) -> ValidationError:
    """A services' refusal as a sentence, naming settings (``must be at least move_seconds``) as the form's labels
    do; the field each message is on stays as it was."""
    if not hasattr(error, "error_dict"):
        return error
    words = _identifiers(spec)
    pattern = re.compile(r"\b(" + "|".join(re.escape(name) for name in sorted(words, key=len, reverse=True)) + r")\b")

    def said(message: str) -> str:
        return _sentence(pattern.sub(lambda found: words[found.group(1)], message) if words else message)

    by_field: Mapping[str, list[str]] = error.message_dict
    return ValidationError({field: [said(message) for message in messages] for field, messages in by_field.items()})
