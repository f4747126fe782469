"""The challenge ladder on the real worker path (issue 13, "Done means"), through the API only.

A newcomer signs up, joins the club by invitation, another by request; both enter the club's ladder,
one challenges the other, they play at a live table refereed by the server (moves over the API,
the clocks on beat) and the challenger moves up. A ladder of bots climbs by challenges played on a
`celery worker`; beat forfeits a challenge left unanswered past its deadline.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from tests.e2e.conftest import wait_for
from tests.league.test_api_support import results
from tests.league.test_newcomer_joins import signed_up as newcomer
from tournaments.models import Challenge, Game, Match, MatchParticipant
from tournaments.worker_processes import WorkerProcess

Start = Callable[..., WorkerProcess]

#: Beat's sweeps every second, so deadlines and clocks apply within the test's patience.
FAST_BEAT = {"CHALLENGE_SWEEP_SECONDS": "1", "LIVE_CLOCK_SECONDS": "1"}


def signed_up(username: str, address: str) -> tuple[APIClient, int]:
    """A client holding a fresh sign-up's token, and the new player's id."""
    client = newcomer(username, address)
    return client, client.get("/api/players/me/").json()["id"]


def ok(response: Any, code: int = 200) -> Any:
    assert response.status_code == code, response.content
    return response.json()


def places(ladder: int) -> list[str]:
    rows = results(APIClient().get(f"/api/tournaments/{ladder}/standings/"))
    return [row["entrant"]["name"] for row in rows if row["entrant"]["position"] is not None]


def challenge_of(ladder: int, number: int) -> dict[str, Any]:
    return ok(APIClient().get(f"/api/tournaments/{ladder}/challenges/{number}/"))


def decided(ladder: int, number: int) -> Callable[[], bool]:
    return lambda: challenge_of(ladder, number)["status"] not in ("issued", "accepted")


def play_at_the_table(match: int, people: list[APIClient], rng: random.Random, *, staller: APIClient | None) -> None:
    """Each person moves at random when the table waits on them, until the match ends; ``staller``, if
    given, makes two moves and then stops, and the clock decides."""
    moved = {id(client): 0 for client in people}
    while Match.objects.get(pk=match).status == Match.Status.LIVE:
        acted = False
        for client in people:
            if client is staller and moved[id(client)] >= 2:
                continue
            view = client.get(f"/api/matches/{match}/table/").json()
            if view["legal_actions"]:
                body = {
                    "action": rng.choice(view["legal_actions"]),
                    "version": view["version"],
                    "client_move_id": f"{people.index(client)}/{moved[id(client)]}",
                }
                answer = client.post(f"/api/matches/{match}/moves/", body, format="json")
                # A 409 is the clock having ended the game in between: the loop looks again.
                assert answer.status_code in (200, 409), answer.content
                moved[id(client)] += 1
                acted = True
        if not acted:
            # Waiting on the clock (or on the recording of the last move).
            wait_for(lambda: Match.objects.get(pk=match).status != Match.Status.LIVE, timeout=30, what="the clock")


def test_a_newcomer_signs_up_joins_enters_the_ladder_challenges_plays_and_moves_up(workers: Start) -> None:
    workers("ladder-people", beat=True, extra_env=FAST_BEAT)
    olga, _ = signed_up("olga", "10.2.0.1")
    club = ok(olga.post("/api/clubs/", {"name": "Ladder club", "slug": "ladder", "joining": "request"}), 201)["id"]
    # Nina comes in with a code, Otto by asking.
    code = ok(olga.post(f"/api/clubs/{club}/invitations/", {}, format="json"), 201)["code"]
    nina, nina_id = signed_up("nina", "10.2.0.2")
    ok(nina.post(f"/api/invitations/{code}/accept/"), 201)
    otto, otto_id = signed_up("otto", "10.2.0.3")
    asked = ok(otto.post(f"/api/clubs/{club}/join/", {}, format="json"), 202)
    ok(olga.post(f"/api/clubs/{club}/join-requests/{asked['id']}/accept/"))
    # Someone without either is told how to get in, and cannot enter the ladder.
    stranger, stranger_id = signed_up("sven", "10.2.0.4")

    ladder = ok(
        olga.post(
            "/api/tournaments/",
            {
                "club": club,
                "name": "Club ladder",
                "game": "1923",
                "options": {"mode": "set"},
                "format": "challenge_ladder",
                "move_seconds": 5,
                "game_seconds": 60,
            },
            format="json",
        ),
        201,
    )["id"]
    otto_in = ok(otto.post(f"/api/tournaments/{ladder}/entrants/", {"player": otto_id}, format="json"), 201)
    refused = stranger.post(f"/api/tournaments/{ladder}/entrants/", {"player": stranger_id}, format="json")
    assert refused.status_code == 403 and refused.json() == {"detail": "only members of Ladder club may enter"}
    ok(olga.post(f"/api/tournaments/{ladder}/start/", {}, format="json"))
    # Nina enters the running ladder: at the bottom.
    nina_in = ok(nina.post(f"/api/tournaments/{ladder}/entrants/", {"player": nina_id}, format="json"), 201)
    assert places(ladder) == ["otto", "nina"]

    rng = random.Random(13)
    for attempt in range(2):
        body = {"challenger": nina_in["id"], "defender": otto_in["id"]}
        number = ok(nina.post(f"/api/tournaments/{ladder}/challenges/", body, format="json"), 201)["number"]
        # Only Otto's side answers; then the match is dealt at a live table.
        assert nina.post(f"/api/tournaments/{ladder}/challenges/{number}/accept/").status_code == 403
        match = ok(otto.post(f"/api/tournaments/{ladder}/challenges/{number}/accept/"))["match"]
        assert Match.objects.get(pk=match).status == Match.Status.LIVE
        # The first time both play it out; if Nina did not win, the second time Otto stops moving and his
        # clock runs out on beat: either way the referee decides, and the ladder follows the result.
        play_at_the_table(match, [nina, otto], rng, staller=otto if attempt else None)
        wait_for(decided(ladder, number), timeout=60, what="the challenge to be decided")
        shown = challenge_of(ladder, number)
        assert shown["status"] == "played"
        ranks = {p.entrant_id: p.rank for p in MatchParticipant.objects.filter(match_id=match)}
        nina_won = ranks[nina_in["id"]] < ranks[otto_in["id"]]
        assert places(ladder) == (["nina", "otto"] if nina_won else ["otto", "nina"])
        assert Game.objects.filter(match_id=match).count() == 1
        if nina_won:
            assert [p["name"] for p in shown["places_after"]] == ["nina", "otto"]
            break
    else:
        pytest.fail("Nina did not move up even when Otto let his clock run out")


def test_a_ladder_of_bots_climbs_by_challenges_on_the_workers_and_beat_forfeits_the_unanswered(
    workers: Start,
) -> None:
    workers("ladder-bots", beat=True, extra_env=FAST_BEAT)
    olga, _ = signed_up("olga", "10.3.0.1")
    club = ok(olga.post("/api/clubs/", {"name": "Bot club", "slug": "bots"}), 201)["id"]
    ladder = ok(
        olga.post(
            "/api/tournaments/",
            {"club": club, "name": "Bot ladder", "game": "banter", "format": "challenge_ladder"},
            format="json",
        ),
        201,
    )["id"]
    entrants = []
    for name in ("alpha", "bravo", "charlie", "delta"):
        bot = ok(olga.post("/api/bots/", {"name": name, "game": "banter"}, format="json"), 201)["id"]
        version = ok(olga.post(f"/api/bots/{bot}/versions/", {"strategy": "random"}, format="json"), 201)
        wait_for(lambda v=version, b=bot: _ready(olga, b, v["number"]), timeout=60, what="the version's validation")
        body = {"bot_version": version["id"]}
        entered = ok(olga.post(f"/api/tournaments/{ladder}/entrants/", body, format="json"), 201)
        entrants.append(entered)
    ids = {e["name"]: e["id"] for e in entrants}
    ok(olga.post(f"/api/tournaments/{ladder}/start/", {"order": [e["id"] for e in entrants]}, format="json"))
    expected = [e["name"] for e in entrants]
    assert places(ladder) == expected

    for _ in range(6):
        challenger = expected[-1]
        defender = expected[-3]
        body = {"challenger": ids[challenger], "defender": ids[defender]}
        issued = ok(olga.post(f"/api/tournaments/{ladder}/challenges/", body, format="json"), 201)
        # Bots have nobody to ask: accepted at once, played by the worker.
        assert issued["status"] == "accepted"
        wait_for(decided(ladder, issued["number"]), timeout=60, what="the bots' challenge to be played")
        shown = challenge_of(ladder, issued["number"])
        ranks = {p.entrant_id: p.rank for p in MatchParticipant.objects.filter(match_id=shown["match"])}
        if ranks[ids[challenger]] < ranks[ids[defender]]:
            expected.remove(challenger)
            expected.insert(expected.index(defender), challenger)
        assert places(ladder) == expected
        assert Game.objects.filter(match_id=shown["match"]).count() == 1
    assert all(c["status"] == "played" for c in results(APIClient().get(f"/api/tournaments/{ladder}/challenges/")))

    # A person's challenge left unanswered: beat forfeits it once its deadline has passed.
    newcomers = []
    for name, address in (("nina", "10.3.0.2"), ("otto", "10.3.0.3")):
        client, player = signed_up(name, address)
        code = ok(olga.post(f"/api/clubs/{club}/invitations/", {}, format="json"), 201)["code"]
        ok(client.post(f"/api/invitations/{code}/accept/"), 201)
        entered = ok(client.post(f"/api/tournaments/{ladder}/entrants/", {"player": player}, format="json"), 201)
        newcomers.append((client, entered["id"]))
    (_, nina_in), (otto, otto_in) = newcomers
    body = {"challenger": otto_in, "defender": nina_in}
    issued = ok(otto.post(f"/api/tournaments/{ladder}/challenges/", body, format="json"), 201)
    assert issued["status"] == "issued"  # Nina has not answered
    Challenge.objects.filter(competition_id=ladder, number=issued["number"]).update(
        deadline=timezone.now() - timedelta(seconds=1)
    )
    wait_for(decided(ladder, issued["number"]), timeout=30, what="beat to apply the deadline")
    shown = challenge_of(ladder, issued["number"])
    assert (shown["status"], shown["outcome"]) == ("forfeited", "not accepted by the deadline: nina forfeited")
    assert places(ladder) == [*expected, "otto", "nina"]


def _ready(client: APIClient, bot: int, number: int) -> bool:
    return client.get(f"/api/bots/{bot}/versions/{number}/").json()["status"] == "ready"
