# expect: illegal_action
def act(turn):
    return "NOT-A-MOVE"
