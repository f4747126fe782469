"""Knockouts on the real worker path (issue 14), through the API only: a single elimination at tables of two
and a double elimination at tables of three, each of bots on a `celery worker` and a person playing refereed
at live tables; every round paired from the bracket when the one before is over, byes for the top seeds, and
places in the bracket and the standings. Then a Swiss stage of bots that cuts to a knockout on the workers.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.e2e.conftest import wait_for
from tests.e2e.test_challenge_ladder import ok, signed_up
from tests.e2e.test_swiss import _rounds, bots_entered, club_with_a_member, play_until_finished, swiss_status
from tests.league.test_api_support import results
from tournaments.worker_processes import WorkerProcess

Start = Callable[..., WorkerProcess]


@pytest.mark.parametrize(("format", "players", "bots"), [("single_elimination", 2, 5), ("double_elimination", 3, 5)])
def test_a_knockout_of_bots_and_a_person_is_played_round_by_round_on_the_workers(
    workers: Start, format: str, players: int, bots: int
) -> None:
    workers(f"ko-{players}", beat=True, extra_env={"LIVE_CLOCK_SECONDS": "1"})
    olga, club, nina, nina_id = club_with_a_member(f"cup{players}", f"10.5.{players}")
    body: dict[str, Any] = {
        "club": club,
        "name": "Cup",
        "game": "1923",
        "options": {"mode": "set"},
        "format": format,
        "players_per_match": players,
        "third_place": players == 2,
    }
    competition = ok(olga.post("/api/tournaments/", body, format="json"), 201)["id"]
    bots_entered(olga, competition, bots)
    ok(nina.post(f"/api/tournaments/{competition}/entrants/", {"player": nina_id}, format="json"), 201)
    ok(olga.post(f"/api/tournaments/{competition}/start/", {}, format="json"))

    play_until_finished(nina, competition, random.Random(players))
    assert swiss_status(competition) == "finished"
    bracket = ok(APIClient().get(f"/api/tournaments/{competition}/bracket/"))
    assert bracket["finished"] is True
    stored = _rounds(competition)
    assert len(stored) == len(bracket["rounds"])
    for round_, drawn in zip(stored, bracket["rounds"], strict=True):
        tables = sorted(sorted(p["entrant"]["id"] for p in m["participants"]) for m in round_["matches"])
        assert tables == sorted(sorted(s["entrant"]["id"] for s in t["seats"]) for t in drawn["tables"])
        assert all(len(t) == players for t in tables)
    # Six entrants: the top seeds sit round 1 out (at tables of two, seeds 1 and 2; at tables of three, none).
    first_byes = [e["seed"] for side in bracket["rounds"][0]["byes"] for e in side["entrants"]]
    assert first_byes == ([1, 2] if players == 2 else [])
    places = {p["entrant"]["id"]: p["place"] for p in bracket["places"]}
    assert len(places) == bots + 1 and min(places.values()) == 1
    assert nina_id in {e["player"] for e in results(APIClient().get(f"/api/tournaments/{competition}/entrants/"))}
    table = results(APIClient().get(f"/api/tournaments/{competition}/standings/"))
    assert [row["rank"] for row in table] == sorted(places.values())
    assert [places[row["entrant"]["id"]] for row in table] == sorted(places.values())
    if format == "double_elimination":
        sides = {t["side"] for r in bracket["rounds"] for t in r["tables"]}
        assert {"upper", "lower", "grand_final"} <= sides


def test_a_swiss_stage_cuts_to_a_knockout_on_the_workers(workers: Start) -> None:
    workers("stage", beat=True)
    olga, _ = signed_up("stageolga", "10.5.9.1")
    club = ok(olga.post("/api/clubs/", {"name": "Stage club", "slug": "stages"}), 201)["id"]
    body = {
        "club": club,
        "name": "Open",
        "game": "war",
        "format": "swiss",
        "round_count": 3,
        "cut_to": 4,
        "cut_format": "single_elimination",
        "games_per_match": 3,
    }
    stage = ok(olga.post("/api/tournaments/", body, format="json"), 201)["id"]
    bots_entered(olga, stage, 7, game="war")
    ok(olga.post(f"/api/tournaments/{stage}/start/", {}, format="json"))
    wait_for(lambda: swiss_status(stage) == "finished", timeout=120, what="the Swiss stage")
    cut = ok(APIClient().get(f"/api/tournaments/{stage}/"))["next_stage"]
    assert cut is not None
    wait_for(lambda: swiss_status(cut) == "finished", timeout=120, what="the knockout stage")
    best = [row["entrant"]["name"] for row in results(APIClient().get(f"/api/tournaments/{stage}/standings/"))[:4]]
    bracket = ok(APIClient().get(f"/api/tournaments/{cut}/bracket/"))
    assert [e["name"] for e in bracket["seeds"]] == best
    assert sorted(p["place"] for p in bracket["places"]) == [1, 2, 3, 3]
