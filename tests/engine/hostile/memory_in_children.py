# expect: ok crash
# needs: cgroup
# Four children, each under the per-process limit, together over the bot's memory limit:
# the kernel kills at least one of them (or the bot itself).
import mmap
import os
import time

SIZE = 100 * 1024 * 1024


def start(info):
    children = []
    for _ in range(4):
        pid = os.fork()
        if pid == 0:
            block = mmap.mmap(-1, SIZE)
            for offset in range(0, SIZE, 4096):
                block[offset] = 1
            time.sleep(3600)
        children.append(pid)
    time.sleep(2)
    alive = [pid for pid in children if os.waitpid(pid, os.WNOHANG) == (0, 0)]
    if len(alive) == 4:
        raise SystemExit("four children hold 400 MB: the memory limit is per process only")


def act(turn):
    return turn.legal_actions[0]
