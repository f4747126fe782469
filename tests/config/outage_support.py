"""Outages simulated without touching the shared PostgreSQL or Redis: a port nobody listens on, a server
that accepts and never answers, and a TCP proxy between the service and the real thing that a test stops
and starts again."""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading
from types import TracebackType


def closed_port() -> int:
    """A loopback port with nothing listening: a connection to it is refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class SilentServer:
    """Accepts connections and never answers, as a Redis behind a lost network looks to its clients."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._listener.getsockname()[1])
        self._held: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def _accept(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                conn, _ = self._listener.accept()
                self._held.append(conn)

    def __enter__(self) -> SilentServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._listener.close()
        for conn in self._held:
            conn.close()


class TcpProxy:
    """Forwards 127.0.0.1:``port`` to ``target``; :meth:`stop` makes the target unreachable (every
    connection cut, new ones refused), :meth:`start` reachable again on the same port."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.port = closed_port()
        self._lock = threading.Lock()
        self._listener: socket.socket | None = None
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(128)
        self._listener = listener
        self._thread = threading.Thread(target=self._serve, args=(listener,), daemon=True)
        self._thread.start()

    def stop(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            # shutdown wakes the accept() blocked in the serving thread; close alone would not.
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        with self._lock:
            pairs, self._pairs = self._pairs, []
        for client, upstream in pairs:
            for sock in (client, upstream):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()

    def __enter__(self) -> TcpProxy:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.stop()

    def _serve(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # stopped
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._pairs.append((client, upstream))
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()

    def _pump(self, client: socket.socket, upstream: socket.socket) -> None:
        upstream.settimeout(None)
        peers = {client: upstream, upstream: client}
        with selectors.DefaultSelector() as selector:
            for sock in peers:
                selector.register(sock, selectors.EVENT_READ)
            try:
                while True:
                    for key, _ in selector.select():
                        source = key.fileobj
                        assert isinstance(source, socket.socket)
                        data = source.recv(65536)
                        if not data:
                            return
                        peers[source].sendall(data)
            except (OSError, ValueError):
                return  # cut by stop(), or the other side went away
            finally:
                for sock in peers:
                    with contextlib.suppress(OSError):
                        sock.close()
