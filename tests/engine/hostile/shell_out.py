# expect: ok
# os.system and subprocess find no shell and no programs to run.
import os
import subprocess


def start(info):
    ran = []
    if os.system("true") == 0:
        ran.append("os.system")
    for command in (["/bin/sh", "-c", "true"], ["ls", "/"], ["curl", "http://example.com"]):
        try:
            subprocess.run(command, check=True, capture_output=True, timeout=2)
            ran.append(command[0])
        except (OSError, subprocess.SubprocessError):
            pass
    if ran:
        raise SystemExit(f"ran {ran}")


def act(turn):
    return turn.legal_actions[0]
