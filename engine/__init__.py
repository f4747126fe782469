"""A pure-Python engine for War, 1923, Banter and Punk. It never imports Django."""
