"""Untrusted input at the API's edge: ids in query strings and JSON bodies, refused with a 400, never a 500.

A query-string id beyond what a database column holds made PostgreSQL's driver raise
OverflowError, and JSON nested a thousand deep made the parser raise RecursionError:
both were 500s (issue 11, findings 1 and 2).
"""

from __future__ import annotations

from typing import Any

import django_filters as filters
from django import forms
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import parsers
from rest_framework.exceptions import ParseError

#: The largest value a BigIntegerField (and so any id) holds.
MAX_ID = 2**63 - 1


@extend_schema_field(OpenApiTypes.INT)
class WholeNumberFilter(filters.Filter):
    """A whole number from 0 to MAX_ID: an id or a count; anything else is a 400 naming the filter."""

    field_class = forms.IntegerField

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", 0)
        kwargs.setdefault("max_value", MAX_ID)
        super().__init__(*args, **kwargs)


class JSONParser(parsers.JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply") from None
