# expect: timeout
def act(turn):
    while True:
        pass
