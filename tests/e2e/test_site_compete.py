"""Members on a challenge ladder, through its pages only, in chromium at a desktop's width and a phone's (issue 23):
two members of a club enter the running ladder from its page, one challenges the other, the other accepts from
the page, they play the match at its live table (two people: nobody else moves), and the ladder's page shows the
places the match gave. Each step is checked through the API too, and every page and state with check_page.

The match goes live and is recorded in the web server's own process here (eager tasks): no worker is needed for
people's moves. tests/e2e/test_web_table.py plays every game at the table with real workers.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from league.models import Club, Membership, Player
from tests.e2e.conftest import HEIGHTS, wait_for
from tests.e2e.site_checks import check_page, sideways_overflow, viewport
from tests.factories import BotFactory, BotVersionFactory, ClubFactory, MembershipFactory, PlayerFactory, UserFactory
from tournaments.demo import DEMO_PASSWORD, DEMO_USERNAME
from tournaments.models import Competition, Match
from tournaments.services.competitions import competition_create, competition_start, entrant_join

playwright_sync = pytest.importorskip("playwright.sync_api")
Browser = playwright_sync.Browser
Page = playwright_sync.Page
PlaywrightTimeout = playwright_sync.TimeoutError

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def pages(browser: Browser, live_server: Any, width: int) -> Iterator[Any]:
    """``pages()`` opens a page of its own (its own cookies) at the test's width; all are closed at the end."""
    contexts: list[Any] = []

    def new_page() -> Page:
        context = browser.new_context(viewport=viewport(width))
        contexts.append(context)
        return context.new_page()

    yield new_page
    for context in contexts:
        context.close()
    time.sleep(0.5)  # the tables' event streams notice their pages closed before the database goes away


def member(club: Club, username: str, role: str = Membership.Role.MEMBER) -> Player:
    player = PlayerFactory(user=UserFactory(username=username), display_name=username.capitalize())
    MembershipFactory(club=club, player=player, role=role)
    return player


def running_ladder() -> Competition:
    """Riverside's 1923 challenge ladder, running with two of the organiser's bots on it."""
    club = ClubFactory(name="Riverside", slug="riverside", joining=Club.Joining.OPEN)
    olga = member(club, "olga", Membership.Role.ORGANISER)
    ladder = competition_create(
        club=club,
        created_by=olga,
        name="Riverside ladder",
        game="1923",
        options={"mode": "set"},
        format="challenge_ladder",
        settings={"challenge_days": 3, "move_seconds": 600, "game_seconds": 3600},
    )
    for name in ("Ace", "Duke"):
        version = BotVersionFactory(bot=BotFactory(owner=olga, name=name, game="1923"), number=1, strategy="random")
        entrant_join(competition=ladder, bot_version=version)
    competition_start(competition=ladder)
    return ladder


def sign_in_from(page: Page, username: str, password: str = "pw") -> None:
    """On the sign-in page, sign in (it then goes where its ?next= says)."""
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()


def places_in_api(ladder: Competition) -> list[str]:
    rows = APIClient().get(f"/api/tournaments/{ladder.pk}/standings/").json()
    rows = rows["results"] if isinstance(rows, dict) else rows
    return [row["entrant"]["name"] for row in rows if row["entrant"]["position"] is not None]


def places_on_page(page: Page) -> list[str]:
    names = page.locator("#ladder tbody th[scope=row]").all_inner_texts()
    return [name.replace("(bot)", "").replace("(you)", "").strip() for name in names]


#: Where each move's button is on screen, read at one instant (the table re-renders as the other seat moves).
MOVE_BOXES_JS = """() => document.getElementById("table").classList.contains("my-turn")
  ? [...document.querySelectorAll("#actions button.action")].map((b) => b.getBoundingClientRect().toJSON())
  : null"""


def assert_moves_on_screen(page: Page, width: int) -> None:
    """While it is this person's turn the moves are on screen, wherever the page is scrolled, and thumb-sized."""
    for scroll in ("0", "document.documentElement.scrollHeight"):
        page.evaluate(f"window.scrollTo(0, {scroll})")
        boxes = page.evaluate(MOVE_BOXES_JS)
        assert boxes, "it is no longer this person's turn"
        for box in boxes:
            assert box["left"] >= 0 and box["right"] <= width, f"a move sticks out sideways: {box}"
            assert box["top"] >= 0 and box["bottom"] <= HEIGHTS[width], f"a move is off screen: {box}"
            assert box["height"] >= 44 and box["width"] >= 44, f"a move is too small for a thumb: {box}"
    page.evaluate("window.scrollTo(0, 0)")


def play_the_match(seats: dict[str, Page], width: int) -> None:
    """Each person clicks a move when the table waits on them (DRAW once a hand, then LOCK) until the match ends;
    the first time it is each one's turn, their table is checked with its moves on screen."""
    checked: set[str] = set()
    deadline = time.monotonic() + 180
    # The pages say when the match is over: the test's thread keeps off the database while the server writes
    # (SQLite's shared in-memory database locks whole tables).
    anyone = next(iter(seats.values()))
    while anyone.evaluate("() => document.getElementById('table').dataset.status") != "done":
        assert time.monotonic() < deadline, "the match does not end"
        for name, page in seats.items():
            buttons = page.locator("#actions button.action:not([disabled])")
            if not page.locator("#table.my-turn").count() or not buttons.count():
                continue
            if name not in checked:
                assert_moves_on_screen(page, width)
                check_page(page, f"compete-table-your-turn-{name}")
                checked.add(name)
            actions = buttons.evaluate_all("buttons => buttons.map(b => b.dataset.action)")
            choice = "DRAW" if "DRAW" in actions and page.locator("[data-zone=hand] [data-card]").count() < 2 else None
            choice = choice or ("LOCK" if "LOCK" in actions else actions[0])
            try:
                page.locator(f'#actions button[data-action="{choice}"]').click(timeout=2000)
            except PlaywrightTimeout:
                continue  # the table moved on meanwhile: look again
        time.sleep(0.1)
    assert checked, "neither person's table ever waited on them"


def test_members_enter_a_ladder_challenge_accept_play_and_see_the_new_places(
    pages: Any, live_server: Any, width: int
) -> None:
    ladder = running_ladder()
    club = ladder.club
    member(club, "nina")
    member(club, "otto")
    url = f"{live_server.url}/competitions/{ladder.pk}/"

    # A visitor reads what the ladder is and is asked to sign in to enter.
    nina = pages()
    nina.goto(url)
    nina.get_by_text("Running", exact=True).wait_for()
    assert "1923 · Challenge ladder · run by Riverside" in nina.locator(".lead").inner_text()
    check_page(nina, "compete-visitor")
    nina.get_by_role("link", name="Sign in to enter").click()
    sign_in_from(nina, "nina")
    nina.wait_for_url(url)

    # Nina enters from the page: at the bottom of the running ladder.
    nina.get_by_role("button", name="Enter").click()
    nina.get_by_text("You are in Riverside ladder.").wait_for()
    check_page(nina, "compete-entered")
    assert places_in_api(ladder)[-1] == "Nina"

    otto = pages()
    otto.goto(f"{live_server.url}/accounts/login/?next=/competitions/{ladder.pk}/")
    sign_in_from(otto, "otto")
    otto.wait_for_url(url)
    otto.get_by_role("button", name="Enter").click()
    otto.get_by_text("You are in Riverside ladder.").wait_for()
    assert places_in_api(ladder) == ["Ace v1", "Duke v1", "Nina", "Otto"]
    assert places_on_page(otto) == ["Ace v1", "Duke v1", "Nina", "Otto"]
    check_page(otto, "compete-can-challenge")

    # Otto challenges Nina, the one directly above him.
    otto.get_by_role("button", name="Challenge Nina").click()
    otto.get_by_text("You challenged Nina: they have until").wait_for()
    assert otto.get_by_role("button", name="Withdraw the challenge").is_visible()
    check_page(otto, "compete-challenged")
    api = APIClient().get(f"/api/tournaments/{ladder.pk}/challenges/1/").json()
    assert api["status"] == "issued" and [s["entrant"]["name"] for s in api["sides"]] == ["Nina", "Otto"]

    # Nina sees it with its deadline in words, and accepts.
    nina.reload()
    answer = nina.locator("#own-place")
    answer.get_by_text("Otto challenged you.").wait_for()
    assert "(in 3 days)" in answer.inner_text()
    check_page(nina, "compete-to-answer")
    nina.get_by_role("button", name="Accept").click()
    nina.get_by_text("You accepted the challenge").wait_for()
    check_page(nina, "compete-accepted")
    api = APIClient().get(f"/api/tournaments/{ladder.pk}/challenges/1/").json()
    assert api["status"] == "accepted" and api["match"]
    match = Match.objects.get(pk=api["match"])

    # Both go to the table from the ladder's page and play it out.
    otto.reload()
    seats = {}
    for name, page in (("nina", nina), ("otto", otto)):
        page.get_by_role("link", name="Play the match").click()
        page.wait_for_url(f"**/play/matches/{match.pk}/")
        page.locator("#table[data-status=live]").wait_for()
        seats[name] = page
    play_the_match(seats, width)
    wait_for(lambda: Match.objects.get(pk=match.pk).status == Match.Status.DONE, timeout=30, what="the match")
    for page in seats.values():
        page.locator("#status", has_text="The match is over").wait_for()
    check_page(nina, "compete-table-over")

    # The ladder's page shows the places the match gave, as the API does.
    challenge = APIClient().get(f"/api/tournaments/{ladder.pk}/challenges/1/").json()
    assert challenge["status"] == "played"
    otto_won = challenge["outcome"] == "won by Otto"
    expected = ["Ace v1", "Duke v1", *(["Otto", "Nina"] if otto_won else ["Nina", "Otto"])]
    assert places_in_api(ladder) == expected
    nina.goto(url)
    assert places_on_page(nina) == expected
    history = nina.locator("#challenges tbody tr").first.inner_text()
    assert "Otto challenged Nina" in history
    check_page(nina, "compete-after")


# --- every format's page on a phone ------------------------------------------------------------------------------

#: The formats' own parts of a competition page (tournaments/templates/formats/), by element id.
FORMAT_PARTS = ("ladder", "challenges", "bracket-section", "rating-ladder", "separation")

PARTS_PAST_THE_EDGE_JS = """(ids) => ids.map((id) => document.getElementById(id)).filter(Boolean)
  .filter((node) => node.getBoundingClientRect().right > window.innerWidth + 0.5).map((node) => node.id)"""


def test_every_competition_of_the_demo_fits_the_window_on_its_page_and_its_admin_page(
    pages: Any, live_server: Any, width: int
) -> None:
    """The demo holds a played competition of every format (round robins, a Swiss cut to a double elimination,
    cups, play to separation, both ladders): each page fits the window, for a visitor and for the demo login
    (the club's organiser, who sees Manage); the admin page's format parts fit it too."""
    call_command("load_demo", stdout=StringIO())
    competitions = list(Competition.objects.order_by("pk"))
    assert len({c.format for c in competitions}) >= 6
    visitor = pages()
    demo = pages()
    demo.goto(f"{live_server.url}/accounts/login/")
    sign_in_from(demo, DEMO_USERNAME, DEMO_PASSWORD)
    demo.wait_for_url(f"{live_server.url}/")  # sign-in without a next lands on the front page
    for number, competition in enumerate(competitions, start=1):
        url = f"{live_server.url}/competitions/{competition.pk}/"
        visitor.goto(url)
        check_page(visitor, f"compete-demo-{number}-{competition.format}")
        demo.goto(url)
        demo.get_by_role("link", name="Manage").wait_for()
        assert sideways_overflow(demo) <= 0, f"{competition.name} at {width} px scrolls sideways for its organiser"
        demo.goto(f"{live_server.url}/admin/tournaments/competition/{competition.pk}/change/")
        assert demo.locator("#content").count() == 1
        past = demo.evaluate(PARTS_PAST_THE_EDGE_JS, list(FORMAT_PARTS))
        assert past == [], f"the admin page of {competition.name} at {width} px: {past} reach past the edge"
