"""Swiss on the real worker path (issue 14), through the API only: a two-player Swiss and a multiplayer one of
pods, each with bots on a `celery worker` and a person playing refereed at live tables; every round paired
when the one before is over, no rematch, a bye a round for an odd field, and the Swiss tiebreaks in the
standings.
"""

from __future__ import annotations

import itertools
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
from tournaments.models import Match, Round
from tournaments.worker_processes import WorkerProcess

Start = Callable[..., WorkerProcess]


def club_with_a_member(slug: str, network: str) -> tuple[APIClient, int, APIClient, int]:
    """Olga signs up and makes a club; Nina signs up and joins it by invitation. Olga's client, the club, Nina's
    client and player id; ``network`` is the first three parts of their addresses (sign-up limits by address)."""
    olga, _ = signed_up(f"olga-{slug}", f"{network}.1")
    club = ok(olga.post("/api/clubs/", {"name": f"Club {slug}", "slug": slug}), 201)["id"]
    code = ok(olga.post(f"/api/clubs/{club}/invitations/", {}, format="json"), 201)["code"]
    nina, nina_id = signed_up(f"nina-{slug}", f"{network}.2")
    ok(nina.post(f"/api/invitations/{code}/accept/"), 201)
    return olga, club, nina, nina_id


def bots_entered(client: APIClient, competition: int, count: int, game: str = "1923") -> None:
    """``count`` new bots of the built-in random strategy, each entered once its version is validated."""
    for number in range(count):
        bot = ok(client.post("/api/bots/", {"name": f"b{competition}-{number}", "game": game}, format="json"), 201)
        version = ok(client.post(f"/api/bots/{bot['id']}/versions/", {"strategy": "random"}, format="json"), 201)
        wait_for(
            lambda b=bot["id"], n=version["number"]: (
                client.get(f"/api/bots/{b}/versions/{n}/").json()["status"] == "ready"
            ),
            timeout=60,
            what="the version's validation",
        )
        body = {"bot_version": version["id"]}
        ok(client.post(f"/api/tournaments/{competition}/entrants/", body, format="json"), 201)


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
    olga, club, nina, nina_id = club_with_a_member(f"swiss{players}", f"10.4.{players}")
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
    bots_entered(olga, competition, bots)
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
    """The person plays each live match of theirs as it comes, until the competition is over; then each round
    was paired only once every match of the round before had finished."""
    rounds_seen = 0
    while swiss_status(competition) == "running":
        rounds_seen = len(_rounds(competition))
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
    assert_each_round_paired_after_the_last(competition)


def assert_each_round_paired_after_the_last(competition: int) -> None:
    """Read off the rows, not by polling: rounds of bots alone can pass between two looks at the API."""
    rounds = list(Round.objects.filter(competition_id=competition).order_by("number"))
    for before, after in itertools.pairwise(rounds):
        finished = [m.finished_at for m in before.matches.all()]
        assert all(finished), f"round {before.number} has unfinished matches"
        assert after.created_at >= max(f for f in finished if f is not None), f"round {after.number} came early"


def _rounds(competition: int) -> list[dict[str, Any]]:
    answer = APIClient().get(f"/api/tournaments/{competition}/rounds/").json()
    return list(answer["results"] if isinstance(answer, dict) else answer)
