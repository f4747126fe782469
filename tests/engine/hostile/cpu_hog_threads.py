# expect: timeout
# Answers every move at once while background threads burn CPU: the match's CPU limit stops it.
import threading


def spin():
    while True:
        pass


def start(info):
    for _ in range(8):
        threading.Thread(target=spin, daemon=True).start()


def act(turn):
    return turn.legal_actions[0]
