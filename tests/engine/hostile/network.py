# expect: ok
# No network at all: not the internet, not Redis or PostgreSQL on loopback.
import socket


def start(info):
    reached = []
    for host, port in (("127.0.0.1", 6379), ("127.0.0.1", 5432), ("192.0.2.1", 80), ("::1", 6379)):
        try:
            socket.create_connection((host, port), timeout=0.5).close()
            reached.append((host, port))
        except OSError:
            pass
    try:
        socket.getaddrinfo("example.com", 80)
        reached.append("dns")
    except OSError:
        pass
    if reached:
        raise SystemExit(f"reached {reached}")


def act(turn):
    return turn.legal_actions[0]
