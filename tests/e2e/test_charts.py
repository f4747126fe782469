"""The admin site's charts in chromium with the internet cut off (issue 13, "Seeing it"): the rating
chart of a competition and the race charts of a match.

Chart.js comes from the project's own static files (`make setup` vendors it), so the charts must
draw with every request to another host aborted, from the same figures the API serves.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest
from django.contrib.auth import get_user_model

from tests.e2e.conftest import SCREENSHOTS
from tests.factories import CompetitionFactory, EntrantFactory, PlayerFactory, UserFactory
from tests.tournaments.helpers import started
from tournaments.models import Competition, Entrant, Game, Match, Standing
from tournaments.services.play import competition_play_pending

pytestmark = pytest.mark.django_db(transaction=True)


def played_competition() -> Competition:
    competition = CompetitionFactory(game="punk", players_per_match=3, games_per_match=2, name="Chart league")
    for name in ("Ada", "Bo", "Cy", "Di", "Ed"):
        EntrantFactory(competition=competition, name=name)
    started(competition)
    competition_play_pending(competition=competition)
    return competition


#: The narrowest window every page must fit without scrolling sideways (a phone held upright).
PHONE_WIDTH = 390


class OfflineAdmin:
    """A browser on the live server, ``width`` pixels wide, signed in as a superuser unless told not to, with
    every request to another host aborted and noted."""

    def __init__(self, browser: Any, live_server: Any, *, sign_in: bool = True, width: int = 1280) -> None:
        self.url = live_server.url
        self.outside: list[str] = []
        self.errors: list[str] = []
        self.context = browser.new_context(viewport={"width": width, "height": 900})
        self.page = self.context.new_page()
        self.page.route("**/*", self._only_local)
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        if not sign_in:
            return
        if not get_user_model().objects.filter(username="chief").exists():  # a second browser of the same test
            PlayerFactory(user=UserFactory(username="chief", is_staff=True, is_superuser=True))
        self.page.goto(f"{self.url}/admin/login/")
        self.page.fill("#id_username", "chief")
        self.page.fill("#id_password", "pw")
        self.page.click("input[type=submit]")

    def _only_local(self, route: Any) -> None:
        if urlsplit(route.request.url).netloc == urlsplit(self.url).netloc:
            route.continue_()
        else:
            self.outside.append(route.request.url)
            route.abort()

    def datasets(self, canvas: str) -> list[dict[str, Any]]:
        """Each line Chart.js drew on the canvas: its label and its points."""
        found: list[dict[str, Any]] = self.page.evaluate(
            """(selector) => window.Chart.getChart(document.querySelector(selector)).data.datasets.map(
                (d) => ({label: d.label, points: d.data.map((p) => [p.x, p.y])}))""",
            canvas,
        )
        return found

    def screenshot(self, selector: str, name: str) -> None:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        self.page.locator(selector).screenshot(path=str(SCREENSHOTS / name))

    def past_the_edge(self, selector: str) -> list[str]:
        """What inside the elements ``selector`` finds reaches past the window's right edge, so that the page
        would scroll sideways: each as tag.class and its right edge. A bracket's rounds scroll within the
        bracket, which is allowed; the bracket's own box must fit."""
        found: list[str] = self.page.evaluate(
            """(selector) => {
                const edge = document.documentElement.clientWidth;
                const out = [];
                for (const part of document.querySelectorAll(selector)) {
                    for (const el of [part, ...part.querySelectorAll('*')]) {
                        if (el.parentElement && el.parentElement.closest('.bracket')) continue;
                        const box = el.getBoundingClientRect();
                        if (box.width && box.right > edge + 0.5) {
                            out.push(`${el.tagName.toLowerCase()}.${el.className} ${Math.round(box.right)}`);
                        }
                    }
                }
                return out;
            }""",
            selector,
        )
        return found


def test_the_rating_chart_draws_offline_one_line_per_entrant(browser: Any, live_server: Any) -> None:
    competition = played_competition()
    admin = OfflineAdmin(browser, live_server)
    admin.page.goto(f"{admin.url}/admin/tournaments/competition/{competition.pk}/change/")
    admin.page.wait_for_selector("#rating-chart[data-drawn=true]", timeout=15_000)
    lines = admin.datasets("#rating-chart")
    admin.screenshot("#ratings", "rating-chart.png")
    admin.context.close()

    assert admin.outside == [] and admin.errors == []
    assert sorted(line["label"] for line in lines) == ["Ada", "Bo", "Cy", "Di", "Ed"]
    for line in lines:
        standing = Standing.objects.get(competition=competition, entrant__name=line["label"])
        assert line["points"][0] == [0, 25]
        assert len(line["points"]) == 1 + standing.played
        assert line["points"][-1][1] == pytest.approx(standing.mu, abs=1e-3)


def test_a_match_s_race_charts_draw_offline_each_side_to_its_total(browser: Any, live_server: Any) -> None:
    competition = CompetitionFactory(game="banter", games_per_match=2)
    EntrantFactory(competition=competition, name="Ann")
    EntrantFactory(competition=competition, name="Ben")
    started(competition)
    competition_play_pending(competition=competition)
    match = Match.objects.get(competition=competition)
    admin = OfflineAdmin(browser, live_server)
    admin.page.goto(f"{admin.url}/admin/tournaments/match/{match.pk}/change/")
    admin.page.wait_for_selector("canvas.race-chart-canvas[data-drawn=true]", timeout=15_000)
    # The page counts games from 1 (game 0 as stored is the chart of "Game 1").
    drawn = {
        game.number: admin.datasets(f"canvas.race-chart-canvas[data-game='{game.number + 1}']")
        for game in Game.objects.filter(match=match)
    }
    admin.screenshot("#race", "race-chart.png")
    admin.context.close()

    assert admin.outside == [] and admin.errors == []
    for game in Game.objects.filter(match=match):
        sides, target = drawn[game.number][:-1], drawn[game.number][-1]
        assert target["label"] == "Target 40" and {y for _, y in target["points"]} == {40}
        names = dict(Entrant.objects.filter(competition=competition).values_list("pk", "name"))
        final = {names[entrant]: total for entrant, total in zip(game.seating, game.result["race"][-1], strict=True)}
        assert {side["label"]: side["points"][-1][1] for side in sides} == final
        assert all(len(side["points"]) == 1 + len(game.result["race"]) for side in sides)
