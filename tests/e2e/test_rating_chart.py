"""The rating chart on the admin competition page, in chromium with the internet cut off (issue 13, "Seeing it").

Chart.js comes from the project's own static files (`make setup` vendors it), so the chart must
draw with every request to another host aborted, one line per entrant, ending where the
standings' ratings are.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.e2e.conftest import SCREENSHOTS
from tests.factories import CompetitionFactory, EntrantFactory, PlayerFactory, UserFactory
from tests.tournaments.helpers import started
from tournaments.models import Competition, Standing
from tournaments.services.play import competition_play_pending

pytestmark = pytest.mark.django_db(transaction=True)


def played_competition() -> Competition:
    competition = CompetitionFactory(game="punk", players_per_match=3, games_per_match=2, name="Chart league")
    for name in ("Ada", "Bo", "Cy", "Di", "Ed"):
        EntrantFactory(competition=competition, name=name)
    started(competition)
    competition_play_pending(competition=competition)
    return competition


def test_the_rating_chart_draws_offline_one_line_per_entrant(browser: Any, live_server: Any) -> None:
    competition = played_competition()
    PlayerFactory(user=UserFactory(username="chief", is_staff=True, is_superuser=True))
    local = urlsplit(live_server.url).netloc
    outside: list[str] = []

    def only_local(route: Any) -> None:
        if urlsplit(route.request.url).netloc == local:
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.route("**/*", only_local)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", "chief")
    page.fill("#id_password", "pw")
    page.click("input[type=submit]")
    page.goto(f"{live_server.url}/admin/tournaments/competition/{competition.pk}/change/")
    page.wait_for_selector("#rating-chart[data-drawn=true]", timeout=15_000)
    lines = page.evaluate(
        """() => window.Chart.getChart(document.getElementById("rating-chart")).data.datasets.map(
            (d) => ({label: d.label, points: d.data.map((p) => [p.x, p.y])}))"""
    )
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#ratings").screenshot(path=str(SCREENSHOTS / "rating-chart.png"))
    context.close()

    assert outside == [] and errors == []
    assert sorted(line["label"] for line in lines) == ["Ada", "Bo", "Cy", "Di", "Ed"]
    for line in lines:
        standing = Standing.objects.get(competition=competition, entrant__name=line["label"])
        assert line["points"][0] == [0, 25]
        assert len(line["points"]) == 1 + standing.played
        assert line["points"][-1][1] == pytest.approx(standing.mu, abs=1e-3)
