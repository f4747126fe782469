# expect: ok
# Another bot's code lives in the worker's cache: this bot must not be able to find it.
import os


def start(info):
    found = []
    for root in ("/tmp", "/bot", "/sdk", "/", "/usr"):
        try:
            names = os.listdir(root)
        except OSError:
            continue
        found += [f"{root}/{n}" for n in names if "cardclub-bots" in n or len(n) == 64]
    for path in ("/tmp/cardclub-bots", "/tmp/cardclub-bots-local"):
        if os.path.exists(path):
            found.append(path)
    if found:
        raise SystemExit(f"found other bots' files: {found}")


def act(turn):
    return turn.legal_actions[0]
