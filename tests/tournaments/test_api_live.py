"""The live-table API: the table and its ETag, moves and their refusals, the events stream, a person's matches."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from rest_framework.test import APIClient

from league.models import Player
from tests.factories import PlayerFactory
from tests.tournaments.live_support import live_match
from tournaments import live_selectors
from tournaments.live_selectors import forget_snapshots
from tournaments.models import Competition, LiveMove, Match
from tournaments.services import live as live_services

pytestmark = pytest.mark.django_db


def client_of(player: Player | None) -> APIClient:
    client = APIClient()
    if player is not None:
        client.force_authenticate(player.user)
    return client


def table(client: APIClient, match: Match) -> dict[str, Any]:
    response = client.get(f"/api/matches/{match.pk}/table/")
    assert response.status_code == 200, response.content
    return response.json()


def move(client: APIClient, match: Match, action: str, version: int, move_id: str) -> Any:
    body = {"action": action, "version": version, "client_move_id": move_id}
    return client.post(f"/api/matches/{match.pk}/moves/", body, format="json")


def test_a_seated_person_sees_their_own_view_and_a_spectator_the_public_one() -> None:
    match, (alice, _) = live_match("1923", options={"mode": "set"})
    mine = table(client_of(alice), match)
    assert mine["seat"] == 0 and mine["legal_actions"] == ["DRAW", "LOCK"] and mine["observation"]["hand"]
    assert len(mine["commitments"]) == 1 and mine["status"] == "live"
    assert mine["seats"][1]["clock"]["move_ms"] > 0
    public = table(client_of(None), match)
    assert public["seat"] is None and public["legal_actions"] == [] and public["observation"]["hand"] is None


def test_the_table_answers_304_while_nothing_changed() -> None:
    match, (alice, bob) = live_match("1923", options={"mode": "set"})
    client = client_of(alice)
    first = client.get(f"/api/matches/{match.pk}/table/")
    etag = first["ETag"]
    assert client.get(f"/api/matches/{match.pk}/table/", HTTP_IF_NONE_MATCH=etag).status_code == 304
    move(client_of(bob), match, "LOCK", first.json()["version"], "b1")
    changed = client.get(f"/api/matches/{match.pk}/table/", HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200 and changed["ETag"] != etag


def test_moves_are_answered_with_the_new_table_and_refused_with_clear_codes() -> None:
    match, (alice, bob) = live_match("banter")
    leader, follower = (alice, bob) if table(client_of(alice), match)["legal_actions"] else (bob, alice)
    version = table(client_of(leader), match)["version"]

    illegal = move(client_of(leader), match, "PLAY ZZ", version, "x1")
    assert illegal.status_code == 400 and "illegal action 'PLAY ZZ'" in illegal.json()["action"][0]
    out_of_turn = move(client_of(follower), match, "STOP", version, "f1")
    assert out_of_turn.status_code == 409 and "no decision to make" in out_of_turn.json()["detail"]
    stranger = move(client_of(PlayerFactory()), match, "STOP", version, "s1")
    assert stranger.status_code == 403
    anonymous = move(client_of(None), match, "STOP", version, "a1")
    assert anonymous.status_code in (401, 403)
    malformed = client_of(leader).post(f"/api/matches/{match.pk}/moves/", {"action": "STOP"}, format="json")
    assert malformed.status_code == 400 and set(malformed.json()) == {"version", "client_move_id"}
    assert not LiveMove.objects.exists()

    done = move(client_of(leader), match, "STOP", version, "l1")
    assert done.status_code == 200 and done.json()["version"] > version
    again = move(client_of(leader), match, "STOP", version, "l1")
    assert again.status_code == 200 and again["Idempotent-Replayed"] == "true"
    stale = move(client_of(leader), match, "STOP", version, "l2")
    assert stale.status_code == 409
    assert LiveMove.objects.count() == 1
    missing = move(client_of(leader), Match(pk=987654), "STOP", version, "m")
    assert missing.status_code == 404


def test_hidden_live_tables_are_refused_to_spectators_but_not_to_the_players() -> None:
    match, (alice, _) = live_match("1923", options={"mode": "set"}, live_tables_public=False)
    assert client_of(None).get(f"/api/matches/{match.pk}/table/").status_code == 403
    assert client_of(PlayerFactory()).get(f"/api/matches/{match.pk}/table/").status_code == 403
    assert client_of(alice).get(f"/api/matches/{match.pk}/table/").status_code == 200
    Competition.objects.filter(pk=match.competition_id).update(live_tables_public=True)
    assert client_of(None).get(f"/api/matches/{match.pk}/table/").status_code == 200


def test_a_person_lists_their_matches_with_whose_turn_it_is() -> None:
    match, (alice, bob) = live_match("1923", options={"mode": "set"})
    rows = client_of(alice).get("/api/players/me/matches/").json()
    assert [row["id"] for row in rows] == [match.pk]
    assert rows[0]["my_turn"] is True and rows[0]["to_act"] == [0, 1] and rows[0]["play_url"]
    assert [(p["seat"], p["you"]) for p in rows[0]["participants"]] == [(0, True), (1, False)]
    move(client_of(alice), match, "LOCK", rows[0]["version"], "a1")
    assert client_of(alice).get("/api/players/me/matches/").json()[0]["my_turn"] is False
    assert client_of(bob).get("/api/players/me/matches/").json()[0]["my_turn"] is True
    assert client_of(PlayerFactory()).get("/api/players/me/matches/").json() == []
    assert client_of(None).get("/api/players/me/matches/").status_code in (401, 403)


def test_the_events_stream_opens_with_the_viewers_table(settings: Any) -> None:
    settings.LIVE_STREAM_SECONDS = 0
    match, (alice, _) = live_match("1923", options={"mode": "set"})
    client = APIClient()
    client.force_login(alice.user)  # a browser's session: the stream is a plain Django view
    response = client.get(f"/api/matches/{match.pk}/events/")
    assert response.status_code == 200 and response["Content-Type"] == "text/event-stream"
    first = b"".join(response.streaming_content).decode().split("\n\n")[0]
    event, data = first.split("\n", 1)
    assert event == "event: table"
    view = json.loads(data.removeprefix("data: "))
    assert view["seat"] == 0 and view["legal_actions"] == ["DRAW", "LOCK"]


def test_the_events_stream_ends_quietly_when_its_match_is_deleted(settings: Any) -> None:
    settings.LIVE_STREAM_SECONDS = 60
    settings.LIVE_EVENTS_URL = ""  # the embedded default: the stream polls the match's version
    settings.LIVE_POLL_SECONDS = 0.01
    match, (alice, _) = live_match("1923", options={"mode": "set"})
    client = APIClient()
    client.force_login(alice.user)
    # A threaded server's stream (as the live server of the browser tests), which waits for changes.
    response = client.get(f"/api/matches/{match.pk}/events/", **{"wsgi.multithread": True})
    chunks = iter(response.streaming_content)
    assert next(chunks).startswith(b"event: table")
    Match.objects.filter(pk=match.pk).delete()
    # The next read finds no match: the stream ends, rather than raising in the server's thread.
    assert list(chunks) == []


def test_the_events_stream_refuses_spectators_of_hidden_tables() -> None:
    match, _ = live_match("1923", options={"mode": "set"}, live_tables_public=False)
    assert client_of(None).get(f"/api/matches/{match.pk}/events/").status_code == 401
    stranger = APIClient()
    stranger.force_login(PlayerFactory().user)
    assert stranger.get(f"/api/matches/{match.pk}/events/").status_code == 403


def test_a_whole_game_is_played_through_the_api() -> None:
    match, players = live_match("punk", people=3)
    clients = [client_of(p) for p in players]
    rng = random.Random(5)
    for number in range(200):
        match.refresh_from_db()
        if match.status != Match.Status.LIVE:
            break
        for client in clients:
            view = table(client, match)
            if view["legal_actions"]:
                response = move(client, match, rng.choice(view["legal_actions"]), view["version"], f"m{number}")
                assert response.status_code == 200, response.content
    match.refresh_from_db()
    assert match.status == Match.Status.DONE
    final = table(clients[0], match)
    assert final["status"] == "done" and final["finished_games"][0]["result"]["ranks"]


def without_times(view: dict[str, Any]) -> dict[str, Any]:
    """A table without what is counted from the moment it is served (the clocks)."""
    seats = [{key: value for key, value in seat.items() if key != "clock"} for seat in view["seats"]]
    return {**{key: value for key, value in view.items() if key != "server_time"}, "seats": seats}


@pytest.mark.django_db(transaction=True)
def test_a_moves_answer_is_the_table_it_committed_without_reading_it_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each answer is built from the move's own state once committed, and equals the table read afterwards, through
    three games (a game over, the next dealt) to the match's end, whose answer is read as before."""
    forget_snapshots()
    match, players = live_match("punk", people=3, games=3)
    clients = [client_of(p) for p in players]
    reads: list[int] = []
    read = live_selectors.match_and_table
    monkeypatch.setattr(live_selectors, "match_and_table", lambda pk: (reads.append(pk), read(pk))[1])
    rng = random.Random(7)
    answered = 0
    for number in range(600):
        views = [table(client, match) for client in clients]
        if views[0]["status"] != "live":
            break
        seat = next(seat for seat, view in enumerate(views) if view["legal_actions"])
        reads.clear()
        action = rng.choice(views[seat]["legal_actions"])
        answer = move(clients[seat], match, action, views[seat]["version"], f"m{number}")
        assert answer.status_code == 200, answer.content
        if answer.json()["status"] == "live":
            assert reads == [], "a move still being played was answered by reading the table again"
            assert without_times(answer.json()) == without_times(table(clients[seat], match))
            answered += 1
        else:
            assert reads == [match.pk] and answer.json()["finished_games"][2]["result"]["ranks"]
    assert answered > 30 and table(clients[0], match)["status"] == "done"


@pytest.mark.django_db(transaction=True)
def test_a_move_whose_state_could_not_be_kept_is_answered_from_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    forget_snapshots()
    match, (alice, bob) = live_match("1923", options={"mode": "set"})
    version = table(client_of(alice), match)["version"]

    def broken(*_: Any) -> None:
        raise RuntimeError("keeping the snapshot failed")

    monkeypatch.setattr(live_services, "snapshot_remember", broken)
    answer = move(client_of(bob), match, "LOCK", version, "b1")
    assert answer.status_code == 200 and answer.json()["version"] == version + 1
    assert answer.json()["awaiting"] == [0] and LiveMove.objects.filter(match=match).count() == 1


def test_a_persons_match_list_costs_the_same_queries_however_many_matches() -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.factories import MembershipFactory
    from tournaments.models import Entrant

    _, (alice, _) = live_match("1923", options={"mode": "set"})
    client = client_of(alice)

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get("/api/players/me/matches/").status_code == 200
        return len(captured)

    one = queries()
    for _ in range(3):
        other, (bob, _) = live_match("1923", options={"mode": "set"})
        MembershipFactory(club=other.competition.club, player=alice)
        Entrant.objects.filter(competition=other.competition, player=bob).update(player=alice, name="Alice")
    assert queries() == one
    assert len(client.get("/api/players/me/matches/").json()) == 4


@pytest.mark.django_db(transaction=True)
def test_the_events_stream_under_asgi_sends_the_viewers_table_and_each_change(settings: Any) -> None:
    from asgiref.sync import async_to_sync, sync_to_async
    from django.test import AsyncClient

    settings.LIVE_STREAM_SECONDS = 5
    settings.LIVE_EVENTS_URL = ""  # the embedded default: the stream polls the match's version
    settings.LIVE_POLL_SECONDS = 0.05
    match, (alice, bob) = live_match("1923", options={"mode": "set"})

    async def read_two_events() -> list[dict[str, Any]]:
        client = AsyncClient()
        await sync_to_async(client.force_login)(alice.user)
        response = await client.get(f"/api/matches/{match.pk}/events/")
        assert response.status_code == 200
        events: list[dict[str, Any]] = []
        moved = False
        async for chunk in response.streaming_content:
            text = chunk.decode()
            if text.startswith("event: table"):
                events.append(json.loads(text.split("data: ", 1)[1]))
                if not moved:
                    await sync_to_async(move)(client_of(bob), match, "LOCK", events[0]["version"], "b1")
                    moved = True
            if len(events) == 2:
                break
        return events

    first, second = async_to_sync(read_two_events)()
    assert first["seat"] == 0 and first["seats"][1]["acted"] is False
    assert second["version"] > first["version"] and second["seats"][1]["acted"] is True
    assert "LOCK" not in json.dumps(second["observation"])
