"""The front door and a person's page in chromium, at a desktop's width and a phone's (issue 23):

- a visitor sees what the site is, its clubs and competitions, and reaches sign-up;
- a member signs in and lands on the dashboard, sees the table awaiting their move and the challenge awaiting
  their answer, and follows the link to the table (which the API's "my matches" agrees is waiting for them);
- an organiser sees the join requests and the dispute to settle; a newcomer is told to find a club;
- a person's page draws their rating chart.

Every page is checked (no sideways scroll, no serious axe-core finding) and screenshotted in var/screenshots/.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from league.models import Club, Membership, Player
from tests.e2e.site_checks import check_page
from tests.factories import CompetitionFactory, full_options
from tests.tournaments.front_support import (
    asks_to_join,
    challenge_awaiting,
    club,
    disputed,
    live_match_waiting_for,
    person,
    played_1923_table,
    played_war,
)
from tournaments.models import Match
from tournaments.person_selectors import head_to_head_of

playwright_sync = pytest.importorskip("playwright.sync_api")
Browser = playwright_sync.Browser
Page = playwright_sync.Page

pytestmark = pytest.mark.django_db(transaction=True)


class Scene:
    """Riverside (open) and Hill club (by request), run by Olga; Ann and Ben at a Banter table whose turn is
    Ann's, Ben challenging Ann up the club ladder, finished War and 1923 competitions, two people asking to
    join Hill club and a disputed transcript."""

    def __init__(self) -> None:
        self.river = club("Riverside", Club.Joining.OPEN)
        self.hill = club("Hill club", Club.Joining.REQUEST)
        club("Quiet corner", Club.Joining.INVITATION)
        self.olga = person("olga", self.river, self.hill, role=Membership.Role.ORGANISER, display_name="Olga")
        people = [person(name, self.river, self.hill) for name in ("ann", "ben", "cat")]
        self.ann, self.ben, self.cat = people
        played_war(self.river, people, [[1, 2], [2, 1], [1, 1]], "Autumn war")
        played_1923_table(self.river, people, [1, 2, 3], "Autumn 1923 table")
        # Ann is the one the table waits for: a Banter table asks one seat at a time.
        self.table = live_match_waiting_for(self.ann, self.ben, self.river, "Thursday banter")
        self.challenge = challenge_awaiting(self.river, self.olga, challenger=self.cat, defender=self.ann)
        asks_to_join(self.hill, person("dan"), person("eve"))
        disputed(Match.objects.get(competition__name="Thursday banter"), self.ben)
        CompetitionFactory(
            club=self.hill, name="Winter punk", game="punk", players_per_match=3, options=full_options("punk", 3)
        )


def sign_in(page: Page, base: str, username: str) -> None:
    page.goto(f"{base}/")
    page.get_by_role("navigation", name="Site").get_by_role("link", name="Sign in").click()
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill("pw")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{base}/")


def my_turns(player: Player) -> list[int]:
    client = Client()
    client.force_login(player.user)
    response = client.get("/api/players/me/matches/")
    assert response.status_code == 200
    return [m["id"] for m in response.json() if m["my_turn"]]


def test_a_visitor_sees_the_clubs_and_competitions_and_reaches_sign_up(page: Page, live_server: Any) -> None:
    Scene()
    base = str(live_server.url)
    page.goto(f"{base}/")
    main = page.locator("main")
    main.get_by_role("heading", level=1, name="Ladders and tournaments for card clubs").wait_for()
    clubs = page.locator("#clubs")
    admits = (("Riverside", "Anyone can join"), ("Hill club", "Ask to join"), ("Quiet corner", "By invitation only"))
    for name, words in admits:
        clubs.locator("li", has=page.get_by_role("link", name=name, exact=True)).get_by_text(words).wait_for()
    competitions = page.locator("#competitions")
    competitions.get_by_role("link", name="Winter punk").wait_for()
    competitions.get_by_role("link", name="Thursday banter").wait_for()
    assert competitions.get_by_role("link", name="Autumn war").count() == 0  # finished
    check_page(page, "front-visitor")

    assert clubs.get_by_role("link", name="Riverside", exact=True).get_attribute("href") == "/clubs/riverside/"
    main.get_by_role("link", name="Sign up, free").click()
    page.wait_for_url(f"{base}/accounts/signup/")
    page.get_by_label("User name").wait_for()


def test_a_member_sees_the_table_and_the_challenge_waiting_for_them_and_goes_to_the_table(
    page: Page, live_server: Any
) -> None:
    scene = Scene()
    base = str(live_server.url)
    sign_in(page, base, "ann")
    page.get_by_role("heading", level=1, name="Hello, Ann").wait_for()
    needs = page.locator("#needs-you")
    turn = needs.get_by_role("link", name=f"Play your move: {scene.table.competition.name}, round 1")
    turn.wait_for()
    challenge = needs.get_by_role("link", name="Cat challenged you in Club ladder")
    challenge.wait_for()
    deadline = scene.challenge.deadline.strftime("%a %-d %b, %H:%M UTC")
    needs.locator("li", has_text="Cat challenged you").get_by_text(deadline).wait_for()
    # The turn comes before the challenge: the table's clock is the shorter.
    assert needs.locator("li").first.get_attribute("data-match") == str(scene.table.pk)
    page.locator("#my-clubs").get_by_role("link", name="Riverside").wait_for()
    page.locator("#latest-results").get_by_role("link", name="Autumn war").first.wait_for()
    page.locator("#my-ratings").get_by_role("link", name="Autumn 1923 table").wait_for()
    check_page(page, "front-dashboard")

    assert challenge.get_attribute("href") == f"/competitions/{scene.challenge.competition_id}/"
    turn.click()
    page.wait_for_url(f"{base}/play/matches/{scene.table.pk}/")
    assert scene.table.pk in my_turns(scene.ann)


def test_an_organiser_sees_the_requests_and_the_dispute_and_a_newcomer_is_told_to_find_a_club(
    page: Page, live_server: Any
) -> None:
    Scene()
    person("nell")
    base = str(live_server.url)
    sign_in(page, base, "olga")
    needs = page.locator("#needs-you")
    requests = needs.get_by_role("link", name="2 people ask to join Hill club")
    requests.wait_for()
    assert requests.get_attribute("href") == "/clubs/hill-club/requests/"
    dispute = needs.get_by_role("link", name="1 disputed game record in Thursday banter")
    banter = Match.objects.get(competition__name="Thursday banter").competition_id
    assert dispute.get_attribute("href") == f"/competitions/{banter}/manage/"
    check_page(page, "front-dashboard-organiser")

    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url(f"{base}/")
    sign_in(page, base, "nell")
    page.locator("#my-clubs", has_text="You are not in a club yet.").wait_for()
    assert page.locator("main").get_by_role("link", name="Find a club").get_attribute("href") == "/clubs/"
    page.locator("#needs-you", has_text="Nothing needs you just now").wait_for()
    check_page(page, "front-dashboard-newcomer")


def test_a_persons_page_draws_their_rating_chart_and_head_to_head(page: Page, live_server: Any) -> None:
    scene = Scene()
    base = str(live_server.url)
    page.goto(f"{base}/")
    page.locator("#competitions").get_by_role("link", name="Thursday banter").wait_for()
    page.goto(f"{base}/players/ann/")
    page.get_by_role("heading", level=1, name="Ann").wait_for()
    page.locator("#rating-chart[data-drawn=true]").wait_for()
    page.locator("#clubs").get_by_role("link", name="Hill club").wait_for()
    assert page.locator("#results li").count() == 3  # two War matches and the 1923 table; the live table is not one
    # Against Ben and Cat: a War match each and the 1923 table.
    records = head_to_head_of(player=scene.ann)
    assert [(r.opponent.name, r.played) for r in records] == [("Ben", 2), ("Cat", 2)]
    expected = [f"{r.opponent.name}\t{r.played}\t{r.won}\t{r.drawn}\t{r.lost}" for r in records]
    assert page.locator("#head-to-head tbody tr").all_inner_texts() == expected
    check_page(page, "person")
    # An opponent's name leads to their page.
    page.locator("#head-to-head").get_by_role("link", name="Ben").click()
    page.wait_for_url(f"{base}/players/ben/")
    page.get_by_role("heading", level=1, name="Ben").wait_for()
    assert scene.ben.user.email not in page.content()
