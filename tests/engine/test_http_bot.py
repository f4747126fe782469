"""HTTP bots (engine/http_bot.py) against real servers on 127.0.0.1.

Every server here is a thread in this process, bound to port 0 on loopback, so
the bots need ``allow_private=True`` except where refusing loopback is the
point. Public-looking addresses only ever reach a fake resolver, and the one
test that "connects" to one has the connection redirected to loopback.
"""

from __future__ import annotations

import json
import random
import shutil
import socket
import ssl
import subprocess
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from engine import http_bot, netguard
from engine.agents import AgentFailure
from engine.bots import make_bot
from engine.clock import TimeControl
from engine.http_bot import HTTP_TIME_CONTROL, HttpBot
from engine.netguard import BadBotUrl, IPAddress
from engine.protocol import MAX_REPLY_BYTES
from engine.record import Record
from engine.remote import SeatedBot
from engine.runner import play_game
from engine.verify import verify

PUBLIC_V4 = "93.184.215.14"


@dataclass
class Reply:
    """What the test server answers to one message."""

    body: bytes | dict[str, Any] = field(default_factory=dict)
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    #: Close the connection after this answer, saying so (Connection: close) or not.
    close: bool = False
    announce_close: bool = True


#: Either a Reply, or a function that writes the raw response itself.
Answer = Callable[[dict[str, Any]], "Reply | Callable[[BaseHTTPRequestHandler], None]"]


class BotServer:
    """An HTTP bot's server on 127.0.0.1: records what it was sent and how many connections it accepted."""

    def __init__(self, answer: Answer, *, tls: ssl.SSLContext | None = None) -> None:
        self.answer = answer
        self.messages: list[dict[str, Any]] = []
        self.request_headers: list[dict[str, str]] = []
        self.connections = 0
        self.server_names: list[str | None] = []
        self.stop = threading.Event()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                owner.connections += 1
                super().setup()

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                message = json.loads(body)
                owner.messages.append(message)
                owner.request_headers.append({key.lower(): value for key, value in self.headers.items()})
                reply = owner.answer(message)
                if callable(reply):
                    reply(self)
                    self.close_connection = True
                    return
                time.sleep(reply.delay)
                data = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
                self.send_response(reply.status)
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                if reply.close and reply.announce_close:
                    self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(data)
                self.close_connection = reply.close

            def log_message(self, format: str, *args: Any) -> None:
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                # The referee hanging up on a slow or chatty server is expected here.
                pass

        self.server = Server(("127.0.0.1", 0), Handler)
        if tls is not None:

            def remember_name(sock: ssl.SSLObject | ssl.SSLSocket, name: str | None, context: ssl.SSLContext) -> None:
                self.server_names.append(name)

            tls.sni_callback = remember_name
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/bot"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()

    def types(self) -> list[str]:
        return [message["type"] for message in self.messages]


@pytest.fixture
def serve() -> Iterator[Callable[..., BotServer]]:
    servers: list[BotServer] = []

    def start(answer: Answer, **kwargs: Any) -> BotServer:
        server = BotServer(answer, **kwargs)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


def player(seed: int = 7, **act: Any) -> Answer:
    """A well-behaved bot: ready at start, a random legal action on each act (``act`` replaces the Reply's fields)."""
    rng = random.Random(seed)

    def answer(message: dict[str, Any]) -> Reply:
        if message["type"] == "start":
            return Reply({"ready": True})
        if message["type"] == "act":
            return Reply({"action": rng.choice(message["legal_actions"])}, **act)
        return Reply({})

    return answer


def failing_at(act: int, failure: Reply | Callable[[BaseHTTPRequestHandler], None]) -> Answer:
    """Plays well, but answers its ``act``-th "act" message (counting from 0) with ``failure``."""
    good = player()
    acts = 0

    def answer(message: dict[str, Any]) -> Reply | Callable[[BaseHTTPRequestHandler], None]:
        nonlocal acts
        if message["type"] == "act":
            acts += 1
            if acts - 1 == act:
                return failure
        return good(message)

    return answer


def http_bot_for(url: str, game: str = "banter", **kwargs: Any) -> HttpBot:
    kwargs.setdefault("allow_private", True)
    return HttpBot(url=url, game=game, players=2, options={}, **kwargs)


def play_against_random(bot: HttpBot, game: str = "banter", seed: int = 11, game_number: int = 0) -> Record:
    opponent = make_bot("random", game=game, seat=1, players=2, options={}, seed=seed)
    return play_game(game, agents=[bot.seated(0, game_number), opponent], seed=seed)


_seats: weakref.WeakKeyDictionary[HttpBot, SeatedBot] = weakref.WeakKeyDictionary()


def act_once(bot: HttpBot) -> str:
    """The bot's next decision at seat 0 of game 0."""
    seat = _seats.setdefault(bot, bot.seated(0, 0))
    return seat.act({"hand": ["7H"]}, ["PLAY 7H", "STOP"])


def failure_of(bot: HttpBot) -> AgentFailure:
    with pytest.raises(AgentFailure) as caught:
        act_once(bot)
    return caught.value


# A whole match.


@pytest.mark.parametrize("game", ["banter", "1923"])
def test_a_good_http_bot_plays_a_whole_game_on_one_kept_alive_connection(
    serve: Callable[..., BotServer], game: str
) -> None:
    server = serve(player())
    with http_bot_for(server.url, game) as bot:
        began = time.monotonic()
        record = play_against_random(bot, game)
        elapsed = time.monotonic() - began
        decisions = server.types().count("act")
    assert record.forfeit is None and record.result is not None
    assert verify(Record.from_json(record.to_json())).ok
    assert decisions > 20
    assert server.types() == ["start"] + ["act"] * decisions + ["end"]
    assert server.connections == 1
    assert bot.connections == 1 and bot.log == ""
    if hasattr(socket, "TCP_QUICKACK"):
        # The test server writes headers and body separately: without quick ACKs each move would wait ~40 ms.
        assert elapsed < 0.01 * decisions + 0.5


def test_the_connection_lasts_the_whole_match_across_games(serve: Callable[..., BotServer]) -> None:
    server = serve(player())
    with http_bot_for(server.url) as bot:
        for number in range(3):
            assert play_against_random(bot, seed=20 + number, game_number=number).forfeit is None
    assert server.connections == 1
    assert {message["game_number"] for message in server.messages if message["type"] == "act"} == {0, 1, 2}


def test_each_message_is_a_json_post_with_the_urls_own_host_header(serve: Callable[..., BotServer]) -> None:
    server = serve(player())
    with http_bot_for(server.url) as bot:
        act_once(bot)
    headers = server.request_headers[0]
    assert headers["content-type"] == "application/json"
    assert headers["host"] == f"127.0.0.1:{server.port}"
    start, act = server.messages[:2]
    assert start["type"] == "start" and start["game"] == "banter" and start["time"]["move_ms"] == 500
    assert act["legal_actions"] == ["PLAY 7H", "STOP"] and act["decision"] == 0


def test_the_default_time_control_is_500_ms_a_move_with_no_bank() -> None:
    assert (HTTP_TIME_CONTROL.move_ms, HTTP_TIME_CONTROL.bank_ms) == (500, 0)
    bot = HttpBot(url="https://bot.example/", game="banter", players=2, options={})
    assert bot.clock.control == HTTP_TIME_CONTROL


def test_a_server_that_closes_after_every_answer_gets_a_new_connection_each_time(
    serve: Callable[..., BotServer],
) -> None:
    server = serve(player(close=True))
    with http_bot_for(server.url) as bot:
        record = play_against_random(bot)
    assert record.forfeit is None
    # start and end kept theirs open; every act was answered with Connection: close.
    assert server.connections == server.types().count("act") + 1


def test_a_connection_the_server_dropped_silently_between_moves_is_replaced(serve: Callable[..., BotServer]) -> None:
    server = serve(failing_at(3, Reply({"action": "STOP"}, close=True, announce_close=False)))
    with http_bot_for(server.url) as bot:
        for _ in range(6):
            act_once(bot)
    assert bot.failure is None
    assert server.connections == 2 and bot.connections == 2


# Timeouts.


def test_a_bot_slower_than_500_ms_forfeits_on_time_in_the_record(serve: Callable[..., BotServer]) -> None:
    server = serve(failing_at(4, Reply({"action": "STOP"}, delay=0.6)))
    with http_bot_for(server.url) as bot:
        began = time.monotonic()
        record = play_against_random(bot)
        elapsed = time.monotonic() - began
    assert record.forfeit is not None
    assert (record.forfeit.seat, record.forfeit.cause) == (0, "timeout")
    assert record.forfeit.move == len(record.actions)
    assert "500 ms" in record.forfeit.detail
    assert record.result is not None and record.result["ranks"] == [2, 1]
    assert verify(Record.from_json(record.to_json())).ok
    assert elapsed < 1.0
    # A bot out on time is not asked again, not even to say goodbye.
    assert server.types().count("end") == 0


def drip(handler: BaseHTTPRequestHandler) -> None:
    """Headers promising a body, then one byte of it every 20 ms: each read is quick, the answer never is."""
    handler.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
    try:
        for _ in range(1000):
            handler.wfile.write(b" ")
            handler.wfile.flush()
            time.sleep(0.02)
    except OSError:
        pass


def test_a_server_that_drips_its_answer_times_out_at_the_move_limit(serve: Callable[..., BotServer]) -> None:
    server = serve(failing_at(0, drip))
    with http_bot_for(server.url) as bot:
        bot.start()
        began = time.monotonic()
        failure = failure_of(bot)
        elapsed = time.monotonic() - began
    assert failure.cause == "timeout"
    assert 0.45 <= elapsed < 0.7
    assert "timeout" in bot.log


def test_a_start_up_that_drips_is_an_init_failure_within_the_start_allowance(serve: Callable[..., BotServer]) -> None:
    server = serve(lambda message: drip)
    control = TimeControl(move_ms=200, bank_ms=0, start_ms=300)
    with http_bot_for(server.url, time_control=control) as bot:
        began = time.monotonic()
        bot.start()
        elapsed = time.monotonic() - began
    assert bot.failure is not None and bot.failure.cause == "init_failure"
    assert bot.failure.detail.startswith("timeout: ")
    assert 0.25 <= elapsed < 0.5


# Answers that are not answers.


@pytest.mark.parametrize(
    ("reply", "detail"),
    [
        (Reply(b"PLAY 7H"), "reply is not JSON"),
        (Reply(b"[1, 2]"), "not a JSON object"),
        (Reply({"move": "PLAY 7H"}), 'no "action" string'),
        (Reply(b""), "reply is not JSON"),
        (Reply(status=204), "reply is not JSON"),
    ],
)
def test_a_body_that_is_not_an_action_is_bad_output(serve: Callable[..., BotServer], reply: Reply, detail: str) -> None:
    server = serve(failing_at(0, reply))
    with http_bot_for(server.url) as bot:
        failure = failure_of(bot)
    assert failure.cause == "bad_output"
    assert detail in failure.detail
    assert "bad_output" in bot.log


def test_an_illegal_action_over_http_is_the_referees_call(serve: Callable[..., BotServer]) -> None:
    server = serve(failing_at(2, Reply({"action": "PLAY ZZ"})))
    with http_bot_for(server.url) as bot:
        record = play_against_random(bot)
    assert record.forfeit is not None and record.forfeit.cause == "illegal_action"


def raw(data: bytes) -> Callable[[BaseHTTPRequestHandler], None]:
    def write(handler: BaseHTTPRequestHandler) -> None:
        handler.wfile.write(data)

    return write


def test_an_answer_that_is_not_http_is_bad_output(serve: Callable[..., BotServer]) -> None:
    server = serve(failing_at(0, raw(b'{"action": "STOP"}\n')))
    with http_bot_for(server.url) as bot:
        failure = failure_of(bot)
    assert failure.cause == "bad_output" and "not an HTTP response" in failure.detail


_STOP = b'{"action": "STOP"}'


@pytest.mark.parametrize(
    "head",
    [
        "HTTP/1.1 200 OK\r\nContent-Length: \u00b2\r\n\r\n".encode("latin-1"),
        "HTTP/1.1 500 Oops\r\nContent-Length: \u00b9\r\n\r\n".encode("latin-1"),
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\xb2\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\n",
    ],
)
def test_a_length_in_digits_that_are_not_ascii_is_the_bot_s_failure_not_a_worker_error(
    serve: Callable[..., BotServer], head: bytes
) -> None:
    server = serve(failing_at(0, raw(head + b"xx")))
    with http_bot_for(server.url) as bot:
        failure = failure_of(bot)
    # An error status is a crash whatever its body; a 200 with a broken frame is bad output.
    assert failure.cause == ("crash" if b" 500 " in head else "bad_output")


@pytest.mark.parametrize(
    "response",
    [
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n"
        + _STOP[:5]
        + b"\r\n%x;ext=1\r\n" % (len(_STOP) - 5)
        + _STOP[5:]
        + b"\r\n0\r\nX-Trailer: 1\r\n\r\n",
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(_STOP) + _STOP,
        b"HTTP/1.1 200 OK\nContent-Length: %d\n\n" % len(_STOP) + _STOP,
    ],
    ids=["chunked", "after-100-continue", "bare-newlines"],
)
def test_an_answer_framed_any_way_http_allows_is_read(serve: Callable[..., BotServer], response: bytes) -> None:
    server = serve(failing_at(0, raw(response)))
    with http_bot_for(server.url) as bot:
        assert act_once(bot) == "STOP"


def test_an_answer_delimited_by_closing_the_connection_is_read(serve: Callable[..., BotServer]) -> None:
    server = serve(failing_at(0, raw(b'HTTP/1.0 200 OK\r\n\r\n{"action": "STOP"}')))
    with http_bot_for(server.url) as bot:
        assert act_once(bot) == "STOP"
        assert act_once(bot) in ("PLAY 7H", "STOP")
    assert server.connections == 2


@pytest.mark.parametrize(
    "response",
    [
        # Refused from its Content-Length alone.
        b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % (MAX_REPLY_BYTES + 1),
        # Without a length, read only as far as the cap.
        b"HTTP/1.0 200 OK\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
    ],
)
def test_an_answer_over_the_size_cap_is_bad_output_without_reading_on(
    serve: Callable[..., BotServer], response: bytes
) -> None:
    chunked = b"chunked" in response

    def endless(handler: BaseHTTPRequestHandler) -> None:
        handler.wfile.write(response)
        piece = b" " * 4096
        try:
            for _ in range(10_000):
                handler.wfile.write(b"1000\r\n" + piece + b"\r\n" if chunked else piece)
        except OSError:
            pass

    server = serve(failing_at(0, endless))
    with http_bot_for(server.url) as bot:
        began = time.monotonic()
        failure = failure_of(bot)
        elapsed = time.monotonic() - began
    assert failure.cause == "bad_output"
    assert f"more than {MAX_REPLY_BYTES} bytes" in failure.detail
    assert elapsed < 0.4


# Failing servers.


def test_an_http_error_is_a_crash_and_the_owner_sees_the_start_of_the_page(serve: Callable[..., BotServer]) -> None:
    page = b"Traceback (most recent call last): KeyError 'hand'\n" + b"x" * 20_000
    server = serve(failing_at(1, Reply(page, status=500)))
    with http_bot_for(server.url) as bot:
        act_once(bot)
        failure = failure_of(bot)
    assert (failure.cause, failure.detail) == ("crash", "HTTP 500")
    assert "act (game 0, seat 0, decision 1): crash: HTTP 500 Internal Server Error" in bot.log
    assert "KeyError 'hand'" in bot.log
    assert len(bot.log) < 700


def test_a_bot_out_after_a_crash_is_not_asked_again(serve: Callable[..., BotServer]) -> None:
    server = serve(failing_at(0, Reply(b"down", status=503)))
    with http_bot_for(server.url) as bot:
        assert failure_of(bot).detail == "HTTP 503"
        again = failure_of(bot)
    assert again.cause == "crash" and "out since an earlier failure" in again.detail
    assert server.types() == ["start", "act"]


def test_a_start_answered_with_an_error_status_is_an_init_failure(serve: Callable[..., BotServer]) -> None:
    server = serve(lambda message: Reply(b"Service Unavailable", status=503))
    with http_bot_for(server.url) as bot:
        bot.start()
    assert bot.failure is not None
    assert (bot.failure.cause, bot.failure.detail) == ("init_failure", "crash: HTTP 503")


def test_a_redirect_is_not_followed(serve: Callable[..., BotServer]) -> None:
    elsewhere = serve(player())
    server = serve(lambda message: Reply(status=307, headers={"Location": elsewhere.url}))
    with http_bot_for(server.url) as bot:
        bot.start()
    assert bot.failure is not None
    assert (bot.failure.cause, bot.failure.detail) == ("init_failure", "crash: HTTP 307 redirect, not followed")
    assert elsewhere.url in bot.log
    assert elsewhere.connections == 0


def test_a_redirect_during_the_match_is_a_crash(serve: Callable[..., BotServer]) -> None:
    server = serve(failing_at(0, Reply(status=302, headers={"Location": "http://10.0.0.1/"})))
    with http_bot_for(server.url) as bot:
        failure = failure_of(bot)
    assert (failure.cause, failure.detail) == ("crash", "HTTP 302 redirect, not followed")


def unused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_a_refused_connection_at_start_is_an_init_failure() -> None:
    with http_bot_for(f"http://127.0.0.1:{unused_port()}/") as bot:
        bot.start()
    assert bot.failure is not None and bot.failure.cause == "init_failure"
    assert "crash: cannot connect: 127.0.0.1 port" in bot.failure.detail
    assert "refused" in bot.failure.detail.lower()
    assert "refused" in bot.log.lower()


def test_a_server_that_vanishes_mid_match_is_a_crash(serve: Callable[..., BotServer]) -> None:
    good = player()
    server = serve(lambda message: raw(b"") if message["type"] == "act" else good(message))
    with http_bot_for(server.url) as bot:
        failure = failure_of(bot)
    assert failure.cause == "crash" and "closed the connection" in failure.detail


def test_a_request_lost_on_a_kept_alive_connection_is_sent_once_more_on_a_new_one(
    serve: Callable[..., BotServer],
) -> None:
    # The server closing an idle connection just as we reuse it looks like this.
    # The bot sees the decision twice, with the same decision number.
    server = serve(failing_at(1, raw(b"")))
    with http_bot_for(server.url) as bot:
        act_once(bot)
        act_once(bot)
    assert bot.failure is None
    assert [message["decision"] for message in server.messages if message["type"] == "act"] == [0, 1, 1]
    assert server.connections == 2


def test_a_name_that_does_not_resolve_is_an_init_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_such_name(*args: Any, **kwargs: Any) -> list[tuple[Any, ...]]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(netguard.socket, "getaddrinfo", no_such_name)
    with http_bot_for("http://bot.example/") as bot:
        bot.start()
    assert bot.failure is not None
    assert bot.failure.detail == "crash: cannot resolve bot.example: Name or service not known"


def test_a_failed_start_forfeits_the_first_decision_as_init_failure() -> None:
    with http_bot_for(f"http://127.0.0.1:{unused_port()}/") as bot:
        record = play_against_random(bot)
    assert record.forfeit is not None
    assert (record.forfeit.seat, record.forfeit.cause, record.forfeit.move) == (0, "init_failure", 0)


# Where a bot may live.


def test_loopback_is_refused_unless_private_addresses_are_allowed(serve: Callable[..., BotServer]) -> None:
    server = serve(player())
    with http_bot_for(server.url, allow_private=False) as bot:
        bot.start()
    assert bot.failure is not None
    assert (bot.failure.cause, bot.failure.detail) == ("init_failure", "crash: address 127.0.0.1 is loopback")
    assert server.connections == 0


def test_a_malformed_url_is_refused_before_any_match() -> None:
    with pytest.raises(BadBotUrl, match="only http and https are accepted"):
        HttpBot(url="ftp://bot.example/", game="banter", players=2, options={})


class Rebinding:
    """A resolver that answers a public address ``public_answers`` times, then loopback."""

    def __init__(self, public_answers: int) -> None:
        self.left = public_answers
        self.calls = 0

    def __call__(self, host: str, port: int, *args: Any, **kwargs: Any) -> list[tuple[Any, ...]]:
        self.calls += 1
        ip = PUBLIC_V4 if self.left > 0 else "127.0.0.1"
        self.left -= 1
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, port))]


def test_a_name_that_rebinds_to_loopback_after_the_url_check_is_refused_at_connect(
    serve: Callable[..., BotServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    server = serve(player())
    resolver = Rebinding(public_answers=1)
    monkeypatch.setattr(netguard.socket, "getaddrinfo", resolver)
    url = f"http://bot.example:{server.port}/"
    # The URL passes when the tournament checks it...
    assert [str(ip) for ip in netguard.resolve(url, allow_private=False, timeout=1)] == [PUBLIC_V4]
    # ...and the name points at loopback by the time the match connects.
    with HttpBot(url=url, game="banter", players=2, options={}) as bot:
        bot.start()
    assert bot.failure is not None
    assert bot.failure.detail == "crash: address 127.0.0.1 is loopback"
    assert resolver.calls == 2 and server.connections == 0


def test_a_name_that_rebinds_between_moves_is_refused_at_the_reconnect(
    serve: Callable[..., BotServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The server drops the connection after each answer, so every move resolves the name again.
    server = serve(player(close=True))
    monkeypatch.setattr(netguard.socket, "getaddrinfo", Rebinding(public_answers=2))
    dialled: list[str] = []
    real_open = http_bot._open_socket

    def open_socket(address: IPAddress, port: int, timeout: float) -> socket.socket:
        # Stands in for the public host: its connections land on our loopback server.
        dialled.append(str(address))
        return real_open(netguard.check_address("127.0.0.1", allow_private=True), port, timeout)

    monkeypatch.setattr(http_bot, "_open_socket", open_socket)
    with HttpBot(url=f"http://bot.example:{server.port}/", game="banter", players=2, options={}) as bot:
        act_once(bot)
        act_once(bot)
        failure = failure_of(bot)
    assert (failure.cause, failure.detail) == ("crash", "address 127.0.0.1 is loopback")
    assert dialled == [PUBLIC_V4] * 2  # start kept its connection; each act dialled afresh
    assert server.types() == ["start", "act", "act"]


# The end of a match.


def test_end_is_sent_when_the_match_closes(serve: Callable[..., BotServer]) -> None:
    server = serve(player())
    bot = http_bot_for(server.url)
    act_once(bot)
    bot.close()
    bot.close()
    assert server.types() == ["start", "act", "end"]


def test_end_is_best_effort_and_never_raises(serve: Callable[..., BotServer]) -> None:
    stalls = serve(lambda message: Reply(delay=2) if message["type"] == "end" else player()(message))
    gone = serve(player())
    for server in (stalls, gone):
        bot = http_bot_for(server.url)
        act_once(bot)
        if server is gone:
            server.close()
        began = time.monotonic()
        bot.close()
        assert time.monotonic() - began < 0.5
        assert bot.failure is None


# HTTPS.


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for the name bot.test only (not for 127.0.0.1)."""
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command to make a certificate")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", "/CN=bot.test",
         "-addext", "subjectAltName=DNS:bot.test"],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


def tls_server(serve: Callable[..., BotServer], certificate: tuple[Path, Path]) -> BotServer:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*certificate)
    return serve(player(), tls=context)


def test_https_verifies_the_urls_name_while_connecting_to_the_checked_address(
    serve: Callable[..., BotServer], certificate: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    server = tls_server(serve, certificate)
    monkeypatch.setattr(netguard.socket, "getaddrinfo", lambda host, port, *a, **k: [
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))
    ])  # fmt: skip
    trust = ssl.create_default_context(cafile=str(certificate[0]))
    with http_bot_for(f"https://bot.test:{server.port}/", ssl_context=trust) as bot:
        record = play_against_random(bot)
    assert record.forfeit is None
    assert server.connections == 1
    assert set(server.server_names) == {"bot.test"}
    assert server.request_headers[0]["host"] == f"bot.test:{server.port}"


def test_https_refuses_a_certificate_that_does_not_name_the_url_host(
    serve: Callable[..., BotServer], certificate: tuple[Path, Path]
) -> None:
    server = tls_server(serve, certificate)
    trust = ssl.create_default_context(cafile=str(certificate[0]))
    with http_bot_for(f"https://127.0.0.1:{server.port}/", ssl_context=trust) as bot:
        bot.start()
    assert bot.failure is not None and bot.failure.cause == "init_failure"
    assert "TLS certificate of 127.0.0.1" in bot.failure.detail


def test_https_refuses_a_certificate_from_an_unknown_authority(
    serve: Callable[..., BotServer], certificate: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    server = tls_server(serve, certificate)
    monkeypatch.setattr(netguard.socket, "getaddrinfo", lambda host, port, *a, **k: [
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))
    ])  # fmt: skip
    with http_bot_for(f"https://bot.test:{server.port}/") as bot:
        bot.start()
    assert bot.failure is not None and "certificate" in bot.failure.detail
    assert server.messages == []
