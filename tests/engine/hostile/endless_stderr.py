# expect: timeout
import sys


def act(turn):
    while True:
        sys.stderr.write("noise " * 1000)
