"""The competition forms in chromium as a club's organiser uses them (issue 22), at a desktop's width and a
phone's, with every request to another host aborted: "Add competition", choose Swiss, fill in its form, see a
refusal on its field with nothing typed lost, correct it and save; then change a running ladder, whose reach
may change and whose table size may not. Screenshots go to var/screenshots/."""

from __future__ import annotations

import json
from typing import Any

import pytest

from league.models import Membership
from tests.e2e.conftest import SCREENSHOTS
from tests.e2e.site_checks import axe_violations
from tests.e2e.test_charts import OfflineAdmin
from tests.factories import (
    ClubFactory,
    CompetitionFactory,
    EntrantFactory,
    MembershipFactory,
    PlayerFactory,
    UserFactory,
)
from tests.tournaments.helpers import started
from tournaments.models import Competition

pytestmark = pytest.mark.django_db(transaction=True)


class Organiser(OfflineAdmin):
    """A browser of ``width`` pixels on the live server, signed in as the organiser of one club."""

    def __init__(self, browser: Any, live_server: Any, width: int) -> None:
        super().__init__(browser, live_server, sign_in=False, width=width)
        self.width = width
        self.club = ClubFactory(name="Riverside Card Club")
        user = UserFactory(username="sec", is_staff=True)
        self.player = PlayerFactory(user=user, display_name="Sam the secretary")
        MembershipFactory(club=self.club, player=self.player, role=Membership.Role.ORGANISER)
        self.page.goto(f"{self.url}/admin/login/")
        self.page.fill("#id_username", "sec")
        self.page.fill("#id_password", "pw")
        self.page.click("input[type=submit]")

    def shot(self, name: str) -> None:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SCREENSHOTS / f"admin-{name}-{self.width}.png"), full_page=True)
        found = axe_violations(self.page)
        assert not found, f"admin {name} at {self.width} px: axe-core finds\n{json.dumps(found, indent=1)}"

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
    you.shot("add-swiss-1-choose")
    page.click(".choose-format a:text-is('Swiss')")
    page.wait_for_selector("#competition_form")
    headings = page.locator("#competition_form fieldset h2").all_inner_texts()
    # One club and one organiser to choose from: both chosen already.
    club_chosen = page.input_value("#id_club")
    organiser_chosen = page.input_value("#id_organiser")
    sticking_out = you.wider_than_the_screen()
    you.shot("add-swiss-2-form")

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
    you.shot("add-swiss-3-refused")

    page.select_option("#id_cut_format", "single_elimination")
    page.click("input[name=_save]")
    page.wait_for_selector(".messagelist .success")
    message = page.locator(".messagelist").inner_text()
    fixed_help = page.locator(".field-round_count .help").inner_text()
    you.shot("add-swiss-4-created")
    you.context.close()

    assert you.outside == [] and you.errors == []
    assert "Swiss" in choices and "Challenge ladder" in choices
    assert headings == ["Swiss", "Finish with a knockout (optional)", "Matches", "People at live tables", "Replaying"]
    assert (club_chosen, organiser_chosen) == (str(you.club.pk), str(you.player.pk))
    assert sticking_out == []
    assert "Choose the knockout to cut to: Single elimination, Double elimination." in refusal
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


@pytest.mark.parametrize("width", [1280, 390])
def test_an_organiser_changes_a_running_ladder_s_reach_and_sees_why_its_table_size_is_fixed(
    browser: Any, live_server: Any, width: int
) -> None:
    you = Organiser(browser, live_server, width)
    ladder = CompetitionFactory(club=you.club, format="challenge_ladder", name="Club ladder")
    for _ in range(4):
        EntrantFactory(competition=ladder)
    started(ladder)
    page = you.page
    page.goto(f"{you.url}/admin/tournaments/competition/{ladder.pk}/change/")
    page.wait_for_selector("#competition_form")
    fixed = page.eval_on_selector_all(
        "#competition_form :is(input, select, textarea):disabled", "(found) => found.map((f) => f.name)"
    )
    note = page.locator(".field-games_per_match .fixed-note").inner_text()
    you.shot("running-ladder-1-change")
    page.fill("#id_challenge_reach", "5")
    page.uncheck("#id_live_tables_public")
    page.click("input[name=_continue]")
    page.wait_for_selector(".messagelist .success")
    reach = page.input_value("#id_challenge_reach")
    you.shot("running-ladder-2-saved")
    you.context.close()

    assert you.outside == [] and you.errors == []
    assert {"players_per_match", "games_per_match", "max_entrants", "options"} <= set(fixed)
    assert not {"challenge_reach", "challenge_days", "live_tables_public", "name"} & set(fixed)
    assert note == "Fixed once entries closed; the competition is running."
    assert reach == "5"
    ladder.refresh_from_db()
    assert (ladder.settings["challenge_reach"], ladder.live_tables_public) == (5, False)
