"""Adding a competition in chromium as a club's organiser would (issue 22): "Add competition", choose Swiss, fill
in its form, see a refusal on its field with nothing typed lost, correct it and save; at a desktop's width and a
phone's. Every request to another host is aborted. Screenshots go to var/screenshots/."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest

from league.models import Membership
from tests.e2e.conftest import SCREENSHOTS
from tests.factories import ClubFactory, MembershipFactory, PlayerFactory, UserFactory
from tournaments.models import Competition

pytestmark = pytest.mark.django_db(transaction=True)


class Organiser:
    """A browser of ``width`` pixels on the live server, signed in as the organiser of one club."""

    def __init__(self, browser: Any, live_server: Any, width: int) -> None:
        self.url = live_server.url
        self.width = width
        self.outside: list[str] = []
        self.errors: list[str] = []
        self.context = browser.new_context(viewport={"width": width, "height": 900})
        self.page = self.context.new_page()
        self.page.route("**/*", self._only_local)
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.club = ClubFactory(name="Riverside Card Club")
        user = UserFactory(username="sec", is_staff=True)
        self.player = PlayerFactory(user=user, display_name="Sam the secretary")
        MembershipFactory(club=self.club, player=self.player, role=Membership.Role.ORGANISER)
        self.page.goto(f"{self.url}/admin/login/")
        self.page.fill("#id_username", "sec")
        self.page.fill("#id_password", "pw")
        self.page.click("input[type=submit]")

    def _only_local(self, route: Any) -> None:
        if urlsplit(route.request.url).netloc == urlsplit(self.url).netloc:
            route.continue_()
        else:
            self.outside.append(route.request.url)
            route.abort()

    def shot(self, name: str) -> None:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SCREENSHOTS / f"admin-add-swiss-{self.width}-{name}.png"), full_page=True)

    def wider_than_the_screen(self) -> list[str]:
        """The form's rows that stick out past the right edge of the window (a phone would scroll sideways)."""
        found: list[str] = self.page.eval_on_selector_all(
            "#competition_form .form-row",
            """(rows) => rows.filter((r) => r.getBoundingClientRect().right > window.innerWidth + 1)
                             .map((r) => r.className)""",
        )
        return found


@pytest.mark.parametrize("width", [1280, 390])
def test_an_organiser_adds_a_swiss_choosing_the_format_first(browser: Any, live_server: Any, width: int) -> None:
    you = Organiser(browser, live_server, width)
    page = you.page
    page.goto(f"{you.url}/admin/tournaments/competition/")
    page.click(".object-tools a.addlink")
    page.wait_for_selector(".choose-format")
    choices = page.locator(".choose-format li a").all_inner_texts()
    you.shot("1-choose")
    page.click(".choose-format a:text-is('Swiss')")
    page.wait_for_selector("#competition_form")
    headings = page.locator("#competition_form fieldset h2").all_inner_texts()
    # One club and one organiser to choose from: both chosen already.
    club_chosen = page.input_value("#id_club")
    organiser_chosen = page.input_value("#id_organiser")
    you.shot("2-form")

    page.fill("#id_name", "Thursday Swiss")
    page.select_option("#id_game", "war")
    page.fill("#id_round_count", "4")
    page.select_option("#id_bye_points", "draw")
    page.fill("#id_cut_to", "4")  # and no knockout chosen: refused on that field
    page.fill("#id_games_per_match", "2")
    page.click("input[name=_save]")
    page.wait_for_selector(".errornote")
    refusal = page.locator(".field-cut_format .errorlist").inner_text()
    kept = (page.input_value("#id_name"), page.input_value("#id_round_count"), page.input_value("#id_games_per_match"))
    you.shot("3-refused")

    page.select_option("#id_cut_format", "single_elimination")
    page.click("input[name=_save]")
    page.wait_for_selector(".messagelist .success")
    message = page.locator(".messagelist").inner_text()
    fixed_help = page.locator(".field-round_count .help").inner_text()
    you.shot("4-created")
    you.context.close()

    assert you.outside == [] and you.errors == []
    assert "Swiss" in choices and "Challenge ladder" in choices
    assert headings[:2] == ["", "Swiss"] or headings[0] == "Swiss", headings
    assert (club_chosen, organiser_chosen) == (str(you.club.pk), str(you.player.pk))
    assert "choose the knockout to cut to: Single elimination, Double elimination" in refusal
    assert kept == ("Thursday Swiss", "4", "2")
    assert "Created Thursday Swiss" in message
    assert "Rounds to play" in fixed_help or "rounds to play" in fixed_help
    competition = Competition.objects.get(name="Thursday Swiss")
    assert (competition.format, competition.games_per_match, competition.created_by) == ("swiss", 2, you.player)
    assert {k: competition.settings[k] for k in ("round_count", "bye_points", "cut_to", "cut_format")} == {
        "round_count": 4,
        "bye_points": "draw",
        "cut_to": 4,
        "cut_format": "single_elimination",
    }
