"""The calendar page in chromium, at a desktop's width and a phone's (issue 24): a member goes from the
dashboard to their calendar page, makes their link, copies it, reads their feed at it with the icalendar
library, makes a new link (the old one is then a 404) and turns it off; the club page offers the club's feed.

Every state of the page is checked by check_page (no sideways scroll, no serious axe finding, a screenshot).
"""

from __future__ import annotations

import urllib.error
import urllib.request
from typing import Any

import pytest
from icalendar import Calendar

from league.models import Club
from tests.e2e.site_checks import check_page, sign_in
from tests.tournaments.front_support import club, live_match, person
from tournaments.calendar_selectors import calendar_token_of

playwright_sync = pytest.importorskip("playwright.sync_api")
Page = playwright_sync.Page

pytestmark = pytest.mark.django_db(transaction=True)


def status_of(url: str) -> int:
    try:
        with urllib.request.urlopen(url) as response:  # the test's own live server
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def summaries_at(url: str) -> list[str]:
    with urllib.request.urlopen(url) as response:  # the test's own live server
        calendar = Calendar.from_ical(response.read())
    return [str(event["summary"]) for event in calendar.walk("VEVENT")]


def test_a_member_makes_copies_renews_and_turns_off_their_calendar_link(page: Page, live_server: Any) -> None:
    base = str(live_server.url)
    river = club("Riverside", Club.Joining.OPEN)
    ann, ben = person("ann", river), person("ben", river)
    live_match(river, [ann, ben], name="Thursday banter")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    sign_in(page, base, "ann")

    page.get_by_role("link", name="Put your matches in your calendar").click()
    page.wait_for_url(f"{base}/calendar/")
    assert page.get_by_text("You have no calendar link yet").is_visible()
    check_page(page, "calendar-none")

    page.get_by_role("button", name="Make my calendar link").click()
    page.wait_for_url(f"{base}/calendar/")
    field = page.get_by_label("Your calendar link")
    address = field.input_value()
    token = calendar_token_of(player=ann)
    assert token is not None and address == f"{base}/calendar/{token}.ics"
    page.get_by_role("button", name="Copy the link").click()
    page.get_by_text("Copied.").wait_for()
    assert page.evaluate("navigator.clipboard.readText()") == address
    assert page.get_by_role("link", name="Open in my calendar app").get_attribute("href") == (
        "webcal://" + address.split("://", 1)[1]
    )
    assert page.get_by_text("Subscribe from web").is_visible()
    check_page(page, "calendar-link")

    assert summaries_at(address) == ["Thursday banter, round 1: you against Ben", "Thursday banter: round 1"]

    page.get_by_role("button", name="Make a new link").click()
    page.wait_for_url(f"{base}/calendar/")
    assert page.get_by_text("The old one no longer works").is_visible()
    renewed = page.get_by_label("Your calendar link").input_value()
    assert renewed != address
    assert status_of(address) == 404
    assert status_of(renewed) == 200
    check_page(page, "calendar-renewed")

    page.get_by_role("button", name="Turn my calendar link off").click()
    page.wait_for_url(f"{base}/calendar/")
    assert page.get_by_text("Your calendar link is turned off").is_visible()
    assert status_of(renewed) == 404


def test_the_club_page_offers_the_clubs_calendar(page: Page, live_server: Any) -> None:
    base = str(live_server.url)
    club("Riverside", Club.Joining.OPEN)
    page.goto(f"{base}/clubs/riverside/")
    link = page.get_by_role("link", name="Add the club's events to your calendar")
    assert link.get_attribute("href") == "webcal://" + base.split("://", 1)[1] + "/clubs/riverside/calendar.ics"
    assert status_of(f"{base}/clubs/riverside/calendar.ics") == 200
    check_page(page, "club-calendar")
