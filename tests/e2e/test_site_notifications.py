"""A person's notifications in chromium at a desktop's width and a phone's (issue 24): the header counts the
unread; the inbox lists them; following one goes where it points and the count drops; the settings save; and the
mail's stop link works with one button. Each page is checked (no sideways scroll, no serious axe-core finding)
and screenshotted in var/screenshots/."""

from __future__ import annotations

from typing import Any

import pytest

from league.joining import club_join
from league.models import Club, Membership
from league.notifications.kinds import Kind
from league.notifications.mail import unsubscribe_token
from league.notifications.models import NotificationSetting
from tests.e2e.site_checks import check_page, sign_in
from tests.tournaments.front_support import club, person

playwright_sync = pytest.importorskip("playwright.sync_api")
Page = playwright_sync.Page

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_organiser_reads_a_join_request_in_the_inbox_and_chooses_what_reaches_her(
    page: Page, live_server: Any, width: int
) -> None:
    hill = club("Hill club", Club.Joining.REQUEST)
    olga = person("olga", hill, role=Membership.Role.ORGANISER, display_name="Olga")
    for name, note in (("dan", "Ben sent me"), ("eve", "")):
        club_join(club=hill, player=person(name), note=note)
    base = str(live_server.url)
    sign_in(page, base, "olga")
    inbox = page.get_by_role("navigation", name="Site").get_by_role("link", name="Inbox 2 unread")
    inbox.click()
    page.get_by_role("heading", name="Inbox").wait_for()
    check_page(page, "notifications-inbox")
    page.get_by_role("link", name="Dan asks to join Hill club").click()
    page.get_by_role("heading", name="Join requests").wait_for()
    assert page.get_by_text("Ben sent me").is_visible()
    assert page.get_by_role("navigation", name="Site").get_by_role("link", name="Inbox 1 unread").is_visible()

    page.goto(f"{base}/notifications/settings/")
    check_page(page, "notifications-settings")
    page.get_by_role("group", name="Someone asks to join your club (organisers)").get_by_label("By e-mail").uncheck()
    page.get_by_role("button", name="Save").click()
    page.get_by_text("Saved.").wait_for()
    assert not NotificationSetting.objects.get(player=olga, kind=Kind.JOIN_REQUEST).mail

    # The stop link of a mail, opened by someone not signed in.
    visitor = page.context.browser.new_context(viewport=page.viewport_size)  # type: ignore[union-attr]
    try:
        stop = visitor.new_page()
        stop.goto(f"{base}/notifications/unsubscribe/{unsubscribe_token(olga.pk, Kind.DISPUTE)}/")
        check_page(stop, "notifications-unsubscribe")
        stop.get_by_role("button", name="Stop this mail").click()
        stop.get_by_role("heading", name="No more mail about").wait_for()
        check_page(stop, "notifications-unsubscribed")
    finally:
        visitor.close()
    assert not NotificationSetting.objects.get(player=olga, kind=Kind.DISPUTE).mail
