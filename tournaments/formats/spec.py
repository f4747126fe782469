"""Settings declared once: each a typed field with its bounds, default, words for people and when it may change.

A competition's settings are read through one function (``settings_read``) whoever sends them: the API's
serializers and the admin's forms are generated from the same fields (tournaments/api/format_fields.py,
tournaments/admin/format_fields.py), and the services check every change through it, so the three can
never disagree about a bound or about which settings a format has.

Values are plain JSON (whole numbers, numbers, true/false, text, or null), which is how a format's own
settings are stored (``Competition.settings``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

#: A setting's value as stored and as sent.
Value = int | float | bool | str | None


class Changes(Enum):
    """When a setting may change."""

    #: Only when the competition is created.
    AT_CREATION = "at_creation"
    #: While entries are open: once a schedule or a live table exists, it was made with these.
    WHILE_OPEN = "while_open"
    #: At any time: it changes nothing already played (a ladder's reach, who may watch).
    ANY_TIME = "any_time"


class SettingRefused(ValueError):
    """A value a setting does not take; the message says what it takes, in plain words."""


@dataclass(frozen=True, kw_only=True)
class Setting:
    name: str
    #: What a form's label says.
    label: str
    #: One line for the form and the API's schema: what it does, in plain words.
    help: str
    default: Value
    changes: Changes = Changes.WHILE_OPEN
    #: Whether null (an empty form field) is a value of its own, such as "the standard number".
    nullable: bool = False
    #: Whether a stage that cuts to this format sets it for the format (a knockout's advance_count), as a
    #: setting of the stage (tournaments/formats/stages.py).
    from_stage: bool = False
    #: The heading a form shows it under, with the other settings of that heading; "" for the format's own
    #: part (a stage's cut to a knockout is a part of its own).
    section: str = ""

    def parse(self, value: object) -> Value:
        """The value as stored, or SettingRefused."""
        if value is None:
            if self.nullable:
                return None
            raise SettingRefused("give a value: this setting cannot be empty")
        return self._parse(value)

    def _parse(self, value: object) -> Value:
        raise NotImplementedError

    @property
    def kind(self) -> str:
        """The JSON type of its values, for the schema and the forms."""
        raise NotImplementedError


def _whole(value: object) -> int:
    # A flag is not a number, even where Python would count it as one.
    if isinstance(value, bool) or not isinstance(value, int):
        raise SettingRefused("give a whole number")
    return value


@dataclass(frozen=True, kw_only=True)
class WholeNumber(Setting):
    minimum: int
    maximum: int

    def _parse(self, value: object) -> Value:
        number = _whole(value)
        if not self.minimum <= number <= self.maximum:
            raise SettingRefused(f"must be between {self.minimum} and {self.maximum}")
        return number

    @property
    def kind(self) -> str:
        return "integer"


@dataclass(frozen=True, kw_only=True)
class Seconds(WholeNumber):
    """A time in whole seconds, as the API sends it; a form takes and shows it in words ("3 days")."""


@dataclass(frozen=True, kw_only=True)
class Number(Setting):
    minimum: float | None = None
    maximum: float | None = None
    #: Whether the bounds themselves are refused (a probability strictly between 0 and 1).
    exclusive: bool = False

    def _parse(self, value: object) -> Value:
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise SettingRefused("give a number")
        number = float(value)
        low, high = self.minimum, self.maximum
        if self.exclusive and ((low is not None and number <= low) or (high is not None and number >= high)):
            raise SettingRefused(f"must be more than {low:g} and less than {high:g}")
        if (low is not None and number < low) or (high is not None and number > high):
            raise SettingRefused(f"must be between {low:g} and {high:g}")
        return number

    @property
    def kind(self) -> str:
        return "number"


@dataclass(frozen=True, kw_only=True)
class Flag(Setting):
    def _parse(self, value: object) -> Value:
        if not isinstance(value, bool):
            raise SettingRefused("give true or false")
        return value

    @property
    def kind(self) -> str:
        return "boolean"


@dataclass(frozen=True, kw_only=True)
class Choice(Setting):
    #: (value, words for people), in the order a form lists them.
    choices: tuple[tuple[str, str], ...]

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(value for value, _ in self.choices)

    def _parse(self, value: object) -> Value:
        if not isinstance(value, str) or value not in self.values:
            raise SettingRefused(f"choose one of {', '.join(repr(v) for v in self.values)}")
        return value

    @property
    def kind(self) -> str:
        return "string"


@dataclass(frozen=True, kw_only=True)
class CompetitionRef(Setting):
    """Another competition, by id (which the format then checks: the same club and game, say)."""

    def _parse(self, value: object) -> Value:
        pk = getattr(value, "pk", value)  # a form or serializer may hand over the row itself
        number = _whole(pk)
        if number < 1:
            raise SettingRefused("give a competition's id")
        return number

    @property
    def kind(self) -> str:
        return "integer"


@dataclass(frozen=True, kw_only=True)
class BotVersionRef(Setting):
    """A bot version, by id (which the format then checks)."""

    def _parse(self, value: object) -> Value:
        pk = getattr(value, "pk", value)
        number = _whole(pk)
        if number < 1:
            raise SettingRefused("give a bot version's id")
        return number

    @property
    def kind(self) -> str:
        return "integer"


Spec = tuple[Setting, ...]


def defaults(spec: Spec) -> dict[str, Value]:
    return {setting.name: setting.default for setting in spec}


def stored(spec: Spec, values: Mapping[str, Any]) -> dict[str, Value]:
    """The settings as kept: every setting of ``spec``, its default where ``values`` lacks it."""
    return {setting.name: values.get(setting.name, setting.default) for setting in spec}


@dataclass(frozen=True)
class Refusals:
    """Every refused setting with why, by name: the services raise it as one ValidationError."""

    by_name: dict[str, str]

    def __bool__(self) -> bool:
        return bool(self.by_name)


def settings_read(
    spec: Spec,
    given: Mapping[str, object],
    *,
    owner: str,
    base: Mapping[str, Value] | None = None,
    status_words: str | None = None,
) -> tuple[dict[str, Value], Refusals]:
    """``given`` read against ``spec``: the settings as they will be stored (``base`` with the changes, or
    the defaults with them), and every refusal by setting name.

    - a name ``spec`` lacks is refused, naming what ``owner`` (say, "a Swiss") does have;
    - a value of the wrong type or out of bounds is refused with its bounds;
    - with ``status_words`` (the competition is not open, or is being changed after creation), a
      setting that may not change then is refused and says why.
    """
    by_name = {setting.name: setting for setting in spec}
    values = dict(base) if base is not None else defaults(spec)
    refused: dict[str, str] = {}
    for name, raw in given.items():
        setting = by_name.get(name)
        if setting is None:
            refused[name] = f"{owner} has no setting {name!r}: its settings are {_names(by_name)}"
            continue
        try:
            value = setting.parse(raw)
        except SettingRefused as exc:
            refused[name] = str(exc)
            continue
        if base is not None and value == base.get(name):
            continue  # unchanged: a form sends every field back, changed or not
        why = _not_now(setting, status_words, creating=base is None)
        if why:
            refused[name] = why
            continue
        values[name] = value
    return values, Refusals(refused)


def _not_now(setting: Setting, status_words: str | None, *, creating: bool) -> str:
    if creating:
        return ""
    if setting.changes is Changes.AT_CREATION:
        return "is set when the competition is created and cannot change"
    if setting.changes is Changes.WHILE_OPEN and status_words is not None:
        return f"can change only while entries are open; the competition is {status_words}"
    return ""


def _names(settings: Iterable[str]) -> str:
    names = sorted(settings)
    return ", ".join(names) if names else "none"
