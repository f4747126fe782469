# expect: timeout
# needs: cgroup
# Children that spin forever while the bot answers every move in time: the match's CPU budget
# counts all of them together, not each on its own.
import os
import time


def start(info):
    for _ in range(4):
        if os.fork() == 0:
            while True:
                pass


def act(turn):
    time.sleep(0.05)
    return turn.legal_actions[0]
