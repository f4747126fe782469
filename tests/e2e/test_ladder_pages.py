"""The ladders' pages in chromium with the internet cut off (issue 13, "the ladder's history ... in the
admin site"): a challenge ladder's admin page (places, history, the rating chart against time) and its
public page, and a rating ladder's public chart over days. Screenshots go to var/screenshots/."""

from __future__ import annotations

from contextlib import nullcontext
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from tests.e2e.conftest import SCREENSHOTS
from tests.e2e.test_charts import PHONE_WIDTH, OfflineAdmin
from tests.tournaments.test_ladder_admin import challenge_ladder_with_history, rating_ladder_with_a_leaver
from tournaments.models import Challenge, Competition, Entrant, Match

pytestmark = pytest.mark.django_db(transaction=True)


def spread_over_days(competition: Competition, hours_apart: int) -> None:
    """Put each round's matches ``hours_apart`` hours after the last, as a ladder played over weeks has them
    (a test plays a whole ladder within a second)."""
    start = timezone.now() - timedelta(days=14)
    Competition.objects.filter(pk=competition.pk).update(started_at=start)
    Entrant.objects.filter(competition=competition).update(joined_at=start - timedelta(hours=1))
    for match in Match.objects.filter(competition=competition).select_related("round"):
        finished = start + timedelta(hours=hours_apart * match.round.number, minutes=7 * match.number)
        Match.objects.filter(pk=match.pk).update(finished_at=finished)


def full_page(visitor: OfflineAdmin, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    visitor.page.screenshot(path=str(SCREENSHOTS / name), full_page=True)


def parts_on_a_phone(browser: Any, live_server: Any, competition: Competition, parts: tuple[str, ...]) -> list[str]:
    """Open the competition's admin page and its public page at a phone's width, screenshot each of the format's
    ``parts`` (element ids) as var/screenshots/<id>-<admin|public>-390.png, and say what in them reaches past the
    window's edge on either page (nothing should)."""
    past: list[str] = []
    for page, path in (
        ("admin", f"/admin/tournaments/competition/{competition.pk}/change/"),
        ("public", f"/competitions/{competition.pk}/"),
    ):
        visitor = OfflineAdmin(browser, live_server, sign_in=page == "admin", width=PHONE_WIDTH)
        visitor.page.goto(f"{visitor.url}{path}")
        past += [f"{page}: {what}" for what in visitor.past_the_edge(", ".join(f"#{part}" for part in parts))]
        for part in parts:
            visitor.screenshot(f"#{part}", f"{part}-{page}-{PHONE_WIDTH}.png")
        visitor.context.close()
        assert visitor.outside == [] and visitor.errors == []
    return past


def x_range(visitor: OfflineAdmin) -> float:
    """The seconds the chart's x axis spans."""
    span: float = visitor.page.evaluate(
        """() => {
            const x = window.Chart.getChart(document.querySelector('#rating-chart')).scales.x;
            return x.max - x.min;
        }"""
    )
    return span


def x_tick_labels(visitor: OfflineAdmin) -> list[str]:
    """The x axis's tick labels as Chart.js drew them (a label of two lines joined by a space)."""
    labels: list[str] = visitor.page.evaluate(
        """() => window.Chart.getChart(document.querySelector('#rating-chart')).scales.x.ticks.map(
            (t) => [].concat(t.label).join(' '))"""
    )
    return labels


def cells(visitor: OfflineAdmin, rows: str) -> list[list[str]]:
    found: list[list[str]] = visitor.page.eval_on_selector_all(
        rows, "(rows) => rows.map((r) => [...r.cells].map((c) => c.innerText.replace(/\\s+/g, ' ').trim()))"
    )
    return found


def test_a_challenge_ladder_s_admin_page_draws_its_places_its_history_and_its_chart_over_time(
    browser: Any, live_server: Any
) -> None:
    ladder = challenge_ladder_with_history(nullcontext)
    spread_over_days(ladder.competition, hours_apart=9)
    places = ladder.places()
    admin = OfflineAdmin(browser, live_server)
    admin.page.goto(f"{admin.url}/admin/tournaments/competition/{ladder.id}/change/")
    admin.page.wait_for_selector("#rating-chart[data-drawn=true]", timeout=15_000)
    rungs = cells(admin, "#ladder tbody tr")
    history = cells(admin, "#challenges tbody tr")
    lines = admin.datasets("#rating-chart")
    ticks = x_tick_labels(admin)
    admin.screenshot("#ladder", "ladder-admin-places.png")
    admin.screenshot("#challenges", "ladder-admin-history.png")
    admin.screenshot("#ratings", "ladder-admin-chart.png")
    full_page(admin, "ladder-admin-page.png")
    declined_id = Challenge.objects.get(competition_id=ladder.id, number=2).pk
    admin.page.goto(f"{admin.url}/admin/tournaments/challenge/{declined_id}/change/")
    challenge_page = admin.page.locator("#content").inner_text()
    full_page(admin, "challenge-admin-page.png")
    admin.context.close()

    assert admin.outside == [] and admin.errors == []
    assert [[row[0], row[1].removesuffix(" (bot)")] for row in rungs] == [
        [str(place), name] for place, name in enumerate(places, start=1)
    ]
    assert rungs[-1][2] == "Challenge 4: challenging, not accepted yet"
    assert [row[0] for row in history] == ["4", "3", "2", "1"]
    declined = history[2]
    assert declined[1] == "Cat challenged Bob" and declined[2].startswith("Bob declined: Bob forfeited ")
    assert "Bob → Cat" in declined[3]
    assert "Bob → Cat" not in challenge_page  # the change page lays places out as a table: before, after
    assert "Places before → after" in challenge_page and "moved" in challenge_page
    played = Challenge.objects.get(competition_id=ladder.id, number=1)
    # The match on the admin's page, and its replay (site/replays/) on both.
    assert history[3][2].endswith(f" match {played.match_id} replay")
    # Against time: epoch seconds of the matches' finishes, every line left to right.
    assert lines and all(point[0] > 1_700_000_000 for line in lines for point in line["points"])
    assert all(ticks) and not any(label.replace(".", "").isdigit() for label in ticks)


def test_a_challenge_ladder_s_public_page_shows_the_places_and_the_latest_challenges(
    browser: Any, live_server: Any
) -> None:
    ladder = challenge_ladder_with_history(nullcontext)
    places = ladder.places()
    visitor = OfflineAdmin(browser, live_server, sign_in=False)
    visitor.page.goto(f"{visitor.url}/competitions/{ladder.id}/")
    visitor.page.wait_for_selector("#rating-chart[data-drawn=true]", timeout=15_000)
    span = x_range(visitor)
    rungs = cells(visitor, "#ladder tbody tr")
    challenges = cells(visitor, "#challenges tbody tr")
    full_page(visitor, "ladder-public-page.png")
    visitor.context.close()

    assert visitor.outside == [] and visitor.errors == []
    assert [row[0] for row in rungs] == [str(place) for place in range(1, len(places) + 1)]
    assert [row[1].removesuffix(" (bot)") for row in rungs] == places
    assert [row[0] for row in challenges] == ["4", "3", "2", "1"]
    assert challenges[2][1] == "Cat challenged Bob" and challenges[2][2].startswith("Bob declined: Bob forfeited ")
    assert challenges[0][2].startswith("Not accepted yet due by ") and "match" not in challenges[3][2]
    # Its matches all finished within a second or two of the start: the axis is a minute or so wide, not
    # the years Chart.js would make of an almost empty range of epoch seconds.
    assert 60 <= span <= 180


def test_a_rating_ladder_s_public_chart_reads_in_days(browser: Any, live_server: Any, settings: Any) -> None:
    settings.RATING_LADDER_BATCH = 200
    settings.RATING_LADDER_PLACEMENT_MATCHES = 2
    settings.RATING_LADDER_EXPLORATION_PERCENT = 0
    competition = rating_ladder_with_a_leaver(rounds=6)
    spread_over_days(competition, hours_apart=40)
    visitor = OfflineAdmin(browser, live_server, sign_in=False)
    visitor.page.goto(f"{visitor.url}/competitions/{competition.pk}/")
    visitor.page.wait_for_selector("#rating-chart[data-drawn=true]", timeout=15_000)
    ticks = x_tick_labels(visitor)
    names = visitor.page.locator("#standings tbody th").all_inner_texts()
    full_page(visitor, "rating-ladder-public-page.png")
    visitor.context.close()

    assert visitor.outside == [] and visitor.errors == []
    assert len(names) == 4 and sum(name.endswith("(left)") for name in names) == 1
    # Ten days and more: the ticks are days ("12 Nov"), not seconds.
    assert ticks and all(len(label.split()) == 2 and label.split()[0].isdigit() for label in ticks)


def test_a_rating_ladder_s_admin_page_shows_its_progress_and_marks_who_left(
    browser: Any, live_server: Any, settings: Any
) -> None:
    settings.RATING_LADDER_BATCH = 200
    settings.RATING_LADDER_PLACEMENT_MATCHES = 2
    settings.RATING_LADDER_EXPLORATION_PERCENT = 0
    competition = rating_ladder_with_a_leaver(rounds=4)
    spread_over_days(competition, hours_apart=3)
    admin = OfflineAdmin(browser, live_server)
    admin.page.goto(f"{admin.url}/admin/tournaments/competition/{competition.pk}/change/")
    admin.page.wait_for_selector("#rating-chart[data-drawn=true]", timeout=15_000)
    progress = cells(admin, "#rating-ladder tbody tr")
    names = [row[1] for row in cells(admin, "#standings tbody tr")]
    ticks = x_tick_labels(admin)
    admin.screenshot("#rating-ladder", "rating-ladder-admin-progress.png")
    admin.screenshot("#standings", "rating-ladder-admin-standings.png")
    admin.screenshot("#ratings", "rating-ladder-admin-chart.png")
    admin.context.close()

    assert admin.outside == [] and admin.errors == []
    assert progress[0] == ["Rounds played", "4"] and progress[2] == ["Entrants who left", "1"]
    assert [name for name in names if name.endswith("(left)")] == ["Rex (left)"]
    # Twelve hours or so of rounds: clock times, the day under the first.
    assert ticks and ":" in ticks[0] and len(ticks[0].split()) == 3


def test_the_ladders_parts_fit_a_phone_on_both_pages(browser: Any, live_server: Any, settings: Any) -> None:
    settings.RATING_LADDER_BATCH = 200
    settings.RATING_LADDER_PLACEMENT_MATCHES = 2
    settings.RATING_LADDER_EXPLORATION_PERCENT = 0
    ladder = challenge_ladder_with_history(nullcontext)
    assert parts_on_a_phone(browser, live_server, ladder.competition, ("ladder", "challenges")) == []
    rating = rating_ladder_with_a_leaver(rounds=2)
    assert parts_on_a_phone(browser, live_server, rating, ("rating-ladder",)) == []
