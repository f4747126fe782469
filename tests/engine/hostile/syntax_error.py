# expect: init_failure
def act(turn) return 1
