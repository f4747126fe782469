"""The admin's busiest pages in chromium (issue 23): on a ladder with more entrants, standings and matches than a
page shows, the competition list and the ladder's page answer (no 500) as a superuser and as the club's organiser,
and the ladder's page stays a bounded height however many matches it has. Screenshots go to var/screenshots/.

The admin is for staff at a desk: these pages are checked at 1280 px only, with the site's checks
(tests/e2e/site_checks.py: no sideways scroll, no serious or critical finding of axe-core)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.site_checks import check_page
from tournaments.admin.pages import ENTRANTS_ON_PAGE, MATCHES_ON_PAGE
from tournaments.bench_admin import build_scene

pytestmark = pytest.mark.django_db(transaction=True)

#: The most a ladder's page may be, in pixels at 1280 px wide: its parts are capped (MATCHES_ON_PAGE,
#: ENTRANTS_ON_PAGE, STANDINGS_ON_PAGE), so 10 times the matches make no taller page. The demo's ladder page
#: was 21,285 px with 487 matches before they were.
MOST_HEIGHT = 9000


@pytest.mark.parametrize("who", ["superuser", "organiser"])
def test_the_competition_list_and_a_big_ladder_s_page_answer_and_stay_bounded(
    browser: Any, live_server: Any, who: str
) -> None:
    scene = build_scene(entrants=3 * ENTRANTS_ON_PAGE, matches=10 * MATCHES_ON_PAGE, token="e2e", small=4)
    person = getattr(scene, who)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.route(
        "**/*", lambda route: route.abort() if not route.request.url.startswith(live_server.url) else route.continue_()
    )
    try:
        page.goto(f"{live_server.url}/admin/login/")
        page.fill("#id_username", person.user.username)
        page.fill("#id_password", "bench")
        page.click("input[type=submit]")
        page.wait_for_selector("#site-name")
        listed = page.goto(f"{live_server.url}/admin/tournaments/competition/")
        assert listed is not None and listed.status == 200
        assert page.get_by_role("link", name=scene.ladder.name).count() == 1
        check_page(page, f"admin-competitions-{who}")
        page.get_by_role("link", name=scene.ladder.name).click()
        page.wait_for_selector("#matches")
        assert page.url.endswith(f"/admin/tournaments/competition/{scene.ladder.pk}/change/")
        height = int(page.evaluate("document.documentElement.scrollHeight"))
        check_page(page, f"admin-ladder-{who}")
        assert height < MOST_HEIGHT, f"the ladder's page is {height} px tall"
        assert page.locator("#matches details").count() == MATCHES_ON_PAGE
        # The way to every match: the match list, filtered to the ladder, pages through them all.
        page.get_by_role("link", name=f"All {10 * MATCHES_ON_PAGE} matches").click()
        page.wait_for_selector("#result_list")
        assert f"{10 * MATCHES_ON_PAGE} matches" in page.locator("#changelist-form .paginator").inner_text()
        check_page(page, f"admin-ladder-matches-{who}")
        page.locator("#result_list tbody tr th a, #result_list tbody tr td a").first.click()
        page.wait_for_selector("#content-main")
        assert "Server Error" not in page.content()
        check_page(page, f"admin-match-{who}")
    finally:
        context.close()
