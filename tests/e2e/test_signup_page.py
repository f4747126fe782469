"""Sign-up in a real browser (issue 13): a newcomer finds the sign-up page from the sign-in page, is refused a
weak password with Django's message (keeping what they typed), then signs up and lands on the front page's
dashboard, signed in, which tells them to find a club.

Debian's chromium through Playwright, against a live server; screenshots go to var/screenshots/.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from league.models import Player
from tests.e2e.conftest import SCREENSHOTS

playwright_sync = pytest.importorskip("playwright.sync_api")
Browser = playwright_sync.Browser
Page = playwright_sync.Page

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def page(browser: Browser, live_server: Any) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1000, "height": 800})
    yield context.new_page()
    context.close()


def shot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def test_a_newcomer_signs_up_from_the_sign_in_page_and_plays_at_once(page: Page, live_server: Any) -> None:
    base = str(live_server.url)
    page.goto(f"{base}/accounts/login/")
    page.locator("#main").get_by_role("link", name="Sign up").click()
    page.wait_for_url(f"{base}/accounts/signup/")
    assert page.title() == "Sign up · Card club"
    # The site's own style, not allauth's bare page.
    assert page.locator("header.site .brand").inner_text() == "Card club"
    assert page.get_by_role("link", name="Sign in").count() >= 1
    shot(page, "signup-form")

    page.get_by_label("User name").fill("Newcomer")
    page.get_by_label("Display name (optional)").fill("Nell the New")
    page.get_by_label("Email (optional)").fill("nell@example.org")
    page.get_by_label("Password").fill("12345678")
    page.get_by_role("button", name="Sign up").click()
    page.locator(".field-errors").first.wait_for()
    errors = page.locator(".field-errors").inner_text()
    assert "This password is too common." in errors and "This password is entirely numeric." in errors
    assert page.get_by_role("alert").inner_text() == "Please correct what is marked below."
    # What was typed is kept, but the password.
    assert page.get_by_label("User name").input_value() == "Newcomer"
    assert page.get_by_label("Display name (optional)").input_value() == "Nell the New"
    assert page.get_by_label("Email (optional)").input_value() == "nell@example.org"
    assert page.get_by_label("Password").input_value() == ""
    assert not Player.objects.exists()
    shot(page, "signup-refused")

    page.get_by_label("Password").fill("quiet-harbour-lantern-42")
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_url(f"{base}/")
    page.get_by_role("navigation", name="Site").get_by_role("link", name="Newcomer").wait_for()
    page.locator("#my-clubs", has_text="You are not in a club yet").wait_for()
    shot(page, "signup-done")
    player = Player.objects.select_related("user").get()
    assert (player.user.username, player.display_name, player.user.email) == (
        "Newcomer",
        "Nell the New",
        "nell@example.org",
    )

    # Signed out, the same person signs in with what they chose.
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url(f"{base}/")
    page.get_by_role("navigation", name="Site").get_by_role("link", name="Sign in").click()
    page.get_by_label("User name").fill("Newcomer")
    page.get_by_label("Password").fill("quiet-harbour-lantern-42")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{base}/")  # back where they pressed "Sign in"
    page.get_by_role("navigation", name="Site").get_by_role("link", name="Newcomer").wait_for()
