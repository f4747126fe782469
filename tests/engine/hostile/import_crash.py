# expect: init_failure
raise RuntimeError("broken on import")
