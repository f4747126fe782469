"""The ASGI application's sync lane (config/sync_lane.py): live tables' reads and moves served whole on a shared
thread, and their events streams opened there, through the same middleware and views as under the test client,
with the same answers."""

from __future__ import annotations

import asyncio
import gc
import json
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.core import signals
from django.test import Client
from django.urls import resolve, reverse
from rest_framework.authtoken.models import Token

from config.asgi import application
from config.sync_lane import SYNC_PATHS, URLCONF
from tests.tournaments.live_support import live_match

pytestmark = pytest.mark.django_db(transaction=True)


class Answer:
    def __init__(self, messages: list[dict[str, Any]]) -> None:
        start = messages[0]
        self.status: int = start["status"]
        self.headers = {name.decode().lower(): value.decode() for name, value in start["headers"]}
        self.body = b"".join(message.get("body", b"") for message in messages[1:])

    def json(self) -> Any:
        return json.loads(self.body)


def scope_of(method: str, path: str, body: bytes, headers: dict[str, str] | None) -> dict[str, Any]:
    raw = [(name.lower().encode(), value.encode()) for name, value in (headers or {}).items()]
    if body:
        raw += [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(b"host", b"testserver"), *raw],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }


def asgi(method: str, path: str, *, body: bytes = b"", headers: dict[str, str] | None = None) -> Answer:
    """One request to config.asgi.application, as uvicorn would make it."""
    scope = scope_of(method, path, body, headers)
    sent: list[dict[str, Any]] = []
    requests = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive() -> dict[str, Any]:
        return requests.pop(0) if requests else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async_to_sync(application)(scope, receive, send)
    return Answer(sent)


def timeless(table: dict[str, Any]) -> dict[str, Any]:
    """A table without what moves on between two reads of it: the server's time and the clocks."""
    seats = [{**seat, "clock": None} for seat in table["seats"]]
    return {**table, "server_time": None, "seats": seats}


def token_of(player: Any) -> dict[str, str]:
    return {"Authorization": f"Token {Token.objects.create(user=player.user).key}"}


def test_the_lane_takes_the_table_the_moves_and_the_events_and_nothing_else() -> None:
    assert SYNC_PATHS.search(reverse("match-table", args=[12]))
    assert SYNC_PATHS.search(reverse("match-moves", args=[12]))
    assert SYNC_PATHS.search(reverse("match-events", args=[12]))
    assert SYNC_PATHS.search("/prefix" + reverse("match-moves", args=[12]))
    assert not SYNC_PATHS.search("/api/matches/12/moves/extra")
    assert not SYNC_PATHS.search(reverse("player-me-matches"))
    assert not SYNC_PATHS.search(reverse("match-detail", args=[12]))


def test_the_lanes_url_conf_finds_the_same_views_and_reverses_every_name_as_the_site_does() -> None:
    for name in ("match-table", "match-moves"):
        path = reverse(name, args=[5])
        assert resolve(path, urlconf=URLCONF).func.cls is resolve(path).func.cls  # type: ignore[attr-defined]
    events = reverse("match-events", args=[5])
    assert resolve(events, urlconf=URLCONF).func is resolve(events).func
    for name, args in [("api-root", []), ("match-events", [5]), ("player-me-matches", []), ("match-table", [5])]:
        assert reverse(name, args=args, urlconf=URLCONF) == reverse(name, args=args)


def test_a_table_read_on_the_lane_is_the_test_clients_with_its_etag_and_headers() -> None:
    match, (alice, _) = live_match("1923", options={"mode": "set"})
    auth = token_of(alice)
    path = f"/api/matches/{match.pk}/table/"
    answer = asgi("GET", path, headers=auth)
    assert answer.status == 200, answer.body
    expected = Client().get(path, headers=auth)
    assert timeless(answer.json()) == timeless(expected.json())
    assert answer.json()["seat"] == 0 and answer.json()["legal_actions"]
    assert answer.headers["etag"] == expected["ETag"]
    assert answer.headers["content-type"] == "application/json"
    # The middleware ran: the security and frame headers every answer carries.
    assert answer.headers["x-frame-options"] == "DENY"
    assert answer.headers["x-content-type-options"] == "nosniff"
    unchanged = asgi("GET", path, headers={**auth, "If-None-Match": answer.headers["etag"]})
    assert unchanged.status == 304 and unchanged.body == b""


def test_moves_on_the_lane_are_taken_once_and_refused_as_the_api_refuses_them() -> None:
    match, (alice, bob) = live_match("1923", options={"mode": "set"})
    path = f"/api/matches/{match.pk}/moves/"
    alice_auth, bob_auth = token_of(alice), token_of(bob)
    version = asgi("GET", f"/api/matches/{match.pk}/table/", headers=alice_auth).json()["version"]

    def post(auth: dict[str, str], body: dict[str, Any]) -> Answer:
        return asgi("POST", path, body=json.dumps(body).encode(), headers=auth)

    moved = post(alice_auth, {"action": "LOCK", "version": version, "client_move_id": "a1"})
    assert moved.status == 200, moved.body
    assert moved.json()["version"] > version and moved.json()["seats"][0]["acted"] is True
    replayed = post(alice_auth, {"action": "LOCK", "version": version, "client_move_id": "a1"})
    assert replayed.status == 200 and replayed.headers["idempotent-replayed"] == "true"
    stale = post(bob_auth, {"action": "LOCK", "version": version - 1, "client_move_id": "b1"})
    assert stale.status == 409 and "stale version" in stale.json()["detail"]
    bad = post(bob_auth, {"action": "LOCK", "version": "soon", "client_move_id": "b2"})
    assert bad.status == 400 and bad.json() == {"version": ["A valid integer is required."]}
    nobody = post({}, {"action": "LOCK", "version": version, "client_move_id": "c1"})
    assert nobody.status == 401 and nobody.headers["www-authenticate"] == "Token"
    assert nobody.json() == {"detail": "Authentication credentials were not provided."}


def test_a_session_post_on_the_lane_still_needs_its_csrf_token() -> None:
    match, (alice, _) = live_match("1923", options={"mode": "set"})
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(alice.user)
    cookie = f"sessionid={browser.cookies['sessionid'].value}"
    body = json.dumps({"action": "LOCK", "version": 0, "client_move_id": "a1"}).encode()
    refused = asgi("POST", f"/api/matches/{match.pk}/moves/", body=body, headers={"Cookie": cookie})
    assert refused.status == 403 and refused.json()["detail"].startswith("CSRF Failed")
    seen = asgi("GET", f"/api/matches/{match.pk}/table/", headers={"Cookie": cookie})
    assert seen.status == 200 and seen.json()["seat"] == 0


def test_each_request_on_the_lane_ends_as_any_request_ends() -> None:
    """request_finished is what hands the request's database connection back (to the pool, DATABASE_POOL)."""
    match, (alice, _) = live_match("1923", options={"mode": "set"})
    ended: list[object] = []

    def finished(sender: object, **kwargs: Any) -> None:
        ended.append(sender)

    signals.request_finished.connect(finished)
    try:
        assert asgi("GET", f"/api/matches/{match.pk}/table/", headers=token_of(alice)).status == 200
        assert asgi("GET", f"/api/matches/{match.pk + 1000}/table/").status == 404
    finally:
        signals.request_finished.disconnect(finished)
    assert len(ended) == 2


def test_a_move_on_the_lane_leaves_nothing_for_the_garbage_collector() -> None:
    """Its request, DRF's view and Request, the serializer and the caller's rows are freed as it ends."""
    match, (alice, _) = live_match("1923", options={"mode": "set"})
    auth = token_of(alice)
    version = asgi("GET", f"/api/matches/{match.pk}/table/", headers=auth).json()["version"]
    body = json.dumps({"action": "LOCK", "version": version, "client_move_id": "a1"}).encode()
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        moved = asgi("POST", f"/api/matches/{match.pk}/moves/", body=body, headers=auth)
        gc.collect()
        left = {type(garbage).__name__ for garbage in gc.garbage}
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert moved.status == 200, moved.body
    request_parts = {"ASGIRequest", "Request", "MatchMoveView", "MoveSerializer", "Response", "User", "Player", "Token"}
    assert not left & request_parts


def stream(path: str, headers: dict[str, str], *, events: int) -> tuple[Answer, int]:
    """An events stream on the ASGI application, the client going once ``events`` tables came; with the number
    of requests ended (request_finished) by the time it went."""
    scope = scope_of("GET", path, b"", {**headers, "Accept": "text/event-stream"})
    sent: list[dict[str, Any]] = []
    ended: list[object] = []

    def finished(sender: object, **kwargs: Any) -> None:
        ended.append(sender)

    async def run() -> int:
        enough = asyncio.Event()
        requests = [{"type": "http.request", "body": b"", "more_body": False}]

        async def receive() -> dict[str, Any]:
            if requests:
                return requests.pop(0)
            await enough.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)
            tables = sum(part.get("body", b"").count(b"event: table") for part in sent[1:])
            if tables >= events or not message.get("more_body", True):
                enough.set()

        async def went() -> int:
            await enough.wait()
            return len(ended)

        gone, _ = await asyncio.wait_for(asyncio.gather(went(), application(scope, receive, send)), 10)
        return gone

    signals.request_finished.connect(finished)
    try:
        gone = async_to_sync(run)()
    finally:
        signals.request_finished.disconnect(finished)
    return Answer(sent), gone


def first_table(answer: Answer) -> dict[str, Any]:
    table: dict[str, Any] = json.loads(answer.body.decode().split("data: ", 1)[1].split("\n", 1)[0])
    return table


def test_an_events_stream_opens_on_the_lane_and_ends_when_the_client_goes(settings: Any) -> None:
    settings.LIVE_EVENTS_URL = ""  # the embedded default: the stream polls the match's version
    settings.LIVE_POLL_SECONDS = 0.05
    match, (alice, _) = live_match("1923", options={"mode": "set"})
    answer, ended = stream(f"/api/matches/{match.pk}/events/", token_of(alice), events=1)
    assert answer.status == 200
    assert answer.headers["content-type"] == "text/event-stream"
    assert answer.headers["cache-control"] == "no-cache"
    assert answer.headers["x-content-type-options"] == "nosniff"  # the middleware ran
    assert answer.body.startswith(b"event: table\n")
    assert first_table(answer)["seat"] == 0 and first_table(answer)["match"] == match.pk
    # Its request ended as it opened: its connection was back in the pool while the page watched.
    assert ended == 1
    # A browser's page: the session's cookie, as the web table's EventSource sends it.
    browser = Client()
    browser.force_login(alice.user)
    page, _ = stream(
        f"/api/matches/{match.pk}/events/", {"Cookie": f"sessionid={browser.cookies['sessionid'].value}"}, events=1
    )
    assert page.status == 200 and first_table(page)["seat"] == 0


def test_an_events_stream_the_lane_refuses_is_answered_as_the_api_answers() -> None:
    match, _ = live_match("1923", options={"mode": "set"})
    missing, _ = stream(f"/api/matches/{match.pk + 1000}/events/", {}, events=1)
    assert missing.status == 404 and missing.json() == {"detail": f"match {match.pk + 1000} does not exist"}
    stranger, _ = stream(f"/api/matches/{match.pk}/events/", {"Authorization": "Token nonsense"}, events=1)
    assert stranger.status == 401 and stranger.json() == {"detail": "Invalid token."}
