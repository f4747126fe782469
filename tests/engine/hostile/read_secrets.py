# expect: ok
# Everything a bot might want to steal: it must find nothing, and still play.
# The test fills in __PROJECT_DIR__ with this checkout's real path before uploading.
import os

PROJECT = "__PROJECT_DIR__"
TARGETS = [
    "/etc/passwd",
    "/etc/shadow",
    f"{PROJECT}/config/settings/base.py",
    f"{PROJECT}/var/cardclub.sqlite3",
    f"{PROJECT}/.git/config",
    "/root/.bash_history",
]
# The test puts these in the worker's environment; no trace of them may reach the bot.
SECRETS = (b"CARDCLUB_TEST_SECRET", b"hunter2-not-for-bots")


def start(info):
    found = []
    for path in TARGETS:
        try:
            with open(path, "rb") as handle:
                handle.read(1)
            found.append(path)
        except OSError:
            pass
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/environ", "rb") as handle:
                    environ = handle.read()
            except OSError:
                continue
            if any(secret in environ for secret in SECRETS):
                found.append(f"/proc/{pid}/environ")
    if any(secret.decode() in f"{key}={value}" for key, value in os.environ.items() for secret in SECRETS):
        found.append("os.environ")
    if found:
        raise SystemExit(f"leaked: {found}")


def act(turn):
    return turn.legal_actions[0]
