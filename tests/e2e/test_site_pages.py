"""The site's own pages for an unknown address and a refusal, in chromium at both widths (issue 23): never
Django's debug page listing every route, even with DEBUG on as `make run` has it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.site_checks import check_page

playwright_sync = pytest.importorskip("playwright.sync_api")
Browser = playwright_sync.Browser
Page = playwright_sync.Page

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_unknown_address_shows_the_sites_own_page_with_debug_on(page: Page, live_server: Any, settings: Any) -> None:
    settings.DEBUG = True
    response = page.goto(f"{live_server.url}/no/such/page/")
    assert response is not None and response.status == 404
    assert page.get_by_role("heading", level=1).inner_text() == "We could not find that page"
    assert "URLconf" not in page.content()  # Django's debug page lists the routes under that word
    page.get_by_role("link", name="See the clubs").wait_for()
    check_page(page, "not-found")
