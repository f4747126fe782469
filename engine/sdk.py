"""The bot SDK: write a bot as one function, and this module speaks the protocol for it.

    def act(turn):
        return turn.legal_actions[0]

That file is a complete bot. Uploaded to the service, or run locally with
``python -m engine play 1923 --bots ./mybot.py,random``, it runs in the
sandbox, where this module is its ``__main__`` and talks JSON lines over
stdin/stdout (docs/bot-protocol.md). The same function can serve as an HTTP
bot with :func:`serve_http`.

This file is copied into the sandbox on its own, so it imports nothing but the
standard library, and it must run on the sandbox's Python (Debian's python3).
"""

from __future__ import annotations

import json
import os
import sys
import types

__all__ = ["Start", "Turn", "handle", "load_bot", "run_stdio", "serve_http"]


class Start:
    """The match a bot is about to play (the "start" message)."""

    # Plain slotted classes, not dataclasses: importing dataclasses costs every sandboxed bot milliseconds.
    __slots__ = ("game", "options", "players", "time")

    def __init__(self, game: str, players: int, options: dict[str, Any], time: dict[str, int]) -> None:
        self.game = game
        self.players = players
        self.options = options
        self.time = time


class Turn:
    """One decision (the "act" message)."""

    __slots__ = ("decision", "game", "game_number", "legal_actions", "observation", "seat", "time")

    def __init__(
        self,
        game: str,
        game_number: int,
        seat: int,
        decision: int,
        observation: dict[str, Any],
        legal_actions: list[str],
        time: dict[str, int],
    ) -> None:
        self.game = game
        self.game_number = game_number
        self.seat = seat
        self.decision = decision
        self.observation = observation
        self.legal_actions = legal_actions
        #: ``move_ms``, ``bank_ms`` and ``wall_ms`` left, as the referee counts them.
        self.time = time


# Typing names cost a sandboxed bot's start milliseconds: they exist for type checkers only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from http.server import ThreadingHTTPServer
    from typing import Any

    Act = Callable[[Turn], str]
    OnStart = Callable[[Start], None]


def handle(message: dict[str, Any], act: Act, on_start: OnStart | None = None) -> dict[str, Any] | None:
    """The answer to one message, or None for a message that takes none ("end")."""
    kind = message.get("type")
    if kind == "act":
        return {"action": act(Turn(**{name: message[name] for name in Turn.__slots__}))}
    if kind == "start":
        if on_start is not None:
            on_start(Start(**{name: message[name] for name in Start.__slots__}))
        return {"ready": True}
    if kind == "end":
        return None
    raise ValueError(f"unknown message type {kind!r}")


def run_stdio(act: Act, on_start: OnStart | None = None) -> None:
    """Answer messages from stdin on stdout until "end" or end of input.

    The bot's own prints go to stderr, where its owner can read them, so they
    can never corrupt the protocol on stdout.
    """
    out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    for line in sys.stdin.buffer:
        reply = handle(json.loads(line), act, on_start)
        if reply is None:
            return
        out.write(json.dumps(reply, separators=(",", ":")).encode() + b"\n")


def serve_http(act: Act, host: str = "127.0.0.1", port: int = 8080, on_start: OnStart | None = None) -> None:
    """Serve the bot over HTTP until interrupted: every message is a POST, every answer the response body."""
    server = make_http_server(act, host, port, on_start)
    print(f"bot listening on http://{host}:{server.server_address[1]}/", file=sys.stderr)
    server.serve_forever()


def make_http_server(
    act: Act, host: str = "127.0.0.1", port: int = 8080, on_start: OnStart | None = None
) -> ThreadingHTTPServer:
    """The HTTP bot's server, bound but not yet serving: for tests, and hosts with their own loop."""
    # Imported here: the sandbox never serves HTTP, and the import would slow every bot's start.
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class BotHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: the referee reuses one connection per match

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                reply = handle(json.loads(self.rfile.read(length)), act, on_start)
            except Exception:
                import traceback

                traceback.print_exc()
                self._send(500, {"error": "the bot raised an exception; see its console"})
                return
            self._send(200, reply if reply is not None else {})

        def _send(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # one line per move would drown the bot's own output

    return ThreadingHTTPServer((host, port), BotHandler)


def load_bot(path: str) -> tuple[Act, OnStart | None]:
    """Import a bot file and find its ``act`` function (and ``start``, if it has one)."""
    directory = os.path.dirname(os.path.abspath(path))
    # The bot's own modules (a zip's other files) import as top-level names.
    sys.path.insert(0, directory)
    with open(path, "rb") as source:
        code = compile(source.read(), path, "exec")
    module = types.ModuleType("bot")
    module.__file__ = path
    sys.modules["bot"] = module
    exec(code, module.__dict__)
    act = getattr(module, "act", None)
    if not callable(act):
        raise ImportError(f"{os.path.basename(path)} defines no act(turn) function")
    on_start = getattr(module, "start", None)
    return act, on_start if callable(on_start) else None


def main(argv: list[str]) -> int:
    """The sandbox's entry point: ``main([BOT_FILE])`` loads the bot and serves stdin/stdout."""
    if len(argv) != 1:
        print("usage: python -m engine.sdk BOT_FILE", file=sys.stderr)
        return 2
    act, on_start = load_bot(argv[0])
    run_stdio(act, on_start)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
