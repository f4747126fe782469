"""A competition's standings order and what one game adds to a row, read from the game's league profile.

Each game declares its order in the engine (``PROFILE.order``, engine/games/profile.py);
RULES.md fixes them. A standings row keeps the figures every game has (match points,
games won) in columns of their own and a game's own figures in numbered slots, in
the order the profile lists them, so one table serves every game and its rows still
sort in SQL.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from engine.games import get_game
from engine.games.profile import GAMES_WON, MATCH_POINTS, MAX_FIGURES, LeagueProfile

#: The standings columns that hold a game's own figures, in its profile's order.
FIGURE_COLUMNS = tuple(f"figure_{slot}" for slot in range(1, MAX_FIGURES + 1))
#: Where the figures every game has are kept.
_LEAGUE_COLUMNS = {MATCH_POINTS.key: "match_units", GAMES_WON.key: "games_won"}


@dataclass(frozen=True)
class Tiebreak:
    """One figure of the order and the standings column that holds it."""

    key: str
    label: str
    higher_first: bool
    column: str


def tiebreaks(game: str) -> tuple[Tiebreak, ...]:
    """The game's standings order, first figure first."""
    return _tiebreaks(get_game(game).PROFILE)


# Cached by profile, not by game name: a game registered again (tests) may come with another profile.
@cache
def _tiebreaks(profile: LeagueProfile) -> tuple[Tiebreak, ...]:
    columns = {**_LEAGUE_COLUMNS, **{f.key: FIGURE_COLUMNS[i] for i, f in enumerate(profile.own_figures)}}
    return tuple(Tiebreak(f.key, f.label, f.higher_first, columns[f.key]) for f in profile.order)


def shared_ranks(keys: Sequence[tuple[Any, ...]]) -> list[int]:
    """Ranks for rows already sorted by ``keys``: rows level on every tiebreak share a rank."""
    ranks: list[int] = []
    for index, key in enumerate(keys):
        ranks.append(ranks[-1] if index and key == keys[index - 1] else index + 1)
    return ranks
