"""A competition's own format settings, read typed: what its format declared, the stored value or the default.

Settings are stored whole when a competition is created or changed (services/competitions.py); the
default covers a competition made another way (a test's factory, say).
"""

from __future__ import annotations

from tournaments.formats.registry import format_of
from tournaments.formats.spec import Value
from tournaments.models import Competition


def setting(competition: Competition, name: str) -> Value:
    if name in competition.settings:
        value: Value = competition.settings[name]
        return value
    for declared in format_of(competition).settings:
        if declared.name == name:
            return declared.default
    raise KeyError(f"a {competition.format} competition has no setting {name!r}")


def whole_setting(competition: Competition, name: str) -> int | None:
    value = setting(competition, name)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def number_setting(competition: Competition, name: str) -> float:
    value = setting(competition, name)
    return float(value) if isinstance(value, int | float) else 0.0


def text_setting(competition: Competition, name: str) -> str:
    value = setting(competition, name)
    return value if isinstance(value, str) else ""


def flag_setting(competition: Competition, name: str) -> bool:
    return setting(competition, name) is True
