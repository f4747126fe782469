"""Play to separation on the real worker path (issue 14): two bots play round after round on a `celery worker`
until the sequential test decides, and the API shows the decision, its ratio and the games."""

from __future__ import annotations

from collections.abc import Callable

from rest_framework.test import APIClient

from tests.e2e.conftest import wait_for
from tests.e2e.test_challenge_ladder import ok, signed_up
from tournaments.models import Game
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
