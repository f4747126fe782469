"""Play to separation on the real worker path (issue 14): two bots play round after round on a `celery worker`
until the sequential test decides, and the API shows the decision, its ratio and the games; and its part of the
competition page, the same on the admin page and the public one, in chromium at a desktop's and a phone's width."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.e2e.conftest import wait_for
from tests.e2e.test_challenge_ladder import ok, signed_up
from tests.e2e.test_charts import OfflineAdmin
from tests.e2e.test_ladder_pages import full_page, parts_on_a_phone
from tests.factories import BotFactory, BotVersionFactory, ClubFactory
from tests.tournaments.test_admin import organiser_of
from tournaments.models import Competition, Game
from tournaments.services.competitions import competition_create, competition_start, entrant_join
from tournaments.services.separation import separation_report
from tournaments.worker_processes import WorkerProcess

Start = Callable[..., WorkerProcess]


def test_two_bots_play_until_the_sequential_test_separates_them(workers: Start) -> None:
    workers("separation")
    olga, _ = signed_up("olga", "10.5.0.1")
    club = ok(olga.post("/api/clubs/", {"name": "Test bench", "slug": "bench"}), 201)["id"]
    body = {"club": club, "name": "Old against new", "game": "war", "format": "separation", "games_per_match": 4}
    competition = ok(olga.post("/api/tournaments/", {**body, "sprt_elo1": 400}, format="json"), 201)["id"]
    for name in ("old", "new"):
        bot = ok(olga.post("/api/bots/", {"name": name, "game": "war"}, format="json"), 201)["id"]
        version = ok(olga.post(f"/api/bots/{bot}/versions/", {"strategy": "random"}, format="json"), 201)
        wait_for(
            lambda b=bot, n=version["number"]: olga.get(f"/api/bots/{b}/versions/{n}/").json()["status"] == "ready",
            timeout=60,
            what="the version's validation",
        )
        ok(olga.post(f"/api/tournaments/{competition}/entrants/", {"bot_version": version["id"]}, format="json"), 201)
    ok(olga.post(f"/api/tournaments/{competition}/start/", {}, format="json"))
    wait_for(
        lambda: APIClient().get(f"/api/tournaments/{competition}/").json()["status"] == "finished",
        timeout=120,
        what="the test to decide",
    )
    verdict = ok(APIClient().get(f"/api/tournaments/{competition}/separation/"))
    assert verdict["decision"] in ("H0", "H1", "cap")
    assert verdict["games"] == Game.objects.filter(match__competition_id=competition).count() > 0
    assert verdict["games"] % 4 == 0  # whole matches of four games
    assert verdict["llr"] <= verdict["lower"] or verdict["llr"] >= verdict["upper"] or verdict["decision"] == "cap"


def decided_separation() -> Competition:
    """Two built-in bots, Old and New, played through the services (the start plays every round inline) until
    the test decides."""
    club = ClubFactory()
    organiser = organiser_of(club)
    competition = competition_create(
        club=club,
        created_by=organiser,
        name="Old against new",
        game="war",
        format="separation",
        seed=7,
        settings={"sprt_elo1": 400, "games_per_match": 4},
    )
    for name in ("Old", "New"):
        version = BotVersionFactory(bot=BotFactory(owner=organiser, name=name, game="war"), number=1)
        entrant_join(competition=competition, bot_version=version)
    competition_start(competition=competition)
    competition.refresh_from_db()
    return competition


@pytest.mark.django_db(transaction=True)
def test_the_test_s_part_reads_the_same_on_both_pages_and_fits_a_phone(browser: Any, live_server: Any) -> None:
    competition = decided_separation()
    report = separation_report(competition)
    assert competition.status == Competition.Status.FINISHED and report is not None
    shown = {}
    for page, path in (
        ("admin", f"/admin/tournaments/competition/{competition.pk}/change/"),
        ("public", f"/competitions/{competition.pk}/"),
    ):
        visitor = OfflineAdmin(browser, live_server, sign_in=page == "admin")
        visitor.page.goto(f"{visitor.url}{path}")
        shown[page] = visitor.page.locator("#separation").inner_text()
        visitor.screenshot("#separation", f"separation-{page}.png")
        full_page(visitor, f"separation-{page}-page.png")
        visitor.context.close()
        assert visitor.outside == [] and visitor.errors == []
    on_a_phone = parts_on_a_phone(browser, live_server, competition, ("separation",))

    assert shown["admin"] == shown["public"]
    decided = {"H0": "Decided: Old v1 does not have an edge of 400 Elo over New v1", "H1": "Decided: Old v1 is the"}
    assert decided[report.verdict.decision] in shown["public"]
    state = report.state
    assert f"{state.games}: Old v1 won {state.wins}, drew {state.draws} and lost {state.losses}" in shown["public"]
    assert on_a_phone == []
