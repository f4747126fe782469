"""The live table's JSON (tournaments/live_json.py): what DRF and the standard library would write, faster."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from django.utils.translation import gettext_lazy
from rest_framework.renderers import JSONRenderer

from tournaments.live_json import LiveJSONRenderer, dumps

SAMPLES: list[Any] = [
    {"match": 7, "seat": None, "legal_actions": ["play 3♥", "pass"], "scores": [1, 2.5, -3], "over": False},
    {"name": "Zoë 名前", "line": "a\u2028b\u2029c", "nested": {"deep": [[{"x": []}]]}},
    {"hands": {0: ["A♠"], 1: []}},  # seats as keys: written as text, as json.dumps writes them
    {"detail": gettext_lazy("Invalid token."), "amount": Decimal("1.50")},
    [],
    "text",
]


@pytest.mark.parametrize("data", SAMPLES)
def test_the_renderer_writes_what_drf_writes(data: Any) -> None:
    assert LiveJSONRenderer().render(data) == JSONRenderer().render(data)


@pytest.mark.parametrize("data", SAMPLES[:3])
def test_a_page_update_reads_back_as_the_standard_library_writes_it(data: Any) -> None:
    assert json.loads(dumps(data)) == json.loads(json.dumps(data))


def test_laid_out_json_when_asked_for_it() -> None:
    laid_out = LiveJSONRenderer().render({"a": [1]}, "application/json; indent=2", {})

    assert laid_out == JSONRenderer().render({"a": [1]}, "application/json; indent=2", {})
    assert b"\n" in laid_out


def test_no_data_is_no_body() -> None:
    assert LiveJSONRenderer().render(None) == b""
