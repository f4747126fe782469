# expect: ok
# Another bot's code sits unpacked in the worker's cache; the test fills in its real path.
import os

OTHER = "__OTHER_BOT_DIR__"


def start(info):
    found = []
    for path in (OTHER, f"{OTHER}/main.py", os.path.dirname(OTHER)):
        if os.path.exists(path):
            found.append(path)
    for root in ("/tmp", "/bot", "/sdk", "/"):
        try:
            found += [f"{root}/{n}" for n in os.listdir(root) if len(n) == 64]
        except OSError:
            pass
    if found:
        raise SystemExit(f"found other bots' files: {found}")


def act(turn):
    return turn.legal_actions[0]
