"""How the competition forms lay the settings out: the format's own under its name (and each section of them,
a stage's knockout, under its heading), then the settings every competition has, grouped as a club secretary
thinks of them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.utils.html import format_html
from django.utils.text import capfirst

from tournaments.formats.base import Format
from tournaments.formats.common import COMPETITION_SETTINGS, competition_spec
from tournaments.formats.spec import Spec
from tournaments.models import Competition

if TYPE_CHECKING:
    # Only in django-stubs: the shape of ModelAdmin.fieldsets.
    from django.contrib.admin.options import _FieldOpts

#: The settings every competition has that concern people at live tables; the others, and any added later,
#: go with the matches.
PEOPLE_FIELDS = ("people_play", "move_seconds", "game_seconds", "live_tables_public")


def people_may_enter(format: Format) -> bool:
    """Whether people may enter a competition of ``format``: a rating ladder is for bots only."""
    return not format.entrant_refusal(Competition(format=format.key), person=True)


def form_spec(format: Format) -> Spec:
    """The settings the forms show for ``format``: every competition's and the format's own, less those of
    people at live tables where people may not enter (the services keep their defaults)."""
    spec = competition_spec(format)
    return spec if people_may_enter(format) else tuple(s for s in spec if s.name not in PEOPLE_FIELDS)


def common_fieldsets(format: Format) -> list[tuple[str, _FieldOpts]]:
    names = [setting.name for setting in COMPETITION_SETTINGS]
    fieldsets: list[tuple[str, _FieldOpts]] = [
        ("Matches", {"fields": [*(n for n in names if n not in PEOPLE_FIELDS), "options"]})
    ]
    if people_may_enter(format):
        fieldsets.append(
            (
                "People at live tables",
                {
                    "fields": [n for n in names if n in PEOPLE_FIELDS],
                    "description": "How entrants who are people play; a competition of bots only can leave these.",
                },
            )
        )
    return fieldsets


def format_fieldsets(format: Format, *, choose_again: str = "") -> list[tuple[str, _FieldOpts]]:
    """The format's own settings under its name, with what it is for (and, while adding, a way back to the
    choice of format); then each section of its settings under its own heading."""
    description = format_html("{}.", capfirst(format.summary))
    if choose_again:
        description = format_html('{} <a href="{}">Choose another format</a>.', description, choose_again)
    sections: dict[str, list[str]] = {"": []}
    for setting in format.settings:
        sections.setdefault(setting.section, []).append(setting.name)
    own = sections.pop("")
    fieldsets: list[tuple[str, _FieldOpts]] = [(format.label, {"fields": [*own], "description": description})]
    for heading, names in sections.items():
        fieldsets.append((heading, {"fields": [*names]}))
    return fieldsets
