"""The formats a competition can have, registered once each, as games are (engine/games).

The built-in formats are registered when the app is ready (tournaments/apps.py); a test may register one of
its own. Nothing else keeps a list of formats: the API's choices, the admin's and the schema come from here.
"""

from __future__ import annotations

import re

from django.core.exceptions import ValidationError

from tournaments.formats.base import Format
from tournaments.models import Competition

_FORMATS: dict[str, Format] = {}

#: The format of a competition created without naming one.
DEFAULT_FORMAT = "round_robin"


class UnknownFormat(LookupError):
    """A competition's format this server does not have (a format module removed, say)."""


#: What a format must have (the ``Format`` protocol's members): checked when one registers, since a format kept
#: outside this package (COMPETITION_FORMATS, tournaments/formats/outside.py) is not held to the protocol by mypy.
_MEMBERS = sorted({*Format.__annotations__, *(name for name in vars(Format) if not name.startswith("_"))})
#: A key is stored in ``Competition.format`` (24 characters) and read in URLs and the API's choices.
_KEY = re.compile(r"[a-z][a-z0-9_]{0,23}")


def register(format: Format) -> Format:
    """Add a format; its key must be new, and it must have every member of the protocol."""
    missing = [name for name in _MEMBERS if not hasattr(format, name)]
    if missing:
        raise ValueError(f"{format!r} is not a competition format: it lacks {', '.join(missing)}")
    if not isinstance(format.key, str) or not _KEY.fullmatch(format.key):
        raise ValueError(
            f"a format's key is 1 to 24 lower-case letters, digits or _, starting with a letter: {format.key!r}"
        )
    if format.key in _FORMATS:
        raise ValueError(f"a format {format.key!r} is registered already")
    _FORMATS[format.key] = format
    return format


def unregister(key: str) -> None:
    """Take a format away again (a test's own, once the test is over)."""
    _FORMATS.pop(key, None)


def format_keys() -> list[str]:
    return list(_FORMATS)


def all_formats() -> list[Format]:
    return list(_FORMATS.values())


def get_format(key: str) -> Format:
    try:
        return _FORMATS[key]
    except KeyError:
        raise UnknownFormat(f"no competition format {key!r} on this server") from None


def format_of(competition: Competition) -> Format:
    return get_format(competition.format)


def chosen_format(key: object) -> Format:
    """The format a creation names, or a ValidationError listing the formats there are."""
    if isinstance(key, str) and key in _FORMATS:
        return _FORMATS[key]
    raise ValidationError({"format": f"choose one of {', '.join(_FORMATS)}"})


def format_choices() -> list[tuple[str, str]]:
    return [(format.key, format.label) for format in _FORMATS.values()]


def is_default_format(format: Format) -> bool:
    """Whether a creation that names no format makes a competition of this one."""
    return format.key == DEFAULT_FORMAT
