"""A competition's public page (/competitions/{id}/): standings, the rating chart and the head-to-head
matrix, for anyone, in chromium with the internet cut off (issue 13, "a public competition page")."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import SCREENSHOTS
from tests.e2e.test_charts import OfflineAdmin, played_competition
from tournaments.models import Standing

pytestmark = pytest.mark.django_db(transaction=True)


def test_anyone_sees_the_standings_the_chart_and_the_matrix(browser: Any, live_server: Any) -> None:
    competition = played_competition()
    visitor = OfflineAdmin(browser, live_server, sign_in=False)
    visitor.page.goto(f"{visitor.url}/competitions/{competition.pk}/")
    visitor.page.wait_for_selector("#rating-chart[data-drawn=true]", timeout=15_000)
    lines = visitor.datasets("#rating-chart")
    names = visitor.page.locator("#standings tbody th").all_inner_texts()
    matrix_rows = visitor.page.locator("#head-to-head tbody tr").count()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    visitor.page.screenshot(path=str(SCREENSHOTS / "competition-page.png"), full_page=True)
    visitor.context.close()

    assert visitor.outside == [] and visitor.errors == []
    ordered = list(
        Standing.objects.filter(competition=competition)
        .order_by("-match_units", "-figure_1", "entrant__name")
        .values_list("entrant__name", flat=True)
    )
    assert names == ordered
    assert sorted(line["label"] for line in lines) == sorted(ordered)
    assert matrix_rows == 5


def test_an_unknown_competition_is_a_404(client: Any) -> None:
    assert client.get("/competitions/999999/").status_code == 404
