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

encode_compact = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


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
        return None if value is None else encode_compact(value)

    def value_to_string(self, obj: models.Model) -> str:
        return encode_compact(self.value_from_object(obj))
