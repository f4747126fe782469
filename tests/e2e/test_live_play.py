"""Live tables on the real worker path: people move through the API, bots on a `celery worker`, over Redis.

People are API clients with tokens, as a program playing for a person would be; the
bot seats, a finished match's recording and the clocks are the workers' and beat's.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from league.models import Player
from tests.e2e.conftest import wait_for
from tests.engine.sandbox_support import needs_sandbox
from tests.tournaments.live_support import assert_recorded_fairly, live_match
from tournaments.models import Game, LiveMove, Match, Standing
from tournaments.worker_processes import WorkerProcess

Start = Callable[..., WorkerProcess]


def token_client(player: Player) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=player.user)[0].key}")
    return client


def status_of(match: Match) -> str:
    return str(Match.objects.values_list("status", flat=True).get(pk=match.pk))


def play_as_people(match: Match, players: list[Player], *, seed: int = 0, timeout: float = 90) -> int:
    """Each person moves at random whenever the table waits on them, until the match is over; moves made."""
    clients = [token_client(player) for player in players]
    rng = random.Random(seed)
    moves = 0

    def someone_can_move() -> bool:
        if status_of(match) != Match.Status.LIVE:
            return True
        return any(client.get(f"/api/matches/{match.pk}/table/").json()["legal_actions"] for client in clients)

    while status_of(match) == Match.Status.LIVE:
        # A bot's decision is the worker's: wait for it, polling briefly (a bot decides in milliseconds).
        deadline = time.monotonic() + timeout
        while not someone_can_move():
            assert time.monotonic() < deadline, "timed out waiting for a person's turn or the end of the match"
            time.sleep(0.02)
        for client in clients:
            view = client.get(f"/api/matches/{match.pk}/table/").json()
            if view["legal_actions"]:
                body = {
                    "action": rng.choice(view["legal_actions"]),
                    "version": view["version"],
                    "client_move_id": f"{seed}/{moves}",
                }
                response = client.post(f"/api/matches/{match.pk}/moves/", body, format="json")
                assert response.status_code == 200, response.content
                moves += 1
    return moves


@pytest.mark.parametrize(
    ("game", "people", "bots", "options"),
    [
        ("war", 2, 0, {}),
        ("1923", 2, 1, {"mode": "set"}),
        ("banter", 1, 1, {}),
        ("punk", 3, 0, {}),
        ("punk", 1, 1, {"dummy": True}),
    ],
)
def test_live_games_of_people_and_bots_are_played_and_recorded(
    workers: Start, game: str, people: int, bots: int, options: dict[str, Any]
) -> None:
    workers("w1")
    match, players = live_match(game, people=people, bots=bots, options=options, games=2)
    play_as_people(match, players)
    wait_for(lambda: status_of(match) == Match.Status.DONE, what="the match to be recorded")
    assert_recorded_fairly(match)
    assert sum(s.played for s in Standing.objects.filter(competition=match.competition_id)) == people + bots
    if bots and game != "war":
        assert LiveMove.objects.filter(match=match, client_move_id__startswith="bot/").exists()


def test_two_racing_submissions_for_one_decision_make_one_move(workers: Start) -> None:
    workers("w1")
    match, (alice, _) = live_match("1923", options={"mode": "set"})
    version = token_client(alice).get(f"/api/matches/{match.pk}/table/").json()["version"]
    racers = [(f"id{n}", ("DRAW", "LOCK")[n % 2]) for n in range(6)]
    barrier = threading.Barrier(len(racers))
    codes: list[int] = []

    def submit(move_id: str, action: str) -> None:
        client = token_client(alice)
        barrier.wait()
        body = {"action": action, "version": version, "client_move_id": move_id}
        codes.append(client.post(f"/api/matches/{match.pk}/moves/", body, format="json").status_code)
        connection.close()

    threads = [threading.Thread(target=submit, args=args) for args in racers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Each waits for the match's lock; all but the first find the seat has chosen already.
    assert sorted(codes) == [200] + [409] * (len(racers) - 1)
    assert LiveMove.objects.filter(match=match).count() == 1


def test_a_worker_killed_mid_game_loses_no_move(workers: Start) -> None:
    first = workers("w1")
    match, (alice,) = live_match("banter", people=1, bots=1)
    client = token_client(alice)
    rng = random.Random(1)
    made = 0
    while made < 6 and status_of(match) == Match.Status.LIVE:
        # Kill the worker right after a move of alice's: the bot's turn is then queued or in its hands.
        wait_for(
            lambda: bool(client.get(f"/api/matches/{match.pk}/table/").json()["legal_actions"]),
            what="alice's turn",
        )
        view = client.get(f"/api/matches/{match.pk}/table/").json()
        body = {"action": rng.choice(view["legal_actions"]), "version": view["version"], "client_move_id": str(made)}
        assert client.post(f"/api/matches/{match.pk}/moves/", body, format="json").status_code == 200
        made += 1
    first.kill()
    moves_before = LiveMove.objects.filter(match=match).count()
    # Whatever the killed worker held is lost with it (Redis redelivers an unacknowledged task only after
    # its visibility timeout): the beat's sweep sends the bot's turn again.
    workers("w2", beat=True, extra_env={"LIVE_CLOCK_SECONDS": "1", "LIVE_BOT_GRACE": "2"})
    play_as_people(match, [alice], seed=2)
    wait_for(lambda: status_of(match) == Match.Status.DONE, what="the match to be recorded")
    assert LiveMove.objects.filter(match=match).count() > moves_before
    assert_recorded_fairly(match)


def test_a_person_who_lets_the_clock_run_out_forfeits_on_the_beat(workers: Start) -> None:
    workers("w1", beat=True, extra_env={"LIVE_CLOCK_SECONDS": "1"})
    match, (alice, _) = live_match("1923", options={"mode": "set"}, move_seconds=1)
    view = token_client(alice).get(f"/api/matches/{match.pk}/table/").json()
    body = {"action": "LOCK", "version": view["version"], "client_move_id": "a"}
    token_client(alice).post(f"/api/matches/{match.pk}/moves/", body, format="json")
    wait_for(lambda: status_of(match) == Match.Status.DONE, timeout=30, what="bob to time out")
    record = Game.objects.get(match=match).record
    assert record["forfeit"]["seat"] == 1 and record["forfeit"]["cause"] == "timeout"


# A bot that answers well until the second game of a match, then crashes: its validation game passes.
CRASHES_IN_GAME_TWO = b"""
def act(turn):
    if turn.game_number == 1:
        raise SystemExit(3)
    return turn.legal_actions[0]
"""


@needs_sandbox
def test_an_uploaded_bot_plays_its_seat_at_a_live_table_in_the_sandbox_and_forfeits_when_it_crashes(
    workers: Start,
) -> None:
    from tests.e2e.test_sandboxed_bots import FAST_BOTS, upload
    from tests.factories import BotFactory, EntrantFactory, MembershipFactory, PlayerFactory, full_options
    from tournaments.models import BotRun, Competition
    from tournaments.services.competitions import competition_start

    workers("w1", extra_env=FAST_BOTS)
    version = upload(BotFactory(game="banter"), CRASHES_IN_GAME_TWO)
    wait_for(lambda: version.__class__.objects.get(pk=version.pk).status == "ready", what="the upload's validation")
    competition = Competition.objects.create(
        club=MembershipFactory().club,
        created_by=PlayerFactory(),
        name="live with an upload",
        game="banter",
        options=full_options("banter", 2),
        games_per_match=2,
        seed=5,
    )
    alice = PlayerFactory()
    MembershipFactory(club=competition.club, player=alice)
    EntrantFactory(competition=competition, bot_version=None, player=alice, name="Alice")
    EntrantFactory(competition=competition, bot_version=version.__class__.objects.get(pk=version.pk))
    competition_start(competition=competition)
    match = Match.objects.get(competition=competition)
    play_as_people(match, [alice], seed=3)
    wait_for(lambda: status_of(match) == Match.Status.DONE, what="the match to be recorded")
    assert_recorded_fairly(match)
    first, second = (g.record for g in Game.objects.filter(match=match).order_by("number"))
    assert first["forfeit"] is None or first["forfeit"]["cause"] != "crash"
    assert second["forfeit"] is not None and second["forfeit"]["cause"] == "crash"
    assert LiveMove.objects.filter(match=match, client_move_id__startswith="bot/").exists()
    run = BotRun.objects.get(participant__match=match)
    assert run.failure == "crash"
