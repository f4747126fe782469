"""The live-table drills (docs/drill.md): a real web server, people playing through HTTP, and what they saw.

The server runs as docs/deploy.md runs its nodes: ``uvicorn`` with ``DATABASE_POOL=true`` (the
live-table node) or ``gunicorn`` with sync workers (the web node), on the test's database, broker
and queues, with the shared cache in Redis as production has it. People are HTTP clients with
tokens that do what a careful client does: a move that gets no answer, or an error, is sent again
with the same ``client_move_id`` until it is answered, which the API promises is applied once.
Every request is logged with its time and outcome, so the drills can tell how long the server
took to answer again after an outage, and compare the moves the people made with the stored ones.
"""

from __future__ import annotations

import json
import random
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from django.db import connection
from django.utils import timezone
from rest_framework.authtoken.models import Token

from engine.games import get_game
from engine.record import Record
from league.models import Player
from tests.e2e.nodes import Node
from tournaments.models import Game, LiveMove, Match

#: How long a client waits for an answer before it sends the request again.
CLIENT_TIMEOUT = 5.0


def cache_url(broker: str) -> str:
    """The broker's Redis, next database: production keeps the cache (and the request rates) there."""
    parts = urlsplit(broker)
    number = int(parts.path.strip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{number + 1}"))


class Server(Node):
    """A web node as docs/deploy.md starts it: ``kind`` is uvicorn (the live-table node) or gunicorn (the web node)."""

    def __init__(self, kind: str, *, env: Mapping[str, str], log_path: Path) -> None:
        super().__init__(kind, env=env, log_path=log_path)
        self.kind = kind
        if kind == "uvicorn":
            self.env["DATABASE_POOL"] = "true"

    def command(self) -> list[str]:
        if self.kind == "uvicorn":
            return [
                sys.executable, "-m", "uvicorn", "config.asgi:application", "--workers", "2",
                "--host", "127.0.0.1", "--port", str(self.port), "--log-level", "warning",
            ]  # fmt: skip
        return [
            sys.executable, "-m", "gunicorn", "config.wsgi", "--worker-class", "sync", "--workers", "3",
            "--bind", f"127.0.0.1:{self.port}",
        ]  # fmt: skip


def server_env(worker_env: Mapping[str, str], broker: str) -> dict[str, str]:
    """The workers' database, broker and queues, and the cache in Redis, as every node shares them."""
    return {
        **{name: worker_env[name] for name in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "CELERY_BROKER_URL")},
        **{name: worker_env[name] for name in ("CELERY_GAMES_QUEUE", "CELERY_DEFAULT_QUEUE")},
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "CACHE_URL": cache_url(broker),
    }


@dataclass
class Request:
    """One HTTP request a client sent: when, what, and its outcome (a status, or what went wrong)."""

    sent: datetime
    answered: datetime
    method: str
    path: str
    status: int | None
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


@dataclass
class Move:
    """A move a person made and the server accepted: where, and under which client id."""

    game_number: int
    seat: int
    action: str
    client_move_id: str
    #: Answers it took: more than one when the first went unanswered or failed.
    sends: int
    replayed: bool
    #: When the server's 200 came.
    answered: datetime


@dataclass
class Person:
    """A person at a live table, playing through the HTTP API with a token."""

    name: str
    token: str
    server: Server
    requests: list[Request] = field(default_factory=list)
    moves: list[Move] = field(default_factory=list)

    @classmethod
    def of(cls, player: Player, server: Server) -> Person:
        return cls(player.display_name, Token.objects.get_or_create(user=player.user)[0].key, server)

    def call(self, path: str, body: dict[str, Any] | None = None) -> tuple[int | None, Any, dict[str, str]]:
        request = urllib.request.Request(
            f"{self.server.url}{path}",
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"Token {self.token}", "Content-Type": "application/json"},
            method="GET" if body is None else "POST",
        )
        sent = timezone.now()
        status: int | None = None
        data: Any = None
        headers: dict[str, str] = {}
        error = ""
        try:
            with urllib.request.urlopen(request, timeout=CLIENT_TIMEOUT) as response:
                status, headers = response.status, dict(response.headers)
                data = json.loads(response.read())
        except urllib.error.HTTPError as exc:
            status, headers = exc.code, dict(exc.headers)
            raw = exc.read()
            try:
                data = json.loads(raw or b"null")
            except ValueError:
                data = raw[:200].decode(errors="replace")  # Django's own HTML error page
        except (OSError, urllib.error.URLError) as exc:
            error = type(exc).__name__
        self.requests.append(Request(sent, timezone.now(), request.method, path, status, error))
        return status, data, headers

    def table(self, match_id: int) -> dict[str, Any]:
        """The table, asked again until the server answers it."""
        while True:
            status, data, _ = self.call(f"/api/matches/{match_id}/table/")
            if status == 200:
                return dict(data)
            time.sleep(0.1)

    def move(self, match_id: int, table: dict[str, Any], action: str, client_move_id: str) -> None:
        """Send the move until it is answered 200: the same body each time, as the API's retries want."""
        body = {"action": action, "version": table["version"], "client_move_id": client_move_id}
        sends = 0
        while True:
            sends += 1
            status, data, headers = self.call(f"/api/matches/{match_id}/moves/", body)
            if status == 200:
                replayed = headers.get("Idempotent-Replayed") == "true"
                seat, number = table["seat"], table["game_number"]
                self.moves.append(Move(number, seat, action, client_move_id, sends, replayed, timezone.now()))
                return
            # A refusal (400, 403, 409) says the move can never be taken: a drill must never see one.
            assert status is None or status >= 500 or status == 429, (status, data, body)
            time.sleep(0.1)


def next_turn(match_id: int, people: list[Person]) -> tuple[Person, dict[str, Any]] | None:
    """Whose turn it is among the people, with their table; None once the match is over.

    Waits while the table waits on a bot, which a worker decides.
    """
    while True:
        for person in people:
            table = person.table(match_id)
            if table["status"] != "live":
                return None
            if table["legal_actions"]:
                return person, table
        time.sleep(0.02)


def play(
    match_id: int,
    people: list[Person],
    *,
    rng: random.Random,
    go_on: Callable[[int], bool] = lambda made: True,
    pause: float = 0.0,
) -> int:
    """The people move at random whenever the table waits on them, while ``go_on(moves made)``; the moves made.

    Until the match is over, by default. ``pause``: seconds to think after each move, so that a phase
    of the drill that lasts as long as a service takes to come back does not play the match out.
    """
    made = 0
    while go_on(made):
        turn = next_turn(match_id, people)
        if turn is None:
            break
        person, table = turn
        person.move(match_id, table, rng.choice(table["legal_actions"]), f"{person.name}/{len(person.moves)}")
        made += 1
        time.sleep(pause)
    return made


def assert_moves_stored_once(match: Match, people: list[Person]) -> None:
    """Every move the people had accepted is stored once, none that they did not make, and the recorded games
    are made of exactly the stored decisions (the people's and the bot's), step by step."""
    stored = {
        row.client_move_id: (row.game_number, row.seat, row.action)
        for row in LiveMove.objects.filter(match=match).exclude(client_move_id__startswith="bot/")
    }
    made = {m.client_move_id: (m.game_number, m.seat, m.action) for person in people for m in person.moves}
    assert len(made) == sum(len(person.moves) for person in people), "a client id was used twice"
    assert stored == made
    for game in Game.objects.filter(match=match).order_by("number"):
        record = Record.from_dict(game.record)
        decided = record_decisions(record)
        rows = list(
            LiveMove.objects.filter(match=match, game_number=game.number)
            .order_by("step", "seat")
            .values_list("step", "seat", "action")
        )
        if record.forfeit is not None:
            # A simultaneous step cut short by the forfeit keeps its stored choices, never applied.
            rows = [row for row in rows if row[0] < len(record.actions)]
        assert rows == decided, f"game {game.number}: the stored moves are not the record's"


def record_decisions(record: Record) -> list[tuple[int, int, str]]:
    """(step, seat, action) of every decision in a record, the engine's own seats left out, in step and seat order."""
    game = get_game(record.game)
    options = game.parse_options(record.options, record.players)
    deal = None if record.deal is None else game.parse_deal(record.deal, options, record.players)
    state = game.new_state(options, record.players, record.seed, deal)
    engine = game.auto_seats(options, record.players)
    decided = []
    for step, actions in enumerate(record.actions):
        seats = game.to_act(state)
        decided += [(step, seat, action) for seat, action in zip(seats, actions, strict=True) if seat not in engine]
        game.apply(state, dict(zip(seats, actions, strict=True)))
    return sorted(decided)


def seconds(value: float | None) -> str:
    return "never" if value is None else f"{value:.2f}"


def first_ok_after(
    people: list[Person], moment: datetime, *, sent_after: datetime, method: str | None = None
) -> float | None:
    """Seconds from ``moment`` (a service's return) to the first 2xx answered after it, of the requests sent
    after ``sent_after`` (its going): a request that hung through the outage and then succeeded counts."""
    answered = [
        request.answered
        for person in people
        for request in person.requests
        if request.sent >= sent_after
        and request.answered >= moment
        and request.ok
        and (method is None or request.method == method)
    ]
    return None if not answered else (min(answered) - moment).total_seconds()


def moves_answered_between(people: list[Person], start: datetime, end: datetime) -> int:
    return sum(1 for person in people for move in person.moves if start <= move.answered <= end)


def failures_between(people: list[Person], start: datetime, end: datetime) -> dict[str, int]:
    """What the requests sent in a window got, when not a 2xx: by status, or by the client's error."""
    counts: dict[str, int] = {}
    for person in people:
        for request in person.requests:
            if start <= request.sent <= end and not request.ok:
                key = str(request.status) if request.status is not None else request.error
                counts[key] = counts.get(key, 0) + 1
    return counts


def reconnect() -> None:
    """The test process's own connection after an outage: dropped, so the next query opens a new one."""
    connection.close()
