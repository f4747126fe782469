"""The site with a keyboard alone (issue 23, "keyboard use works"), in chromium at both widths: a member signs
in, joins an open club and enters one of its competitions without touching the mouse. Each control is reached
with Tab, in the page's order, and pressed with Enter; the effects are checked through the API."""

from __future__ import annotations

from typing import Any

import pytest

from league.models import Club, Membership
from tests.e2e.site_checks import check_page
from tests.factories import ClubFactory, CompetitionFactory, MembershipFactory, PlayerFactory, UserFactory
from tests.league.test_api_support import client_for, results
from tournaments.models import Entrant

playwright_sync = pytest.importorskip("playwright.sync_api")
Page = playwright_sync.Page

pytestmark = pytest.mark.django_db(transaction=True)

#: More Tabs than any of these pages has controls before the one sought.
MOST_TABS = 60


def tab_to(page: Page, text: str) -> None:
    """Press Tab until the focused control reads ``text`` (its text or its value), or fail naming what it met."""
    met: list[str] = []
    for _ in range(MOST_TABS):
        page.keyboard.press("Tab")
        focused = page.evaluate("() => (document.activeElement.innerText || document.activeElement.value || '').trim()")
        if focused == text:
            return
        met.append(focused.splitlines()[0] if focused else "")
    raise AssertionError(f"Tab never reached {text!r}; it met {met}")


def test_a_member_signs_in_joins_a_club_and_enters_a_competition_with_the_keyboard_alone(
    page: Page, live_server: Any
) -> None:
    base = str(live_server.url)
    club = ClubFactory(name="Riverside Whist", slug="riverside", joining=Club.Joining.OPEN)
    MembershipFactory(club=club, player=PlayerFactory(user=UserFactory(username="olga")), role="organiser")
    competition = CompetitionFactory(club=club, name="Thursday war")
    kim = PlayerFactory(user=UserFactory(username="kim"), display_name="Kim")

    page.goto(f"{base}/accounts/login/?next=/clubs/riverside/")
    # The sign-in page puts the cursor in the user name at once.
    assert page.evaluate("document.activeElement.name") == "username"
    page.keyboard.type("kim")
    page.keyboard.press("Tab")
    page.keyboard.type("pw")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{base}/clubs/riverside/")

    tab_to(page, "Join Riverside Whist")
    page.keyboard.press("Enter")
    page.get_by_role("link", name="Leave the club").wait_for()
    check_page(page, "keyboard-joined")
    roll = {
        row["player"]["display_name"]: row["role"]
        for row in results(client_for().get(f"/api/clubs/{club.pk}/members/"))
    }
    assert roll.get("Kim") == Membership.Role.MEMBER

    page.goto(f"{base}/competitions/{competition.pk}/")
    tab_to(page, "Enter")
    page.keyboard.press("Enter")
    page.get_by_role("button", name="Leave").first.wait_for()
    check_page(page, "keyboard-entered")
    entrants = results(client_for().get(f"/api/tournaments/{competition.pk}/entrants/"))
    assert [row["name"] for row in entrants] == ["Kim"]
    assert Entrant.objects.filter(competition=competition, player=kim).exists()
