"""How each game orders its standings, and which figures a game adds to a row.

RULES.md and the league issue fix the orders:
- 1923: match points, then set points, then total cards won;
- Banter: match points, then trick points;
- War: match points, then games won, then fewer rounds needed;
- Punk: placement points (its match points), then total score.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Tiebreak:
    #: A column of the standings row.
    field: str
    label: str
    #: Higher is better, unless False (War's rounds needed).
    descending: bool = True


MATCH_POINTS = Tiebreak("match_units", "Match points")

TIEBREAKS: dict[str, tuple[Tiebreak, ...]] = {
    "1923": (MATCH_POINTS, Tiebreak("set_points", "Set points"), Tiebreak("cards_won", "Cards won")),
    "banter": (MATCH_POINTS, Tiebreak("trick_points", "Trick points")),
    "war": (MATCH_POINTS, Tiebreak("games_won", "Games won"), Tiebreak("rounds_needed", "Rounds needed", False)),
    "punk": (Tiebreak("match_units", "Placement points"), Tiebreak("total_score", "Total score")),
}

#: The figures a standings row accumulates from games, besides games played and won.
FIGURE_FIELDS = ("set_points", "cards_won", "trick_points", "rounds_needed", "total_score")


def game_figures(game: str, result: Mapping[str, Any], seat: int) -> dict[str, int]:
    """What one game adds to the seat's row, from the engine's result JSON."""
    figures = dict.fromkeys(FIGURE_FIELDS, 0)
    won = result.get("winner") == seat
    if game == "1923":
        figures["set_points"] = int(result["points"][seat])
        figures["cards_won"] = int(result["cards"][seat])
    elif game == "banter":
        figures["trick_points"] = int(result["scores"][seat])
    elif game == "war":
        # RULES.md War: "fewer rounds needed" counts the rounds of the games a player won.
        figures["rounds_needed"] = int(result["rounds"]) if won else 0
    elif game == "punk":
        figures["total_score"] = int(result["scores"][seat])
    return figures


def order_key(game: str, row: Mapping[str, Any]) -> tuple[Any, ...]:
    """A sort key (ascending = better first) following the game's tiebreaks."""
    return tuple(-row[t.field] if t.descending else row[t.field] for t in TIEBREAKS[game])


def shared_ranks(keys: Sequence[tuple[Any, ...]]) -> list[int]:
    """Ranks for rows already sorted by ``keys``: rows level on every tiebreak share a rank."""
    ranks: list[int] = []
    for index, key in enumerate(keys):
        ranks.append(ranks[-1] if index and key == keys[index - 1] else index + 1)
    return ranks
