"""Untrusted input at the API's edge: ids in query strings and JSON bodies, refused with a 400, never a 500.

A query-string id beyond what a database column holds made PostgreSQL's driver raise
OverflowError, and JSON nested a thousand deep made the parser raise RecursionError:
both were 500s (issue 11, findings 1 and 2).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, TypeVar

import django_filters as filters
from django import forms
from django.http import QueryDict
from drf_spectacular.utils import extend_schema_field
from rest_framework import parsers, serializers
from rest_framework.exceptions import ParseError

_T = TypeVar("_T")

#: The largest value a BigIntegerField (and so any id) holds.
MAX_ID = 2**63 - 1


class _Digits(forms.IntegerField):
    """Digits only: Django's own also takes ``1.0``, `` 1`` and other scripts' digits for 1."""

    def to_python(self, value: Any) -> int | None:
        if value not in self.empty_values and not re.fullmatch(r"-?[0-9]+", str(value)):
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return super().to_python(value)


# The schema states the bounds, so a client (and the fuzz gate) knows a negative id is refused, not looked up.
@extend_schema_field({"type": "integer", "format": "int64", "minimum": 0, "maximum": MAX_ID})
class WholeNumberFilter(filters.Filter):
    """A whole number from 0 to MAX_ID: an id or a count; anything else is a 400 naming the filter."""

    field_class = _Digits

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", 0)
        kwargs.setdefault("max_value", MAX_ID)
        super().__init__(*args, **kwargs)


class _TrueOrFalse(forms.Field):
    def to_python(self, value: Any) -> bool | None:
        if value in self.empty_values:
            return None
        text = str(value).lower()
        if text in ("true", "1"):
            return True
        if text in ("false", "0"):
            return False
        raise forms.ValidationError("give true or false", code="invalid")


@extend_schema_field({"type": "boolean"})
class BooleanFilter(filters.BooleanFilter):
    """true or false (1 or 0); anything else is a 400 naming the filter.

    django-filter's own reads anything but true and false (``?retired=null``, ``?retired=yes``) as no
    filter at all, so a typo answered with the whole list.
    """

    # django-filter takes any form field here; its stubs allow only BooleanFilter's own NullBooleanField.
    field_class = _TrueOrFalse  # type: ignore[assignment]


# An input serializer that holds a body to what its schema states (a comment, not a docstring: the
# schema would describe every input with it):
# - in a JSON body each value has its own type (null is left to the field). DRF reads form fields,
#   which are all text, and so takes 0 for a name, "5" for a count and "yes" for a flag in JSON too;
#   a form body is still read as DRF reads it;
# - text is no longer than its maxLength as sent. DRF measures it after trimming the spaces around it,
#   so 81 characters with a space at the end passed as 80.
class JSONInput(serializers.Serializer[_T]):
    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            typed = not isinstance(data, QueryDict)
            wrong: dict[str, list[str]] = {}
            for name, field in self.fields.items():
                if field.read_only or name not in data:
                    continue
                message = (_json_type_error(field, data[name]) if typed else None) or _too_long(field, data[name])
                if message is not None:
                    wrong[name] = [message]
            if wrong:
                raise serializers.ValidationError(wrong)
        return super().to_internal_value(data)


def validated(serializer: serializers.Serializer[Any]) -> dict[str, Any]:
    """The serializer's valid data, or its 400; then the serializer is let go at once.

    A serializer and its fields refer to each other (each field's ``parent``, its ``fields``), so every one
    used was left for the garbage collector: dozens of objects a request. Where requests are many and short
    (a move at a live table) that is worth freeing as the data is read (config/sync_lane.py, ``_free``).
    """
    serializer.is_valid(raise_exception=True)
    data = dict(serializer.validated_data)
    vars(serializer).clear()
    return data


def _too_long(field: serializers.Field[Any, Any, Any, Any], value: Any) -> str | None:
    limit = field.max_length if isinstance(field, serializers.CharField) else None
    if limit is not None and isinstance(value, str) and len(value) > limit:
        return str(field.error_messages["max_length"]).format(max_length=limit)
    return None


def _json_type_error(field: serializers.Field[Any, Any, Any, Any], value: Any) -> str | None:
    if value is None:
        return None
    whole = isinstance(value, int) and not isinstance(value, bool)
    if isinstance(field, serializers.ManyRelatedField):
        if isinstance(value, list) and not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            return "Incorrect type. Expected a list of pk values."
        return None
    if isinstance(field, serializers.PrimaryKeyRelatedField):
        return None if whole else f"Incorrect type. Expected pk value, received {type(value).__name__}."
    if isinstance(field, serializers.MultipleChoiceField):
        return None
    if isinstance(field, serializers.ChoiceField):
        # Only where DRF would take it (1923 for "1923"); any other value gets DRF's own message, naming it.
        lenient = not isinstance(value, str) and str(value) in field.choice_strings_to_values
        return "Not a valid string." if lenient else None
    if isinstance(field, serializers.CharField):
        return None if isinstance(value, str) else "Not a valid string."
    if isinstance(field, serializers.BooleanField):
        return None if isinstance(value, bool) else "Must be a valid boolean."
    if isinstance(field, serializers.IntegerField):
        return None if whole else "A valid integer is required."
    if isinstance(field, serializers.FloatField):
        return None if whole or isinstance(value, float) else "A valid number is required."
    return None


@extend_schema_field({"type": "object", "additionalProperties": {}})
class JSONObjectField(serializers.JSONField):
    """A JSON object (what the service then checks key by key); anything else is refused, null included."""


class JSONParser(parsers.JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply") from None
