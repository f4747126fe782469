"""HTTP bots: a URL the bot's owner hosts, POSTed one protocol message per decision.

The HTTP client is our own small one on a socket rather than http.client or
urllib, for three reasons the referee cannot give up: the time limit is one
deadline for the whole exchange (a server that drips a byte at a time must
still time out), the reply is capped and never read past the cap, and the
connection goes to the exact address :mod:`engine.netguard` checked, so a name
cannot be re-resolved behind our back. One connection is kept for the match
(HTTP/1.1 keep-alive), so a move costs one round trip. ``post_once`` lends the
same guarded client to whatever else posts to an address a person chose (a
club's webhooks).
"""

from __future__ import annotations

import contextlib
import re
import select
import socket
import ssl
import time
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from engine.agents import AgentFailure
from engine.clock import TimeControl
from engine.netguard import (
    BadBotUrl,
    BotUrl,
    IPAddress,
    ResolveTimeout,
    parse_bot_url,
    resolve,
    shown_address,
)
from engine.protocol import MAX_REPLY_BYTES, action_of, check_ready, decode_reply, encode
from engine.remote import RemoteBot

#: The network round trip counts: 500 ms is the whole exchange, connect included.
HTTP_TIME_CONTROL = TimeControl(move_ms=500, bank_ms=0, start_ms=2000, wall_ms=300_000)
#: "end" expects no answer that matters; a slow server must not hold the match up.
NOTIFY_TIMEOUT_S = 0.25
#: Status line and headers together; a bot's reply needs a handful of short ones.
MAX_HEAD_BYTES = 16 * 1024
MAX_HEADERS = 100
#: How much of an error page the bot's owner gets to see, and how much we keep in all.
ERROR_EXCERPT_BYTES = 500
MAX_LOG_CHARS = 16 * 1024

_QUICKACK: int | None = getattr(socket, "TCP_QUICKACK", None)
_STATUS_LINE = re.compile(rb"^HTTP/1\.([01]) ([0-9]{3})(?: (.*))?$")


class HttpBot(RemoteBot):
    def __init__(
        self,
        *,
        url: str,
        game: str,
        players: int,
        options: Mapping[str, Any],
        time_control: TimeControl = HTTP_TIME_CONTROL,
        allow_private: bool = False,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        """``allow_private`` lets the bot live on loopback or a private network (local play, tests).

        ``ssl_context`` replaces the system's trust store, for bots behind a private CA.
        """
        # A malformed URL is the caller's bad input (BadBotUrl), not a forfeit: it never names a bot at all.
        self.target = parse_bot_url(url)
        super().__init__(game=game, players=players, options=options, time_control=time_control)
        self.allow_private = allow_private
        self._ssl_context = ssl_context
        self._connection: _Connection | None = None
        #: Connections opened so far in the match; more than one means the server did not keep them alive.
        self.connections = 0
        self._log: list[str] = []
        self._log_chars = 0

    @property
    def log(self) -> str:
        return "\n".join(self._log)

    # The transport.
    def _launch(self) -> None:
        # Connecting waits for the first exchange: its deadline is the start-up allowance.
        if self.target.scheme == "https" and self._ssl_context is None:
            self._ssl_context = _default_ssl_context()

    def _exchange(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        label = _label(message)
        try:
            response = self._request(encode(message), time.monotonic() + timeout, timeout)
        except AgentFailure as failure:
            self._drop()
            self._note(f"{label}: {failure}")
            raise
        if not 200 <= response.status < 300:
            self._drop()
            self._note(f"{label}: {_status_report(response)}")
            # Only the status goes in the record: the reason phrase and the page are the bot's words, and unbounded.
            redirect = 300 <= response.status < 400
            raise AgentFailure("crash", f"HTTP {response.status}" + (" redirect, not followed" if redirect else ""))
        try:
            reply = decode_reply(response.body)
            # RemoteBot checks these too; checking here as well puts the failure in the owner's log.
            if message.get("type") == "act":
                action_of(reply)
            elif message.get("type") == "start":
                check_ready(reply)
        except AgentFailure as failure:
            self._note(f"{label}: {failure}")
            raise
        return reply

    def _notify(self, message: dict[str, Any]) -> None:
        try:
            self._request(encode(message), time.monotonic() + NOTIFY_TIMEOUT_S, NOTIFY_TIMEOUT_S)
        except Exception:
            # Best effort by contract: the match is over, whatever happens here.
            self._drop()

    def _shutdown(self) -> None:
        self._drop()

    # The HTTP exchange.
    def _request(self, body: bytes, deadline: float, timeout: float) -> _Response:
        head = (
            f"POST {self.target.path_and_query} HTTP/1.1\r\n"
            f"Host: {self.target.host_header}\r\n"
            "User-Agent: cardclub-referee\r\n"
            "Content-Type: application/json\r\n"
            "Accept: application/json\r\n"
            f"Content-Length: {len(body)}\r\n"
            "\r\n"
        ).encode("ascii")
        # Two tries at most: a kept-alive connection the server closed just as we reused it gets one fresh one.
        for attempt in (1, 2):
            if self._connection is not None and self._connection.stale():
                self._drop()
            reused = self._connection is not None
            connection = self._connection or self._connect(deadline, timeout)
            self._connection = connection
            try:
                connection.send(head + body, deadline)
                response = _read_response(connection, deadline)
            except (_Deadline, TimeoutError):
                raise AgentFailure("timeout", f"no complete answer within {timeout * 1000:.0f} ms") from None
            except _TooLong:
                raise AgentFailure("bad_output", f"reply of more than {MAX_REPLY_BYTES} bytes") from None
            except _Malformed as exc:
                raise AgentFailure("bad_output", f"not an HTTP response: {exc}") from None
            except (_Closed, OSError) as exc:
                self._drop()
                if reused and not connection.received and attempt == 1:
                    continue
                if isinstance(exc, _Closed):
                    raise AgentFailure("crash", "the server closed the connection without a full answer") from None
                if isinstance(exc, ssl.SSLError):
                    raise AgentFailure("crash", f"TLS: {exc.reason or exc}") from None
                raise AgentFailure("crash", _os_reason(exc)) from None
            if not response.keep_alive:
                self._drop()
            return response
        raise AssertionError("unreachable: the second attempt returns or raises")

    def _connect(self, deadline: float, timeout: float) -> _Connection:
        connection = connect_checked(
            self.target,
            allow_private=self.allow_private,
            ssl_context=self._ssl_context,
            deadline=deadline,
            timeout=timeout,
        )
        self.connections += 1
        return connection

    def _drop(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _note(self, text: str) -> None:
        """Keep what went wrong for the bot's owner, up to MAX_LOG_CHARS; the first failures matter most."""
        room = MAX_LOG_CHARS - self._log_chars
        if room <= 0:
            return
        if len(text) > room:
            text = text[:room] + " [log truncated]"
        self._log.append(text)
        self._log_chars += len(text) + 1


def connect_checked(
    target: BotUrl, *, allow_private: bool, ssl_context: ssl.SSLContext | None, deadline: float, timeout: float
) -> _Connection:
    """A connection to one of the addresses the target resolves to now, each checked by netguard; an
    :class:`AgentFailure` ("timeout" or "crash") saying why there is none."""
    # Resolved and checked at every connect, not once per match: DNS may change its answer in between.
    try:
        addresses = resolve(target, allow_private=allow_private, timeout=deadline - time.monotonic())
    except ResolveTimeout as exc:
        raise AgentFailure("timeout", exc.reason) from None
    except BadBotUrl as exc:
        raise AgentFailure("crash", exc.reason) from None
    failures: list[str] = []
    for address in addresses:
        where = f"{shown_address(address)} port {target.port}"
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        try:
            sock = _open_socket(address, target.port, remaining)
        except TimeoutError:
            raise AgentFailure("timeout", f"connecting to {where} took more than {timeout * 1000:.0f} ms") from None
        except OSError as exc:
            failures.append(f"{where}: {_os_reason(exc)}")
            continue
        try:
            tls = target.scheme == "https"
            return _Connection(_tls(sock, target, ssl_context, deadline) if tls else sock)
        except TimeoutError:
            raise AgentFailure("timeout", f"TLS handshake with {where} took too long") from None
        except ssl.SSLCertVerificationError as exc:
            raise AgentFailure("crash", f"TLS certificate of {where} refused: {exc.verify_message}") from None
        except OSError as exc:
            raise AgentFailure("crash", f"TLS handshake with {where}: {_os_reason(exc)}") from None
    if not failures:
        raise AgentFailure("timeout", f"no time left to connect within {timeout * 1000:.0f} ms")
    raise AgentFailure("crash", "cannot connect: " + "; ".join(failures))


def _tls(sock: socket.socket, target: BotUrl, context: ssl.SSLContext | None, deadline: float) -> socket.socket:
    context = context or _default_ssl_context()
    # The certificate is checked against the name in the URL (sent as SNI), not the address we dialled.
    # A fully qualified "name." is the same name to a certificate.
    name = target.host.removesuffix(".")
    tls = context.wrap_socket(sock, server_hostname=name, do_handshake_on_connect=False)
    try:
        # CPython bounds the whole handshake by the socket timeout, not each read of it.
        tls.settimeout(max(0.001, deadline - time.monotonic()))
        tls.do_handshake()
    except BaseException:
        tls.close()
        raise
    return tls


@dataclass(frozen=True)
class PostAnswer:
    """What a server answered one POST: its status and the first bytes of its page."""

    status: int
    excerpt: str


class PostFailed(Exception):
    """No answer: the address was refused, the connection failed, or the time ran out. ``reason`` says which."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def post_once(
    url: str,
    body: bytes,
    headers: Mapping[str, str],
    *,
    timeout: float,
    allow_private: bool,
    user_agent: str = "cardclub",
    ssl_context: ssl.SSLContext | None = None,
) -> PostAnswer:
    """POST ``body`` to ``url`` once, with the same guards as a bot's exchange: the address netguard checked at
    this connect, one deadline for the whole exchange, an answer read no further than a short excerpt.

    For whoever else posts to an address a person chose (a club's webhooks, league/webhooks/). Redirects are
    not followed: the answer is the status.
    """
    try:
        target = parse_bot_url(url)
    except BadBotUrl as exc:
        raise PostFailed(exc.reason) from None
    deadline = time.monotonic() + timeout
    lines = [
        f"POST {target.path_and_query} HTTP/1.1",
        f"Host: {target.host_header}",
        f"User-Agent: {user_agent}",
        "Content-Type: application/json",
        f"Content-Length: {len(body)}",
        "Connection: close",
        *(f"{name}: {value}" for name, value in headers.items()),
    ]
    if any(char in line for line in lines for char in "\r\n"):
        raise PostFailed("a header holds a line break")
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
    try:
        connection = connect_checked(
            target, allow_private=allow_private, ssl_context=ssl_context, deadline=deadline, timeout=timeout
        )
    except AgentFailure as failure:
        raise PostFailed(failure.detail or failure.cause) from None
    try:
        connection.send(head + body, deadline)
        # Every answer is read as an error page's would be: only its first bytes matter to the sender.
        response = _read_response(connection, deadline, cap=ERROR_EXCERPT_BYTES)
    except (_Deadline, TimeoutError):
        raise PostFailed(f"no complete answer within {timeout:.0f} s") from None
    except _Malformed as exc:
        raise PostFailed(f"not an HTTP response: {exc}") from None
    except _Closed:
        raise PostFailed("the server closed the connection without a full answer") from None
    except _TooLong:
        raise PostFailed("the answer was too long") from None
    except OSError as exc:
        raise PostFailed(_os_reason(exc)) from None
    finally:
        connection.close()
    return PostAnswer(status=response.status, excerpt=response.body.decode("utf-8", "replace").strip())


def _status_report(response: _Response) -> str:
    """A failed status for the owner's log: the status, where a redirect pointed, the start of the page."""
    report = f"crash: HTTP {response.status} {response.reason[:100]}".rstrip()
    location = response.headers.get("location")
    if location and 300 <= response.status < 400:
        report += f" to {location[:200]!r} (redirects are not followed)"
    excerpt = response.body.decode("utf-8", "replace").strip()
    return f"{report}\n{excerpt}" if excerpt else report


def _open_socket(address: IPAddress, port: int, timeout: float) -> socket.socket:
    """A TCP connection to exactly this address (the one netguard allowed)."""
    family = socket.AF_INET if address.version == 4 else socket.AF_INET6
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        # Each move is one small request; Nagle's algorithm would only delay it.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.connect((str(address), port))
    except BaseException:
        sock.close()
        raise
    return sock


@cache
def _default_ssl_context() -> ssl.SSLContext:
    return ssl.create_default_context()


class _Deadline(Exception):
    pass


class _Closed(Exception):
    pass


class _TooLong(Exception):
    pass


class _Malformed(Exception):
    pass


class _Connection:
    """A socket read through a buffer, every operation bounded by the exchange's deadline."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buffer = bytearray()
        #: Bytes received since the last request went out: zero means the server said nothing to it.
        self.received = 0

    def send(self, data: bytes, deadline: float) -> None:
        self.received = 0
        self.buffer.clear()
        # sendall's timeout bounds the whole call, not each chunk.
        self.sock.settimeout(_remaining(deadline))
        self.sock.sendall(data)

    def fill(self, deadline: float) -> None:
        self.sock.settimeout(_remaining(deadline))
        if _QUICKACK is not None:
            # A server that writes its headers and its body separately has the body held back by
            # Nagle's algorithm until we acknowledge the headers; delayed ACKs would add ~40 ms a move.
            # Linux turns quick ACKs off again by itself, hence before every read.
            with contextlib.suppress(OSError):
                self.sock.setsockopt(socket.IPPROTO_TCP, _QUICKACK, 1)
        data = self.sock.recv(65536)
        if not data:
            raise _Closed
        self.received += len(data)
        self.buffer += data

    def line(self, deadline: float) -> bytes:
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                line = bytes(self.buffer[:end]).removesuffix(b"\r")
                del self.buffer[: end + 1]
                return line
            if len(self.buffer) > MAX_HEAD_BYTES:
                raise _Malformed(f"a header line longer than {MAX_HEAD_BYTES} bytes")
            self.fill(deadline)

    def exactly(self, size: int, deadline: float) -> bytes:
        while len(self.buffer) < size:
            self.fill(deadline)
        data = bytes(self.buffer[:size])
        del self.buffer[:size]
        return data

    def to_close(self, cap: int, deadline: float) -> bytes:
        """Everything until the server closes, refusing more than ``cap`` bytes."""
        try:
            while len(self.buffer) <= cap:
                self.fill(deadline)
        except _Closed:
            data = bytes(self.buffer)
            self.buffer.clear()
            return data
        raise _TooLong

    def stale(self) -> bool:
        """Whether the server closed (or wrote to) the connection since its last answer: reconnect then."""
        try:
            readable, _, _ = select.select([self.sock], [], [], 0)
        except (OSError, ValueError):
            return True
        if isinstance(self.sock, ssl.SSLSocket) and self.sock.pending():
            return True
        if not readable:
            return False
        try:
            # Non-blocking for this one look; the next send sets its own timeout.
            self.sock.setblocking(False)
            self.sock.recv(1)
        except (ssl.SSLWantReadError, BlockingIOError):
            # Only TLS housekeeping (a session ticket): the connection is fine.
            return False
        except OSError:
            return True
        # End of stream, or bytes nobody asked for: either way it cannot carry the next answer.
        return True

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()


@dataclass(frozen=True)
class _Response:
    status: int
    reason: str
    headers: dict[str, str]
    body: bytes
    keep_alive: bool


def _read_response(connection: _Connection, deadline: float, *, cap: int | None = None) -> _Response:
    """The next answer; with ``cap``, any answer is read as an error page is, its first ``cap`` bytes kept."""
    while True:
        minor, status, reason, headers = _read_head(connection, deadline)
        # 1xx are interim ("100 Continue"); the answer follows. 101 would switch protocols: we never ask to.
        if 100 <= status < 200 and status != 101:
            continue
        break
    if status == 101:
        raise _Malformed("101 Switching Protocols, which was not asked for")
    tokens = {token.strip().lower() for token in headers.get("connection", "").split(",")}
    keep_alive = "close" not in tokens if minor == 1 else "keep-alive" in tokens
    # An error page is read only for the owner's log: its first bytes are enough.
    ok = 200 <= status < 300
    excerpt = cap is not None or not ok
    if cap is None:
        cap = MAX_REPLY_BYTES if ok else ERROR_EXCERPT_BYTES
    try:
        body, delimited = _read_body(connection, status, headers, cap, deadline, truncate=excerpt)
    except (_TooLong, _Closed, _Deadline, _Malformed, OSError):
        if not excerpt:
            raise
        body, delimited = bytes(connection.buffer[:cap]), False
    if excerpt:
        body = body[:cap]
    return _Response(
        status=status,
        reason=reason,
        headers=headers,
        body=body,
        # Whatever came after the body was not asked for: never read the next answer from it.
        keep_alive=keep_alive and delimited and ok and not connection.buffer,
    )


def _read_head(connection: _Connection, deadline: float) -> tuple[int, int, str, dict[str, str]]:
    status_line = connection.line(deadline)
    match = _STATUS_LINE.match(status_line)
    if match is None:
        raise _Malformed(repr(status_line[:80].decode("latin-1")))
    size = len(status_line)
    headers: dict[str, str] = {}
    while True:
        line = connection.line(deadline)
        if not line:
            break
        size += len(line) + 2
        if size > MAX_HEAD_BYTES or len(headers) >= MAX_HEADERS:
            raise _Malformed(f"headers longer than {MAX_HEAD_BYTES} bytes or {MAX_HEADERS} lines")
        name, colon, value = line.partition(b":")
        if not colon or not name or name != name.strip():
            raise _Malformed(f"bad header line {line[:80].decode('latin-1')!r}")
        key = name.decode("latin-1").lower()
        text = value.strip().decode("latin-1")
        headers[key] = f"{headers[key]}, {text}" if key in headers else text
    reason = (match.group(3) or b"").decode("latin-1")
    return int(match.group(1)), int(match.group(2)), reason, headers


def _read_body(
    connection: _Connection, status: int, headers: dict[str, str], cap: int, deadline: float, *, truncate: bool
) -> tuple[bytes, bool]:
    """The body, and whether its end was marked (so the connection can carry another exchange).

    Over ``cap`` bytes is :class:`_TooLong`, or with ``truncate`` the first ``cap`` bytes.
    """
    if status in (204, 304):
        return b"", True
    if "transfer-encoding" in headers:
        codings = [coding.strip().lower() for coding in headers["transfer-encoding"].split(",")]
        if codings != ["chunked"]:
            raise _Malformed(f"unsupported Transfer-Encoding {headers['transfer-encoding'][:80]!r}")
        return _read_chunked(connection, cap, deadline), True
    if "content-length" in headers:
        values = {value.strip() for value in headers["content-length"].split(",")}
        # ASCII digits only: str.isdigit() also passes "²", which int() then refuses.
        if len(values) != 1 or not re.fullmatch(r"[0-9]{1,18}", next(iter(values))):
            raise _Malformed(f"bad Content-Length {headers['content-length'][:80]!r}")
        length = int(next(iter(values)))
        if length > cap:
            # Refused unread; an error page still yields its first bytes for the log.
            if not truncate:
                raise _TooLong
            return connection.exactly(cap, deadline), False
        return connection.exactly(length, deadline), True
    return connection.to_close(cap, deadline), False


def _read_chunked(connection: _Connection, cap: int, deadline: float) -> bytes:
    body = bytearray()
    while True:
        size_text = connection.line(deadline).split(b";", 1)[0].strip()
        if not re.fullmatch(rb"[0-9A-Fa-f]{1,15}", size_text):
            raise _Malformed(f"bad chunk size {size_text[:20].decode('latin-1')!r}")
        size = int(size_text, 16)
        if size == 0:
            break
        if len(body) + size > cap:
            raise _TooLong
        body += connection.exactly(size, deadline)
        if connection.line(deadline):
            raise _Malformed("chunk longer than its size")
    # Trailers: read and ignored, within the same head limits.
    read = 0
    while line := connection.line(deadline):
        read += len(line) + 2
        if read > MAX_HEAD_BYTES:
            raise _Malformed(f"trailers longer than {MAX_HEAD_BYTES} bytes")
    return bytes(body)


def _remaining(deadline: float) -> float:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise _Deadline
    return remaining


def _os_reason(exc: OSError) -> str:
    return exc.strerror or str(exc) or type(exc).__name__


def _label(message: Mapping[str, Any]) -> str:
    kind = str(message.get("type"))
    if kind == "act":
        return (
            f"act (game {message.get('game_number')}, seat {message.get('seat')}, decision {message.get('decision')})"
        )
    return kind
