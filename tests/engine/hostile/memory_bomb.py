# expect: crash
def act(turn):
    hoard = []
    while True:
        hoard.append(bytearray(64 * 1024 * 1024))
