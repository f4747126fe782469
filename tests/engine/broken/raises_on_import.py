"""A game module with a bug that shows as soon as it is imported."""

raise RuntimeError("a bug in the game module")
