"""A JSON document stored as text: for records that are written in bulk and read whole, never queried.

PostgreSQL's jsonb parses and re-encodes every value on insert, which for a
game's record costs more than playing a War game. These documents are only
ever read back whole, so they are kept as the compact JSON text the engine
wrote, and decoded in Python when a row is read.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models

_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
# The C encoder behind json's, made once: JSONEncoder.encode builds a new one on every call,
# which is most of the cost of a small document (a War game's result). Same text; only the
# circular-reference check is left out, as these documents come from the engine.
_c_make_encoder = getattr(json.encoder, "c_make_encoder", None)
_C_ENCODE = (
    None
    if _c_make_encoder is None
    else _c_make_encoder(None, _ENCODER.default, json.encoder.encode_basestring, None, ":", ",", False, False, True)
)


def encode_compact(value: Any) -> str:
    """Compact JSON text, non-ASCII characters kept as they are."""
    if _C_ENCODE is None:
        return _ENCODER.encode(value)
    return "".join(_C_ENCODE(value, 0))


class EncodedJSON(str):
    """Text already encoded by :data:`encode_compact`: a :class:`JSONTextField` stores it as it is."""

    __slots__ = ()


class JSONTextField(models.TextField):  # type: ignore[type-arg]
    description = "JSON document stored as text"

    def from_db_value(self, value: str | None, expression: Any, connection: Any) -> Any:
        return None if value is None else json.loads(value)

    def to_python(self, value: Any) -> Any:
        if isinstance(value, str):
            try:
                return json.loads(value)
            except ValueError as exc:
                raise ValidationError(f"not valid JSON: {exc}") from None
        return value

    def get_prep_value(self, value: Any) -> Any:
        if isinstance(value, EncodedJSON):
            return str(value)
        return None if value is None else encode_compact(value)

    def value_to_string(self, obj: models.Model) -> str:
        value = self.value_from_object(obj)
        return str(value) if isinstance(value, EncodedJSON) else encode_compact(value)
