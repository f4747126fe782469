"""A game's rules (its ruleset options) as form fields, made from the options the engine declares for it.

The engine is the one place that knows one game from another, so the fields, their bounds and their defaults
come from ``OPTIONS`` of the game (engine/options.py); the values go to the services as the API sends them
(``options``), where ``validate_ruleset`` checks them with the engine. A field's HTML name carries a prefix,
so that an option never meets a competition setting of the same name on one form.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.text import capfirst

from engine.games import get_game
from engine.options import Option

PREFIX = "rule_"


def rule_options(game: str) -> list[Option]:
    return list(get_game(game).OPTIONS.options.values())


def option_label(option: Option) -> str:
    """The game's label for the option, else its name as words ("max_rounds" → "Max rounds")."""
    return option.label or capfirst(option.name.replace("_", " ")) or option.name


def _hint(option: Option) -> str:
    words = capfirst((option.words or option.help).strip()) or ""
    return words if words.endswith(".") else f"{words}."


def _choices(option: Option) -> list[tuple[str, str]]:
    labels = option.choice_labels or tuple(str(value) for value in option.choices or ())
    return [(str(value), label) for value, label in zip(option.choices or (), labels, strict=True)]


def rule_field(option: Option) -> forms.Field:
    common: dict[str, Any] = {"label": option_label(option), "help_text": _hint(option), "initial": option.default}
    if option.kind is bool:
        return forms.BooleanField(required=False, **common)
    if option.choices is not None:
        return forms.ChoiceField(choices=_choices(option), required=True, **common)
    if option.kind is int:
        # Empty means the game's own default where the engine allows it ("decks per set: the standard").
        return forms.IntegerField(
            min_value=option.minimum, max_value=option.maximum, required=not option.nullable, **common
        )
    return forms.CharField(required=not option.nullable, **common)


def rule_fields(game: str) -> dict[str, forms.Field]:
    return {PREFIX + option.name: rule_field(option) for option in rule_options(game)}


def _typed(option: Option, value: object) -> object:
    # A choice field gives text; the engine's choices may be numbers.
    if option.choices is not None:
        return next((choice for choice in option.choices if str(choice) == value), value)
    return value


def rule_values(game: str, cleaned: Mapping[str, Any]) -> dict[str, object]:
    """The options a person changed from the game's defaults, as the API's ``options`` takes them."""
    values: dict[str, object] = {}
    for option in rule_options(game):
        key = PREFIX + option.name
        if key not in cleaned:
            continue
        value = _typed(option, cleaned[key])
        if value != option.default:
            values[option.name] = value
    return values


def rules_differ(game: str, cleaned: Mapping[str, Any], current: Mapping[str, object]) -> bool:
    """Whether the form's rules differ from the competition's ruleset as stored."""
    for option in rule_options(game):
        key = PREFIX + option.name
        if key in cleaned and _typed(option, cleaned[key]) != current.get(option.name, option.default):
            return True
    return False


def rule_initial(game: str, current: Mapping[str, object]) -> dict[str, object]:
    return {PREFIX + option.name: current.get(option.name, option.default) for option in rule_options(game)}


def rules_in_words(error: ValidationError, game: str) -> ValidationError:
    """The engine's refusal of a ruleset ("option 'max_sets': ...") naming each option as the form labels it."""
    if not hasattr(error, "error_dict"):
        return error
    labels = {option.name: option_label(option) for option in rule_options(game)}
    pattern = re.compile(r"option '([^']+)'", re.IGNORECASE)

    def said(message: str) -> str:
        return pattern.sub(lambda found: f"“{labels.get(found.group(1), found.group(1))}”", message)

    return ValidationError({field: [said(m) for m in messages] for field, messages in error.message_dict.items()})
