"""High card with its profile left out: every member is there, but PROFILE is no LeagueProfile."""

from tests.engine.high_card import *  # noqa: F403 (the whole game, to be spoiled below)

PROFILE = None
