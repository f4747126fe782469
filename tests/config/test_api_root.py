"""The API's front door and its docs (issue 11, finding 8): /api/ lists the collections, unknown paths get
JSON, and Swagger UI is served from the project's own static files."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.staticfiles import finders
from django.test import Client

pytestmark = pytest.mark.django_db


def test_the_root_lists_every_collection_and_each_link_answers() -> None:
    client = Client()
    response = client.get("/api/")
    assert response.status_code == 200
    links = response.json()
    assert {"tournaments", "matches", "games", "clubs", "players", "bots", "schema", "docs"} <= set(links)
    for name, url in links.items():
        assert url.startswith("http://testserver/api/"), url
        # The token is POST only; one's own matches need a login.
        expected = {"token": 405, "my_matches": 401}.get(name, 200)
        assert client.get(url).status_code == expected, name


@pytest.mark.parametrize("debug", [True, False])
def test_an_unknown_api_path_is_a_json_404_that_lists_nothing(settings: Any, debug: bool) -> None:
    settings.DEBUG = debug
    for method in ("get", "post", "delete"):
        response = getattr(Client(), method)("/api/no-such-thing/")
        assert response.status_code == 404
        assert response["Content-Type"] == "application/json"
        assert "GET /api/ lists the collections" in response.json()["detail"]
        assert "urlpatterns" not in response.content.decode()


def test_swagger_ui_loads_its_files_from_our_static_files_not_a_cdn() -> None:
    page = Client().get("/api/docs/").content.decode()
    sources = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert sources, page
    assert all(source.startswith("/static/") for source in sources), sources
    assert "cdn" not in page.lower()
    for source in sources:
        assert finders.find(source.removeprefix("/static/")), f"{source} is not among the static files"
