"""Models arrive with the league service (issue 3)."""
