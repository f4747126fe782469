"""A game by correspondence between two people in chromium, at a desktop's width and a phone's (issue 24): three
days a decision, a week a game. Ann moves at her table; once her move has been quiet a while, Ben is told (the
inbox, a mail); he follows the inbox's entry to the table, sees days on the clocks, and moves back; then Ann is
told in her turn. Every page is checked with check_page and screenshotted in var/screenshots/.

The quiet while is 0 and the mail is not gathered here; beat's two sweeps (tell_quiet_turns, send_notification_mail)
are run by the test itself, between the browsers' steps, so that the test's thread keeps off the database while
the server writes (SQLite's shared in-memory database locks whole tables). No worker is needed: nobody but the two
people moves.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.core import mail
from django.db import transaction

from league.models import Club, Player
from league.notifications.kinds import Kind
from league.notifications.mail import send_due_mail
from league.notifications.models import Notification
from tests.e2e.site_checks import check_page, sign_in, viewport
from tests.factories import CompetitionFactory, full_options
from tests.tournaments.front_support import club, person, whose_turn
from tournaments.models import Competition, Match
from tournaments.services.competitions import competition_start, entrant_join
from tournaments.services.live import live_turns_tell

playwright_sync = pytest.importorskip("playwright.sync_api")
Browser = playwright_sync.Browser
Page = playwright_sync.Page
Response = playwright_sync.Response
PlaywrightTimeout = playwright_sync.TimeoutError

pytestmark = pytest.mark.django_db(transaction=True)

DAY = 86400
#: A clock of days, as the table shows it: "2 days 23 hours", never hours and minutes run past a day.
DAYS_CLOCK = re.compile(r"move (3 days|2 days 23 hours) · game (7 days|6 days 23 hours)")
SECONDS_CLOCK = re.compile(r"\d+:\d\d")
#: The header's inbox link while something is unread (the round's pairing and the start are there too).
UNREAD = re.compile(r"^Inbox \d+ unread$")


@pytest.fixture
def quick_notices(settings: Any) -> None:
    settings.NOTIFY_TURN_QUIET_SECONDS = 0
    settings.NOTIFY_MAIL_GATHER_SECONDS = 0
    settings.NOTIFY_MAIL_GAP_SECONDS = 0


@pytest.fixture
def pages(browser: Browser, width: int) -> Iterator[dict[str, Page]]:
    contexts = [browser.new_context(viewport=viewport(width)) for _ in range(2)]
    yield {"ann": contexts[0].new_page(), "ben": contexts[1].new_page()}
    for context in contexts:
        context.close()


def postal_match(where: Club, first: Player, second: Player) -> Match:
    """A Banter match at three days a decision and a week a game, whose deal has ``first`` to lead."""
    for seed in range(1, 40):
        with transaction.atomic():
            competition = CompetitionFactory(
                club=where,
                name="Postal banter",
                game="banter",
                players_per_match=2,
                options=full_options("banter", 2),
                move_seconds=3 * DAY,
                game_seconds=7 * DAY,
            )
            Competition.objects.filter(pk=competition.pk).update(seed=seed)
            competition.refresh_from_db()
            for player in (first, second):
                entrant_join(competition=competition, player=player)
            competition_start(competition=competition)
            match = Match.objects.get(competition=competition)
            if whose_turn(match, [first, second]) == first:
                return match
            transaction.set_rollback(True)
    raise AssertionError("no deal of the first 40 has the first person to lead")


def told(player: Player) -> list[Notification]:
    return list(Notification.objects.filter(player=player, kind=Kind.YOUR_TURN).order_by("id"))


def clock_of(page: Page) -> str:
    """The text of the person's own clock at the table."""
    return page.locator("#seats li.you .clock").inner_text()


def move_at(page: Page) -> None:
    """Play until the turn passes (a Banter turn may take more than one move): "STOP" while upgrading, else the
    first move the table offers. Always taking the first would spend a Heart and bin a card up to five times
    over, as some deals allow, and the turn would not pass within the moves this tries.

    Each move's answer is waited for, however slow the server: a fixed wait would click again while the first
    move is still on its way. An answer other than 200 fails with what the server and the page said."""
    page.locator("#table.my-turn").wait_for()
    offered = page.locator("#actions button.action:not([disabled])")
    for _ in range(10):
        stop = offered.and_(page.locator('[data-action="STOP"]'))
        with page.expect_response(_is_move, timeout=30000) as answer:
            (stop if stop.count() else offered.first).click()
        if answer.value.status != 200:
            refusal = page.locator("#refusal").inner_text()
            raise AssertionError(f"move answered {answer.value.status} {answer.value.text()!r}; the page: {refusal!r}")
        try:
            page.locator("#status", has_text="Waiting for").wait_for(timeout=5000)
            return
        except PlaywrightTimeout:
            continue
    raise AssertionError(f"the turn does not pass: {page.locator('#status').inner_text()}")


def _is_move(response: Response) -> bool:
    return response.request.method == "POST" and response.url.endswith("/moves/")


def test_a_game_by_correspondence_tells_each_person_of_their_turn_and_shows_days_on_the_clocks(
    pages: dict[str, Page], live_server: Any, width: int, quick_notices: None
) -> None:
    where = club("Post club")
    ann, ben = person("ann", where), person("ben", where)
    match = postal_match(where, ann, ben)
    table_path = f"/play/matches/{match.pk}/"
    base = str(live_server.url)
    # By correspondence nobody is told at once, not even of the first turn.
    assert told(ann) == [] and told(ben) == []

    # Ann finds her turn in her matches, with days left on it, and plays.
    a = pages["ann"]
    sign_in(a, base, "ann")
    a.goto(f"{base}/play/")
    row = a.locator(f'li[data-match="{match.pk}"]')
    row.get_by_text("your turn").wait_for()
    assert re.search(r"(2 days 23 hours|3 days) left", row.inner_text()), row.inner_text()
    check_page(a, "correspondence-my-matches")
    row.get_by_role("link").click()
    a.wait_for_url(f"{base}{table_path}")
    a.locator("#table.my-turn").wait_for()
    assert DAYS_CLOCK.search(clock_of(a)), clock_of(a)
    assert not SECONDS_CLOCK.search(clock_of(a)), clock_of(a)
    check_page(a, "correspondence-table-your-turn")
    # The page's clock words at their edges: seconds up to a day, days and hours from one.
    edges = [3599000, 3600000, 86399000, 86400000, 90000000, 2 * DAY * 1000 + 7200000, 7 * DAY * 1000 - 1]
    assert a.evaluate("(edges) => edges.map(window.Play.clock)", edges) == [
        "59:59",
        "1:00:00",
        "23:59:59",
        "1 day",
        "1 day 1 hour",
        "2 days 2 hours",
        "7 days",
    ]
    move_at(a)
    # Away from the table (a page left open on it would count as looking at every turn that comes).
    a.goto(f"{base}/")

    # The quiet while is over: Ben is told, in the inbox and by mail; Ann, whose turn is played, is not.
    assert live_turns_tell() == 1
    (notice,) = told(ben)
    assert notice.title == "Your turn against Ann in Postal banter" and notice.link == table_path
    assert told(ann) == []
    assert send_due_mail() == 1
    (sent,) = mail.outbox
    assert sent.to == ["ben@example.org"] and sent.subject == notice.title
    assert f"{settings.SITE_URL}{table_path}" in sent.body

    # Ben sees it on his dashboard, with days to answer, and in his inbox; the entry takes him to the table.
    b = pages["ben"]
    sign_in(b, base, "ben")
    turn = b.locator("#needs-you li", has_text="Your turn")
    turn.wait_for()
    assert re.search(r"\(2\xa0days, 23\xa0hours left\)|\(3\xa0days left\)", turn.inner_text()), turn.inner_text()
    check_page(b, "correspondence-dashboard")
    b.get_by_role("navigation", name="Site").get_by_role("link", name=UNREAD).click()
    b.get_by_role("heading", name="Inbox").wait_for()
    check_page(b, "correspondence-inbox")
    b.get_by_role("link", name="Your turn against Ann in Postal banter").click()
    b.wait_for_url(f"{base}{table_path}")
    b.locator("#table.my-turn").wait_for()
    assert DAYS_CLOCK.search(clock_of(b)), clock_of(b)
    check_page(b, "correspondence-table-from-the-inbox")
    move_at(b)
    b.goto(f"{base}/")
    assert Notification.objects.get(pk=notice.pk).read_at is not None  # opened from the inbox

    # Ann's turn again: she is told as Ben was.
    assert live_turns_tell() == 1
    (back,) = told(ann)
    assert back.title == "Your turn against Ben in Postal banter"
    assert send_due_mail() == 1
    assert [m.to for m in mail.outbox] == [["ben@example.org"], ["ann@example.org"]]
    a.reload()
    a.get_by_role("navigation", name="Site").get_by_role("link", name=UNREAD).click()
    a.get_by_role("link", name="Your turn against Ben in Postal banter").click()
    a.wait_for_url(f"{base}{table_path}")
    a.locator("#table.my-turn").wait_for()
    # Ann has used a little of her week; her opponent's clock stands still while she thinks.
    assert DAYS_CLOCK.search(clock_of(a)), clock_of(a)
    others = a.locator("#seats li:not(.you) .clock").inner_text()
    assert re.search(r"move 3 days · game 6 days 23 hours", others), others
    check_page(a, "correspondence-table-back")
