"""Swagger UI at /api/docs/ in a real browser with the internet cut off (issue 11, finding 8).

Every request to another host is aborted, as on a club's machine without internet: the page must
still draw every operation of the schema from the project's own static files.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.e2e.conftest import SCREENSHOTS

pytestmark = pytest.mark.django_db


def test_the_api_docs_draw_every_operation_offline(browser: Any, live_server: Any) -> None:
    local = urlsplit(live_server.url).netloc
    outside: list[str] = []

    def only_local(route: Any) -> None:
        if urlsplit(route.request.url).netloc == local:
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    context = browser.new_context()
    page = context.new_page()
    page.route("**/*", only_local)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{live_server.url}/api/docs/")
    page.wait_for_selector(".opblock", timeout=15_000)
    operations = page.locator(".opblock").count()
    schema = page.request.get(f"{live_server.url}/api/schema/?format=json").json()
    documented = sum(
        1 for methods in schema["paths"].values() for method in methods if method in {"get", "post", "patch", "delete"}
    )
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "api-docs-offline.png"))
    context.close()
    assert operations == documented > 40
    assert outside == []
    assert errors == []
