"""The competition page's "Download the standings (CSV)" link, in chromium: a click gives a file with a name,
which the csv module reads as the JSON standings' rows; the page still fits a phone and passes axe-core."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.e2e.site_checks import check_page
from tests.e2e.test_charts import played_competition

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_click_downloads_the_standings_as_a_csv_file(page: Any, live_server: Any, width: int) -> None:
    competition = played_competition()
    page.goto(f"{live_server.url}/competitions/{competition.pk}/")
    link = page.get_by_role("link", name="Download the standings (CSV)")
    with page.expect_download() as waiting:
        link.click()
    download = waiting.value
    assert download.suggested_filename == f"chart-league-{competition.pk}-standings.csv"
    text = Path(download.path()).read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    standings = APIClient().get(f"/api/tournaments/{competition.pk}/standings/").json()["results"]
    assert [(r["rank"], r["entrant_name"]) for r in rows] == [
        (str(row["rank"]), row["entrant"]["name"]) for row in standings
    ]
    check_page(page, "competition-standings-download")
