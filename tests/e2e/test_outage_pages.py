"""What a person sees while the club's database is away (issue 21, finding 7), in Debian's chromium.

The outage is made inside the live server's process: the code a page or a move reaches raises the error
psycopg gives while PostgreSQL restarts, so everything from there on (the middleware, the 503 page, the
table's script) is the real thing. The drills (tests/e2e/test_drill_postgres.py) restart PostgreSQL itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import OperationalError

from tests.e2e.test_web_table import Browser, live_match, open_from_my_matches, person, screenshot, sign_in
from tests.factories import ClubFactory, CompetitionFactory
from tournaments.models import LiveMove

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _streams_end_with_their_pages(settings: Any) -> Iterator[None]:
    """An events stream notices its page closed when it next writes: keep-alives end them before the database."""
    settings.LIVE_KEEPALIVE_SECONDS = 0.25
    yield
    time.sleep(1)


RESTARTING = "terminating connection due to administrator command"


def failing(times: int, work: Callable[..., Any]) -> Callable[..., Any]:
    """``work``, raising the error of a restarting database on its first ``times`` calls."""
    calls = {"n": 0}

    def run(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] <= times:
            raise OperationalError(RESTARTING)
        return work(*args, **kwargs)

    return run


@pytest.mark.parametrize("width", [1280, 390])
def test_a_page_during_an_outage_says_so_plainly_and_comes_back_by_itself(
    browser: Browser, live_server: Any, monkeypatch: pytest.MonkeyPatch, width: int
) -> None:
    from config import unavailable
    from tournaments.web import views

    monkeypatch.setattr(unavailable, "RETRY_AFTER", 2)
    competition = CompetitionFactory(name="Thursday War")
    monkeypatch.setattr(views, "standings_lines", failing(1, views.standings_lines))
    page = browser.new_context(viewport={"width": width, "height": 800}).new_page()
    answer = page.goto(f"{live_server.url}/competitions/{competition.pk}/")
    assert answer is not None and answer.status == 503 and answer.headers["retry-after"] == "2"
    assert page.get_by_role("heading", level=1).inner_text() == "Back in a moment"
    assert "tries again by itself in 2 seconds" in page.inner_text("body")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(page, f"outage-page-{width}")
    # The page reloads itself after Retry-After; by then the database is back.
    page.get_by_role("heading", name="Thursday War").wait_for(timeout=10_000)
    page.context.close()


def test_a_move_made_during_an_outage_is_kept_and_taken_once_when_the_club_is_back(
    browser: Browser, live_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from config import unavailable
    from tournaments.api import live

    monkeypatch.setattr(unavailable, "RETRY_AFTER", 2)
    club = ClubFactory()
    match = live_match("1923", [person(club, "una"), person(club, "ugo")], club=club, options={"mode": "set"})
    page = sign_in(browser, live_server.url, "una")
    open_from_my_matches(page, match)
    monkeypatch.setattr(live, "live_move", failing(2, live.live_move))
    page.locator('#actions button[data-action="LOCK"]').click()
    refusal = page.locator("#refusal", has_text="briefly unavailable")
    refusal.wait_for()
    assert "Your move is kept" in refusal.inner_text()
    screenshot(page, "move-during-outage")
    page.locator("#refusal").wait_for(state="hidden", timeout=15_000)
    moves = LiveMove.objects.filter(match=match)
    assert [(m.seat, m.action) for m in moves] == [(0, "LOCK")]
    page.context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_a_bug_on_a_page_answers_the_site_s_own_page_in_plain_words(
    browser: Browser, live_server: Any, monkeypatch: pytest.MonkeyPatch, width: int
) -> None:
    from tournaments.web import views

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug, not an outage")

    competition = CompetitionFactory(name="Thursday War")
    monkeypatch.setattr(views, "standings_lines", broken)
    page = browser.new_context(viewport={"width": width, "height": 800}).new_page()
    answer = page.goto(f"{live_server.url}/competitions/{competition.pk}/")
    assert answer is not None and answer.status == 500
    assert page.get_by_role("heading", level=1).inner_text() == "Something went wrong"
    assert "a bug" not in page.inner_text("body")  # nothing of the error reaches the page
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(page, f"error-page-{width}")
    page.context.close()
