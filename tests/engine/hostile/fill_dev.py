# expect: ok
# /dev must be read-only: no memory-backed files there.
def start(info):
    for path in ("/dev/hoard", "/dev/shm/hoard"):
        try:
            with open(path, "wb") as handle:
                handle.write(b"x" * 1024)
        except OSError:
            continue
        raise SystemExit(f"wrote {path}")


def act(turn):
    return turn.legal_actions[0]
