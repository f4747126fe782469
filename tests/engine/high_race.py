"""High card scored as a race: a second test-only game, the rules of tests/engine/high_card.py under
another league profile. It covers what high card's profile does not: a race breakdown, the league's
own "games won" in the order, and a figure counted in won games only."""

from __future__ import annotations

from engine.games.profile import GAMES_WON, MATCH_POINTS, Figure, LeagueProfile, Race, ResultJSON, Row, race_rows
from tests.engine.high_card import *  # noqa: F403 (the whole game; only its name and profile differ)

NAME = "highrace"
#: Two tricks win the race (a hand of 3 or more decides it).
TARGET = 2


def _race(result: ResultJSON) -> list[Row]:
    """Each seat's tricks after every trick; tricks taken past the target are marked."""
    players = len(result["scores"])
    totals, rows = [0] * players, []
    for trick in result["tricks"]:
        if trick["taken_by"] is not None:
            totals[trick["taken_by"]] += 1
        rows.append(list(totals))
    past = [number for number, row in enumerate(rows, start=1) if number > 1 and max(rows[number - 2]) >= TARGET]
    return race_rows(rows, past)


PROFILE = LeagueProfile(
    label="High race",
    order=(
        MATCH_POINTS,
        GAMES_WON,
        Figure(
            "tricks_in_wins",
            "Tricks in games won",
            of_game=lambda result, seat: int(result["scores"][seat]),
            won_games_only=True,
        ),
    ),
    breakdown=Race(target=TARGET, rows=_race, marked_label="after the race was won"),
    table_deal=table_deal,  # noqa: F405 (high card's, with the rest of its rules)
)
