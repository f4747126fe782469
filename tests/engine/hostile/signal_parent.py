# expect: ok
# Signals at every process the bot might name: it can see none outside its sandbox.
import os
import signal


def start(info):
    for pid in (os.getppid(), 1, -1):
        try:
            os.kill(pid, signal.SIGTERM if pid != -1 else signal.SIGKILL)
        except OSError:
            pass
    for pid in range(2, 200):
        if pid != os.getpid():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def act(turn):
    return turn.legal_actions[0]
