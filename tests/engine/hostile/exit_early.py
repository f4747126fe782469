# expect: crash
import sys


def act(turn):
    if turn.decision >= 2:
        sys.exit(3)
    return turn.legal_actions[0]
