"""Swiss on the real worker path (issue 14), through the API only: a two-player Swiss and a multiplayer one of
pods, each with bots on a `celery worker` and a person playing refereed at live tables; every round paired
when the one before is over, no rematch, a bye a round for an odd field, and the Swiss tiebreaks in the
standings.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from itertools import combinations
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.e2e.conftest import wait_for
from tests.e2e.test_challenge_ladder import ok, signed_up
from tests.league.test_api_support import results
from tournaments.models import Match
from tournaments.worker_processes import WorkerProcess

Start = Callable[..., WorkerProcess]


def swiss_status(competition: int) -> str:
    return str(APIClient().get(f"/api/tournaments/{competition}/").json()["status"])


def my_live_match(client: APIClient, competition: int) -> int | None:
    for match in client.get("/api/players/me/matches/").json():
        if match["competition"]["id"] == competition and match["status"] == "live":
            return int(match["id"])
    return None


def play_my_seat(client: APIClient, match: int, rng: random.Random) -> None:
    """Move at random whenever the table waits on me, until the match is over (the bots are the worker's)."""
    moves = 0
    while Match.objects.get(pk=match).status == Match.Status.LIVE:
        view = client.get(f"/api/matches/{match}/table/").json()
        if not view["legal_actions"]:
            wait_for(lambda: _my_turn_or_over(client, match), timeout=60, what="my turn or the end")
            continue
        body = {"action": rng.choice(view["legal_actions"]), "version": view["version"], "client_move_id": str(moves)}
        answer = client.post(f"/api/matches/{match}/moves/", body, format="json")
        assert answer.status_code in (200, 409), answer.content  # 409: a bot moved first; look again
        moves += 1


def _my_turn_or_over(client: APIClient, match: int) -> bool:
    if Match.objects.get(pk=match).status != Match.Status.LIVE:
        return True
    return bool(client.get(f"/api/matches/{match}/table/").json()["legal_actions"])


@pytest.mark.parametrize(("players", "bots"), [(2, 6), (3, 6)])
def test_a_swiss_of_bots_and_a_person_is_paired_round_by_round_on_the_workers(
    workers: Start, players: int, bots: int
) -> None:
    workers(f"swiss-{players}", beat=True, extra_env={"LIVE_CLOCK_SECONDS": "1"})
    olga, _ = signed_up(f"olga{players}", f"10.4.{players}.1")
    club = ok(olga.post("/api/clubs/", {"name": "Swiss club", "slug": f"swiss{players}"}), 201)["id"]
    code = ok(olga.post(f"/api/clubs/{club}/invitations/", {}, format="json"), 201)["code"]
    nina, nina_id = signed_up(f"nina{players}", f"10.4.{players}.2")
    ok(nina.post(f"/api/invitations/{code}/accept/"), 201)
    body: dict[str, Any] = {
        "club": club,
        "name": "Evening Swiss",
        "game": "1923",
        "options": {"mode": "set"},
        "format": "swiss",
        "players_per_match": players,
        "round_count": 3,
    }
    competition = ok(olga.post("/api/tournaments/", body, format="json"), 201)["id"]
    for number in range(bots):
        bot = ok(olga.post("/api/bots/", {"name": f"b{number}", "game": "1923"}, format="json"), 201)["id"]
        version = ok(olga.post(f"/api/bots/{bot}/versions/", {"strategy": "random"}, format="json"), 201)
        wait_for(
            lambda b=bot, n=version["number"]: olga.get(f"/api/bots/{b}/versions/{n}/").json()["status"] == "ready",
            timeout=60,
            what="the version's validation",
        )
        ok(olga.post(f"/api/tournaments/{competition}/entrants/", {"bot_version": version["id"]}, format="json"), 201)
    ok(nina.post(f"/api/tournaments/{competition}/entrants/", {"player": nina_id}, format="json"), 201)
    ok(olga.post(f"/api/tournaments/{competition}/start/", {}, format="json"))

    play_until_finished(nina, competition, random.Random(players))
    assert swiss_status(competition) == "finished"
    rounds = _rounds(competition)
    assert [r["number"] for r in rounds] == [1, 2, 3]
    entrants = {e["id"] for e in results(APIClient().get(f"/api/tournaments/{competition}/entrants/"))}
    met: Counter[frozenset[int]] = Counter()
    byes: list[int] = []
    for round_ in rounds:
        tables = [[p["entrant"]["id"] for p in m["participants"]] for m in round_["matches"]]
        assert all(len(table) == players for table in tables)
        seated = [e for table in tables for e in table]
        assert sorted(seated + round_["byes"]) == sorted(entrants)
        byes += round_["byes"]
        met.update(frozenset(pair) for table in tables for pair in combinations(table, 2))
    assert len(byes) == len(set(byes)) == (3 * (len(entrants) % players))  # nobody's second bye
    if players == 2:
        assert max(met.values()) == 1  # seven entrants, three rounds: no rematch was ever needed
    table = results(APIClient().get(f"/api/tournaments/{competition}/standings/"))
    assert [t["field"] for t in table[0]["tiebreaks"][:4]] == [
        "match_points",
        "buchholz_cut1",
        "buchholz",
        "sonneborn_berger",
    ]
    low, high = table[0]["score_interval"]
    assert 0 <= low <= (table[0]["score_rate"] or 0) <= high <= 1


def play_until_finished(person: APIClient, competition: int, rng: random.Random) -> None:
    """The person plays each live match of theirs as it comes, until the competition is over; meanwhile the
    rounds are never more than one ahead: the next is paired only when this one is over."""
    rounds_seen = 0
    while swiss_status(competition) == "running":
        rounds = _rounds(competition)
        assert len(rounds) in (rounds_seen, rounds_seen + 1)
        rounds_seen = len(rounds)
        match = my_live_match(person, competition)
        if match is not None:
            play_my_seat(person, match, rng)
        else:
            wait_for(
                lambda seen=rounds_seen: (
                    swiss_status(competition) != "running"
                    or my_live_match(person, competition) is not None
                    or len(_rounds(competition)) > seen
                ),
                timeout=90,
                what="the next round or the end",
            )


def _rounds(competition: int) -> list[dict[str, Any]]:
    answer = APIClient().get(f"/api/tournaments/{competition}/rounds/").json()
    return list(answer["results"] if isinstance(answer, dict) else answer)
