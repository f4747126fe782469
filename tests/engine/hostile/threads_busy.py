# expect: timeout
import threading


def spin():
    while True:
        pass


def act(turn):
    for _ in range(64):
        try:
            threading.Thread(target=spin, daemon=True).start()
        except RuntimeError:
            break
    spin()
