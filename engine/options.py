"""Ruleset options: declared once per game, validated at every boundary.

Values may arrive as JSON values (API, records) or as strings (CLI
``--option key=value``); both are coerced to the declared type or rejected
with an :class:`OptionError` naming the option.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.errors import OptionError, shown

_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


@dataclass(frozen=True)
class Option:
    name: str
    kind: type  # int, bool or str
    default: Any
    help: str
    choices: tuple[Any, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None
    nullable: bool = False
    # For people, on the website's competition form: ``help`` above speaks to the CLI and the API, in the
    # options' own names. Empty means "made from the name" (a game from outside may declare none).
    label: str = ""
    words: str = ""
    # One label per choice, in the order of ``choices``.
    choice_labels: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.choice_labels is not None and len(self.choice_labels) != len(self.choices or ()):
            raise ValueError(f"option {self.name!r}: one choice label per choice")

    def coerce(self, value: object) -> Any:
        if value is None or (isinstance(value, str) and value.lower() in {"null", "none"} and self.nullable):
            if self.nullable:
                return None
            raise OptionError(self.name, "must not be null")
        if self.kind is bool:
            parsed: Any = _coerce_bool(self.name, value)
        elif self.kind is int:
            parsed = _coerce_int(self.name, value)
        else:
            if not isinstance(value, str):
                raise OptionError(self.name, f"expected text, got {shown(value)}")
            parsed = value
        if self.choices is not None and parsed not in self.choices:
            allowed = ", ".join(str(c) for c in self.choices)
            raise OptionError(self.name, f"{shown(value)} is not one of {allowed}")
        if self.minimum is not None and parsed < self.minimum:
            raise OptionError(self.name, f"{shown(parsed)} is below the minimum {self.minimum}")
        if self.maximum is not None and parsed > self.maximum:
            raise OptionError(self.name, f"{shown(parsed)} is above the maximum {self.maximum}")
        return parsed


def _coerce_bool(name: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in _TRUE | _FALSE:
        return value.lower() in _TRUE
    raise OptionError(name, f"expected true or false, got {shown(value)}")


def _coerce_int(name: str, value: object) -> int:
    if isinstance(value, bool):
        raise OptionError(name, f"expected a whole number, got {shown(value)}")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            pass
    raise OptionError(name, f"expected a whole number, got {shown(value)}")


class OptionSet:
    """The options one game accepts."""

    def __init__(self, *options: Option) -> None:
        self.options = {option.name: option for option in options}

    def parse(self, raw: Mapping[str, object] | None) -> dict[str, Any]:
        """Every option with its default filled in, or an error naming the bad one."""
        if raw is not None and not isinstance(raw, Mapping):
            # dict() would take a list of pairs, or fail with a TypeError or ValueError of its own.
            raise OptionError("options", f"expected a mapping of option names to values, got {shown(raw)}")
        raw = dict(raw or {})
        # Sorted by their text: names of mixed types (None, 1, "x") from a Python caller do not compare.
        unknown = sorted(set(raw) - set(self.options), key=_label)
        if unknown:
            known = ", ".join(sorted(self.options)) or "none"
            raise OptionError(_label(unknown[0]), f"unknown option (this game takes: {known})")
        return {
            name: option.coerce(raw[name]) if name in raw else option.default for name, option in self.options.items()
        }

    def describe(self) -> list[dict[str, Any]]:
        """A JSON description for the CLI's help and the API's schema."""
        return [
            {
                "name": o.name,
                "type": o.kind.__name__,
                "default": o.default,
                "help": o.help,
                **({"choices": list(o.choices)} if o.choices else {}),
                **({"minimum": o.minimum} if o.minimum is not None else {}),
                **({"maximum": o.maximum} if o.maximum is not None else {}),
            }
            for o in self.options.values()
        ]


def parse_assignments(pairs: list[str]) -> dict[str, str]:
    """``["a=1", "b=x"]`` from the CLI into a mapping; malformed pairs are errors."""
    result: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise OptionError(_label(pair), "expected key=value")
        result[name.strip()] = value.strip()
    return result


def _label(name: object) -> str:
    """An option's name as an error names it: as it is when it is plain text, else quoted on one short line."""
    if isinstance(name, str) and name.isprintable() and len(name) <= 80:
        return name
    return shown(name)
