# expect: timeout
import time


def act(turn):
    time.sleep(60)
    return turn.legal_actions[0]
