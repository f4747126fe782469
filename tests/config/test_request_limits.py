"""A request body declared too big is refused with 413 before anything reads it (config/request_limits.py)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_a_body_declared_too_big_is_refused_before_it_is_read(settings: Any) -> None:
    settings.MAX_REQUEST_BYTES = 1000
    client = Client()
    # The body is never read: a declared length is enough to refuse it.
    response = client.post("/api/auth/token/", data=b"{}", content_type="application/json", CONTENT_LENGTH="5000")
    assert response.status_code == 413
    assert response.json() == {"detail": "the request body is 5,000 bytes; at most 1,000 are accepted"}
    small = client.post("/api/auth/token/", {"username": "x", "password": "y"}, content_type="application/json")
    assert small.status_code == 400  # read and answered as usual
