# expect: timeout crash
import os


def act(turn):
    children = 0
    while True:
        try:
            if os.fork() == 0:
                while True:
                    os.fork()
            children += 1
        except OSError:
            # The process limit held: report it and keep trying, as a real bomb would.
            print("fork refused after", children, "children", flush=True)
            break
    while True:
        pass
