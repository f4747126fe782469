"""Fuzzing what reads a bot's reply: whatever a bot sends forfeits with the documented cause, never a crash of ours.

docs/bot-protocol.md, "Failures": a reply that is not a JSON object, over 64 KiB, or without an
"action" string is ``bad_output``; an action string that is not legal now is ``illegal_action``.
The parsers are fuzzed directly, without a sandbox or a socket: ``engine.protocol`` (what both
transports decode a reply with), the referee's path from a reply to a forfeit
(``RemoteBot.decide`` and the runner), and the HTTP bot's response reader over a fake socket.
"""

from __future__ import annotations

import json
import time
from typing import Any

from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from engine import http_bot
from engine.agents import AgentFailure
from engine.bots import seat_agents
from engine.cards import normalise_action
from engine.clock import TimeControl
from engine.http_bot import HttpBot
from engine.protocol import MAX_REPLY_BYTES, action_of, check_ready, decode_reply
from engine.remote import RemoteBot
from engine.result import FORFEIT_CAUSES
from engine.runner import play_game
from engine.verify import verify
from tests.engine.fuzz_support import ACTION_WORDS, CARDS, NEAR_CARDS, json_values

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: What RemoteBot._guarded says when a transport raised something nobody foresaw: a bug of ours, not the bot's.
BROKE_THE_REFEREE = "the bot's answer broke the referee"

actions = st.one_of(
    st.sampled_from(ACTION_WORDS + CARDS + NEAR_CARDS),
    st.builds("{} {}".format, st.sampled_from(ACTION_WORDS), st.sampled_from(CARDS + NEAR_CARDS)),
    st.text(max_size=20),
)
#: 1923's first decision is DRAW or LOCK; the referee takes any case and spacing (RULES.md, "Common").
legal_spellings = st.sampled_from(["DRAW", "LOCK", "draw", " Lock ", "LOCK\n", "d r a w", "DRAW LOCK", "LOCKS"])
#: Replies as bytes on the wire: anything, text, JSON of any shape, and replies that name an action.
replies = st.one_of(
    st.builds(lambda action: json.dumps({"action": action}).encode(), legal_spellings),
    st.binary(max_size=200),
    st.text(max_size=60).map(str.encode),
    json_values().map(lambda value: json.dumps(value).encode()),
    st.builds(lambda action: json.dumps({"action": action}).encode(), actions | json_values()),
    st.builds(lambda action, extra: json.dumps({"action": action, "x": extra}).encode(), actions, json_values()),
)
HOSTILE_REPLIES = [
    b"",
    b"\xff\xfe",
    b"[" * 100_000,
    b'{"action":' * 5000,
    b'{"action": "' + b"x" * MAX_REPLY_BYTES + b'"}',
    b'{"action": "\\ud800"}',
    b'{"action": NaN}',
    b'{"action": ' + b"9" * 5000 + b"}",
    b'{"action": "DRAW", "action": 7}',
    '{"action":"DRAW"}'.encode("utf-16"),
    b"\xef\xbb\xbf" + b'{"action":"DRAW"}',
]


def _examples(test: Any) -> Any:
    for raw in HOSTILE_REPLIES:
        test = example(raw=raw)(test)
    return test


def expected_cause(raw: bytes, legal: list[str]) -> str | None:
    """The documented verdict on one reply, worked out from the protocol page rather than the code."""
    if len(raw) > MAX_REPLY_BYTES:
        return "bad_output"
    try:
        reply = json.loads(raw)
    except (ValueError, RecursionError):
        return "bad_output"
    if not isinstance(reply, dict) or not isinstance(reply.get("action"), str):
        return "bad_output"
    return None if normalise_action(reply["action"]) in legal else "illegal_action"


# --- engine.protocol ---------------------------------------------------------------------------


@FUZZ
@given(raw=replies)
@_examples
def test_a_reply_is_an_action_string_or_bad_output(raw: bytes) -> None:
    try:
        action = action_of(decode_reply(raw))
    except AgentFailure as failure:
        assert failure.cause == "bad_output"
        assert "\n" not in failure.detail and len(failure.detail) < 300
        assert expected_cause(raw, []) == "bad_output"
    else:
        assert isinstance(action, str)
        assert expected_cause(raw, [normalise_action(action)]) is None


@FUZZ
@given(raw=replies)
@_examples
@example(raw=b'{"ready": true}')
@example(raw=b'{"ready": 1}')
def test_an_answer_to_start_is_ready_or_an_init_failure(raw: bytes) -> None:
    try:
        check_ready(decode_reply(raw))
    except AgentFailure as failure:
        assert failure.cause in ("bad_output", "init_failure")
    else:
        assert json.loads(raw)["ready"] is True


# --- From a reply to a forfeit -----------------------------------------------------------------


class _ScriptedBot(RemoteBot):
    """A remote bot whose first decision answers ``first_reply`` and every later one a legal action."""

    def __init__(self, first_reply: bytes) -> None:
        super().__init__(game="1923", players=2, options={}, time_control=TimeControl())
        self.first_reply: bytes | None = first_reply
        self.legal_at_first: list[str] = []

    def _launch(self) -> None:
        pass

    def _exchange(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        if message["type"] == "start":
            return {"ready": True}
        if self.first_reply is None:
            return {"action": message["legal_actions"][0]}
        raw, self.first_reply = self.first_reply, None
        self.legal_at_first = list(message["legal_actions"])
        return decode_reply(raw)

    def _notify(self, message: dict[str, Any]) -> None:
        pass

    def _shutdown(self) -> None:
        pass


@FUZZ
@given(raw=replies)
@_examples
@example(raw=b'{"action": "draw"}')
@example(raw=b'{"action": " LOCK "}')
@example(raw=b'{"action": "FOLD"}')
def test_a_bots_reply_forfeits_with_the_documented_cause(raw: bytes) -> None:
    bot = _ScriptedBot(raw)
    options = {"mode": "set"}
    agents = [bot.seated(0, 0), seat_agents("1923", ["random", "random"], options, 3)[1]]
    record = play_game("1923", agents=agents, seed=3, options=options)
    cause = expected_cause(raw, bot.legal_at_first)
    event(f"forfeit cause: {cause}")
    if cause is None:
        assert record.forfeit is None
    else:
        assert record.forfeit is not None
        assert (record.forfeit.seat, record.forfeit.cause) == (0, cause)
        assert BROKE_THE_REFEREE not in record.forfeit.detail and len(record.forfeit.detail) < 300
    # A forfeit is part of the record: the record it ends still replays (DESIGN.md, "Forfeits are part of the record").
    assert verify(record).ok


# --- The HTTP bot's response reader ------------------------------------------------------------


class _FakeSocket:
    """What a server sent, handed out in the chunks it arrived in, then end of stream."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks

    def settimeout(self, timeout: float | None) -> None:
        pass

    def setsockopt(self, *args: object) -> None:
        pass

    def sendall(self, data: bytes) -> None:
        pass

    def recv(self, size: int) -> bytes:
        if not self.chunks:
            return b""
        chunk = self.chunks.pop(0)
        if len(chunk) > size:
            self.chunks.insert(0, chunk[size:])
        return chunk[:size]

    def close(self) -> None:
        pass


_READY = b'HTTP/1.1 200 OK\r\nContent-Length: 15\r\nConnection: close\r\n\r\n{"ready": true}'


class _CannedHttpBot(HttpBot):
    """An HTTP bot whose "server" answers start with ready, then the act with ``response``, in ``chunks``."""

    def __init__(self, chunks: list[bytes]) -> None:
        super().__init__(url="http://bot.example.org/move", game="1923", players=2, options={})
        self.responses = [[_READY], chunks]

    def _connect(self, deadline: float, timeout: float) -> http_bot._Connection:
        # After the two answers, a server that closes at once (the "end" notice needs no answer).
        chunks = self.responses.pop(0) if self.responses else []
        return http_bot._Connection(_FakeSocket(chunks))  # type: ignore[arg-type]


status_lines = st.one_of(
    st.sampled_from(
        [
            *(b"HTTP/1.1 200 OK", b"HTTP/1.0 200", b"HTTP/1.1 204 No Content", b"HTTP/1.1 100 Continue"),
            *(b"HTTP/1.1 101 x", b"HTTP/1.1 302 Found", b"HTTP/1.1 500 Oops", b"HTTP/1.1 999 x", b"HTTP/2 200"),
            b"HTTP/1.1 200 \xff",
        ]
    ),
    st.binary(max_size=30),
)
header_lines = st.one_of(
    st.builds(
        b"%s: %s".__mod__,
        st.tuples(
            st.sampled_from([b"Content-Length", b"Transfer-Encoding", b"Connection", b"Location", b"content-length"]),
            st.sampled_from([b"chunked", b"gzip, chunked", b"0", b"17", b"-1", b"1, 2", b"9" * 30, b"\xb2", b"close"])
            | st.binary(max_size=12),
        ),
    ),
    st.binary(max_size=30),
)
chunked_bodies = st.lists(st.binary(max_size=20), max_size=4).map(
    lambda chunks: b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for chunk in chunks) + b"0\r\n\r\n"
)


STATUSES = [b"200 OK", b"200 OK", b"201 Created", b"204 No Content", b"302 Found", b"500 Internal Server Error"]


def _framed(status: bytes, body: bytes, framing: str) -> bytes:
    """A well-formed response carrying ``body``, its end marked as ``framing`` says."""
    if framing == "length":
        return b"HTTP/1.1 %s\r\nContent-Length: %d\r\n\r\n%s" % (status, len(body), body)
    if framing == "chunked":
        chunks = b"%x\r\n%s\r\n" % (len(body), body) if body else b""
        return b"HTTP/1.1 %s\r\nTransfer-Encoding: chunked\r\n\r\n%s0\r\n\r\n" % (status, chunks)
    return b"HTTP/1.0 %s\r\n\r\n%s" % (status, body)  # ended by closing the connection


@st.composite
def http_responses(draw: st.DrawFn) -> list[bytes]:
    """A response, well-formed or not, cut where the network happened to cut it."""
    kind = draw(st.sampled_from(["framed", "framed", "fuzzed head", "bytes"]))
    if kind == "framed":
        status = draw(st.sampled_from(STATUSES))
        body = draw(st.one_of(replies, st.just(b"x" * (MAX_REPLY_BYTES + 10))))
        data = _framed(status, body, draw(st.sampled_from(["length", "chunked", "close"])))
        if draw(st.booleans()):
            data = b"HTTP/1.1 100 Continue\r\n\r\n" + data
    elif kind == "fuzzed head":
        head = b"\r\n".join([draw(status_lines), *draw(st.lists(header_lines, max_size=5))]) + b"\r\n\r\n"
        data = head + draw(st.one_of(replies, chunked_bodies, st.just(b"x" * (MAX_REPLY_BYTES + 10))))
    else:
        data = draw(st.binary(max_size=300))
    cuts = sorted(draw(st.lists(st.integers(0, len(data)), max_size=4)))
    return [piece for piece in (data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)) if piece]


@FUZZ
@given(chunks=http_responses())
@example(chunks=[b'HTTP/1.1 200 OK\r\nContent-Length: 17\r\n\r\n{"action":"DRAW"}'])
@example(chunks=[b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"act\r\n0\r\n\r\n'])
@example(chunks=[b"HTTP/1.1 200 OK\r\nContent-Length: \xb2\r\n\r\n"])
def test_an_http_bots_response_is_an_action_or_a_forfeit_cause(chunks: list[bytes]) -> None:
    bot = _CannedHttpBot(list(chunks))
    started = time.monotonic()
    try:
        action = bot.decide(seat=0, game_number=0, decision=0, observation={}, legal_actions=["DRAW", "LOCK"])
    except AgentFailure as failure:
        event(f"forfeit cause: {failure.cause}")
        assert failure.cause in FORFEIT_CAUSES and failure.cause != "init_failure", failure
        assert BROKE_THE_REFEREE not in failure.detail, failure.detail
        assert failure.cause != "timeout" or time.monotonic() - started > 0.4
    else:
        event("an action")
        assert isinstance(action, str)
        assert b"".join(chunks).startswith((b"HTTP/1.1 2", b"HTTP/1.0 2", b"HTTP/1.1 1", b"HTTP/1.0 1"))
    finally:
        bot.close()
