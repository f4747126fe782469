"""Token and session authentication: both reach the same API, and bad credentials are a 400, not a 500."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_a_token_obtained_with_username_and_password_authenticates_writes() -> None:
    UserFactory(username="ada", password="secret-pw")
    client = APIClient()
    token = client.post("/api/auth/token/", {"username": "ada", "password": "secret-pw"}, format="json")
    assert token.status_code == 200
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.json()['token']}")
    created = client.post("/api/bots/", {"name": "Tokened", "game": "war"}, format="json")
    assert created.status_code == 201 and created.json()["owner"]["display_name"] == "ada"


def test_wrong_credentials_get_a_400_and_a_bad_token_a_401() -> None:
    UserFactory(username="ada", password="secret-pw")
    client = APIClient()
    wrong = client.post("/api/auth/token/", {"username": "ada", "password": "guess"}, format="json")
    assert wrong.status_code == 400 and "non_field_errors" in wrong.json()
    assert client.post("/api/auth/token/", {"username": "ada"}, format="json").json() == {
        "password": ["This field is required."]
    }
    client.credentials(HTTP_AUTHORIZATION="Token not-a-token")
    assert client.get("/api/bots/").status_code == 401


def test_a_session_login_authenticates_writes_and_csrf_is_enforced() -> None:
    UserFactory(username="grace", password="secret-pw")
    client = APIClient(enforce_csrf_checks=True)
    assert client.login(username="grace", password="secret-pw")
    refused = client.post("/api/bots/", {"name": "Sessioned", "game": "war"}, format="json")
    assert refused.status_code == 403 and "CSRF" in refused.json()["detail"]
    client.get("/api/auth/login/")  # sets the CSRF cookie, as a browser would
    client.credentials(HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value)
    assert client.post("/api/bots/", {"name": "Sessioned", "game": "war"}, format="json").status_code == 201


def test_anonymous_writes_are_asked_to_authenticate() -> None:
    response = APIClient().post("/api/bots/", {"name": "x", "game": "war"}, format="json")
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == "Token"
