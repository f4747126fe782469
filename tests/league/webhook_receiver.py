"""A club's chat for the webhook tests: an HTTP server on 127.0.0.1 in a thread that checks each post's
signature, answers with the statuses it is given in turn (then 200), and keeps what it was sent."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Post:
    headers: dict[str, str]
    raw: bytes
    status: int
    #: Whether X-Cardclub-Signature is the HMAC-SHA256 of the raw body under the secret.
    signed: bool

    @property
    def body(self) -> dict[str, Any]:
        return dict(json.loads(self.raw))


@dataclass
class Receiver:
    secret: str
    answers: list[int] = field(default_factory=list)
    #: Seconds to wait before answering each post, in turn (then none): a receiver that hangs.
    delays: list[float] = field(default_factory=list)
    posts: list[Post] = field(default_factory=list)
    #: Posts that have arrived, answered or not yet.
    arrived: int = 0
    url: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def accepted(self) -> list[Post]:
        with self.lock:
            return [post for post in self.posts if 200 <= post.status < 300]

    def all(self) -> list[Post]:
        with self.lock:
            return list(self.posts)


def _handler(receiver: Receiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            expected = "sha256=" + hmac.new(receiver.secret.encode(), raw, hashlib.sha256).hexdigest()
            signed = hmac.compare_digest(self.headers.get("X-Cardclub-Signature", ""), expected)
            # Each post takes its answer (and its delay) as it arrives, in the order posts arrive.
            with receiver.lock:
                receiver.arrived += 1
                delay = receiver.delays.pop(0) if receiver.delays else 0.0
                status = receiver.answers.pop(0) if receiver.answers else 200
            if not signed:
                status = 401
            if delay:
                time.sleep(delay)
            with receiver.lock:
                receiver.posts.append(Post(dict(self.headers.items()), raw, status, signed))
            self.send_response(status)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok" if status < 300 else b"no")

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def receiving(secret: str, answers: list[int] | None = None, delays: list[float] | None = None) -> Iterator[Receiver]:
    receiver = Receiver(secret=secret, answers=list(answers or []), delays=list(delays or []))
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(receiver))
    server.daemon_threads = True
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    thread = threading.Thread(target=server.serve_forever, name="webhook receiver", daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
