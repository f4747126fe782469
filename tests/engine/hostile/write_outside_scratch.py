# expect: ok
# Writes outside the scratch directory must fail; inside it, small writes work.


def start(info):
    escaped = []
    for path in ("/bot/evil.py", "/usr/lib/evil", "/evil", "/sdk/engine/sdk.py", "/proc/sys/kernel/hostname"):
        try:
            with open(path, "w") as handle:
                handle.write("x")
            escaped.append(path)
        except OSError:
            pass
    with open("/tmp/scratch.txt", "w") as handle:
        handle.write("fine")
    try:
        with open("/tmp/big", "wb") as handle:
            handle.write(b"x" * (64 * 1024 * 1024))
        escaped.append("/tmp/big: 64 MiB written past the file and scratch limits")
    except OSError:
        pass
    if escaped:
        raise SystemExit(f"wrote outside scratch: {escaped}")


def act(turn):
    return turn.legal_actions[0]
