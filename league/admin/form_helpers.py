"""Small form pieces the league and competition admins share: a typed field lookup, a player search box."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.admin.widgets import AutocompleteSelect

from league.models import Membership

#: What ``get_fields`` returns, as django-stubs types it: field names, or a row of names shown on one line.
FieldGroups = list[str | list[str] | tuple[str, ...]]


def model_choice_field(form: forms.BaseForm, name: str) -> forms.ModelChoiceField[Any]:
    """A form's model choice field by name (``form.fields`` holds them as plain Fields)."""
    field = form.fields[name]
    if not isinstance(field, forms.ModelChoiceField):
        raise TypeError(f"{type(form).__name__}.{name} is not a ModelChoiceField")
    return field


def player_lookup() -> AutocompleteSelect:
    """A search box over all players (the list could be long), answered by PlayerAdmin's search."""
    return AutocompleteSelect(Membership._meta.get_field("player"), admin.site)
