"""Times in words for people's forms: "3 days" rather than 259200. The API and the stored settings keep whole
seconds; only the forms (the website's and the admin's) read and write these words."""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.core.exceptions import ValidationError

_UNITS: tuple[tuple[str, int], ...] = (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1))
_SPELLINGS: dict[str, int] = {
    **{word: 1 for word in ("s", "sec", "secs", "second", "seconds")},
    **{word: 60 for word in ("m", "min", "mins", "minute", "minutes")},
    **{word: 3600 for word in ("h", "hr", "hrs", "hour", "hours")},
    **{word: 86400 for word in ("d", "day", "days")},
    **{word: 7 * 86400 for word in ("w", "wk", "wks", "week", "weeks")},
}
_PART = re.compile(r"(\d+(?:[.,]\d+)?)\s*([a-z]+)")
EXAMPLES = "for example 90 seconds, 5 minutes, 1 hour 30 minutes or 3 days"


def _counted(count: int, unit: str) -> str:
    return f"{count} {unit}" if count == 1 else f"{count} {unit}s"


def seconds_in_words(seconds: int) -> str:
    """The time in days, hours, minutes and seconds, leaving out the units that are 0 ("1 hour 30 minutes")."""
    if seconds <= 0:
        return _counted(seconds, "second")
    parts: list[str] = []
    left = seconds
    for unit, size in _UNITS:
        if left >= size:
            parts.append(_counted(left // size, unit))
            left %= size
    return " ".join(parts)


def seconds_from_words(text: str) -> int:
    """Whole seconds from words such as "3 days" or "1h 30m"; ValueError says what was not understood."""
    words = re.sub(r"\band\b", " ", text.strip().lower())
    if not words:
        raise ValueError(f"give a time, {EXAMPLES}")
    if words.replace(".", "", 1).isdigit():
        raise ValueError(f"say what unit: {words} seconds, minutes, hours or days?")
    total = 0.0
    position = 0
    for found in _PART.finditer(words):
        if words[position : found.start()].strip(" ,"):
            break
        size = _SPELLINGS.get(found.group(2))
        if size is None:
            raise ValueError(f"“{found.group(2)}” is not a unit of time: {EXAMPLES}")
        total += float(found.group(1).replace(",", ".")) * size
        position = found.end()
    if position == 0 or words[position:].strip(" ,"):
        raise ValueError(f"“{text.strip()}” is not a time this form understands: {EXAMPLES}")
    return round(total)


class SecondsField(forms.Field):
    """A whole number of seconds, typed and shown as words, within bounds said in words too."""

    def __init__(self, *, minimum: int, maximum: int, **kwargs: Any) -> None:
        self.minimum, self.maximum = minimum, maximum
        super().__init__(**kwargs)

    def prepare_value(self, value: Any) -> Any:
        return seconds_in_words(value) if isinstance(value, int) and not isinstance(value, bool) else value

    def to_python(self, value: Any) -> int | None:
        if value in self.empty_values:
            return None
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        try:
            return seconds_from_words(str(value))
        except ValueError as refused:
            raise ValidationError(f"{str(refused)[:1].upper()}{str(refused)[1:]}.", code="invalid") from None

    def validate(self, value: Any) -> None:
        super().validate(value)
        if value is None:
            return
        if value < self.minimum:
            raise ValidationError(f"Must be at least {seconds_in_words(self.minimum)}.", code="min_value")
        if value > self.maximum:
            raise ValidationError(f"Must be at most {seconds_in_words(self.maximum)}.", code="max_value")
