"""In chromium at both widths: the owner of a bot version suspended for crashing in every game follows the
notice to the bot's page, reads why, and reinstates it with the button."""

from __future__ import annotations

from typing import Any

import pytest

from league.models import Player
from tests.e2e.site_checks import check_page, sign_in
from tests.tournaments.test_bot_suspension import crashing_url, http_version, round_robin_with  # noqa: F401
from tournaments.services.bot_suspension import FORFEITS_TO_SUSPEND

playwright_sync = pytest.importorskip("playwright.sync_api")
expect = playwright_sync.expect

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_owner_reads_why_the_version_is_suspended_and_reinstates_it(
    page: Any,
    live_server: Any,
    crashing_url: str,  # noqa: F811
) -> None:
    version = http_version(crashing_url, "Crasher")
    # Started with nothing held back: the tests' eager workers play every match as the start commits.
    round_robin_with(version, FORFEITS_TO_SUSPEND)
    version.refresh_from_db()
    assert version.suspended_at is not None
    owner: Player = version.bot.owner
    owner.user.username = "otto"
    owner.user.set_password("pw")
    owner.user.save()
    sign_in(page, str(live_server.url), "otto")
    page.get_by_role("link", name="Inbox").click()
    page.get_by_role("link", name=f"Crasher (version {version.number}) is suspended").click()
    panel = page.locator(f"#suspended-{version.number}")
    expect(panel).to_contain_text(f"it crashed in {FORFEITS_TO_SUSPEND} of its recent games")
    button = panel.get_by_role("button", name=f"Reinstate version {version.number}")
    expect(button).to_be_visible()
    check_page(page, "bot-suspended")
    button.click()
    expect(page.get_by_text(f"Version {version.number} is reinstated")).to_be_visible()
    expect(page.locator(f"#suspended-{version.number}")).to_have_count(0)
    version.refresh_from_db()
    assert version.suspended_at is None and version.reinstated_at is not None
    check_page(page, "bot-reinstated")
