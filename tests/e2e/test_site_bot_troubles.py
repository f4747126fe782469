"""In chromium at both widths (issue 24): the owner of a bot that keeps failing finds the notice in their inbox,
follows it to the bot's page and reads how each match failed and what the bot printed; and anyone reads a
competition's results, each with its replay."""

from __future__ import annotations

from typing import Any

import pytest

from league.models import Player
from tests.e2e.site_checks import check_page, sign_in
from tests.tournaments.test_bot_troubles import CRASHED, record, uploaded_in_matches
from tests.tournaments.test_competition_results import WON, round_robin
from tests.tournaments.test_competition_results import record as record_result
from tournaments.services.bot_troubles import FAILURES_IN_A_ROW

playwright_sync = pytest.importorskip("playwright.sync_api")
expect = playwright_sync.expect

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_owner_follows_the_notice_to_how_each_match_failed(page: Any, live_server: Any) -> None:
    version, matches = uploaded_in_matches(FAILURES_IN_A_ROW)
    owner: Player = version.bot.owner
    owner.user.username = "otto"
    owner.user.set_password("pw")
    owner.user.save()
    for match in matches:
        record(match, version, CRASHED)
    sign_in(page, str(live_server.url), "otto")
    page.get_by_role("link", name="Inbox").click()
    page.get_by_role("link", name=f"Crasher (version {version.number}) failed its last 3 matches").click()
    failures = page.locator("details.bot-failure")
    expect(failures).to_have_count(FAILURES_IN_A_ROW)
    failures.first.locator("summary").click()
    expect(failures.first.locator("pre.bot-log")).to_contain_text("Traceback: KeyError 'hand'")
    check_page(page, "bot-failures")


def test_anyone_reads_a_competition_s_results_with_their_replays(page: Any, live_server: Any) -> None:
    competition = round_robin(5)
    for match in competition.matches.all():
        record_result(match, WON)
    page.goto(f"{live_server.url}/competitions/{competition.pk}/")
    results = page.locator("#results li")
    expect(results).to_have_count(10)
    expect(results.first.get_by_role("link", name="replay")).to_be_visible()
    check_page(page, "competition-results")
