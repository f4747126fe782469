"""What a competition's pages show, as plain lines the templates print: its standings, a chart of its
ratings and its head-to-head matrix. The admin competition page (tournaments/admin/pages.py) and the
public competition page (tournaments/web/views.py) both build on these."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from league.ratings import DEFAULT_MU
from league.standings import tiebreaks
from tournaments.admin.figures import points_text
from tournaments.models import Competition
from tournaments.selectors import competition_standings, head_to_head, rating_history


@dataclass(frozen=True)
class StandingLine:
    rank: str
    name: str
    entrant_id: int
    played: int
    won: int
    drawn: int
    lost: int
    tiebreaks: list[str]
    mu: float
    sigma: float
    ordinal: float


def standings_lines(competition: Competition) -> tuple[list[str], list[StandingLine]]:
    """The tiebreak labels of the competition's game, and its table with shared ranks marked ``2=``."""
    rows = competition_standings(competition)
    sharing = Counter(row.rank for row in rows)
    lines = [
        StandingLine(
            rank=f"{row.rank}=" if sharing[row.rank] > 1 else str(row.rank),
            name=row.standing.entrant.name,
            entrant_id=row.standing.entrant_id,
            played=row.standing.played,
            won=row.standing.won,
            drawn=row.standing.drawn,
            lost=row.standing.lost,
            tiebreaks=[points_text(value) for _, value in row.tiebreaks],
            mu=row.standing.mu,
            sigma=row.standing.sigma,
            ordinal=row.standing.ordinal,
        )
        for row in rows
    ]
    # The help line under the table reads "Ordered by ..., then Rounds needed (fewer first)".
    return [t.label if t.higher_first else f"{t.label} (fewer first)" for t in tiebreaks(competition.game)], lines


def rating_chart(competition: Competition) -> list[dict[str, Any]]:
    """Each entrant's rating after every round it played, from the default at round 0; [] before any is rated.

    The chart's data as the page embeds it (json_script), one line per entrant.
    """
    lines = [
        {"name": h.entrant.name, "points": [[0, DEFAULT_MU]] + [[p.round_number, round(p.mu, 3)] for p in h.points]}
        for h in rating_history(competition)
    ]
    return lines if any(len(line["points"]) > 1 for line in lines) else []


#: The most entrants the page draws a head-to-head matrix for; the API serves larger ones row by row.
MATRIX_ON_PAGE = 30


@dataclass(frozen=True)
class HeadToHeadLine:
    name: str
    #: Against each entrant in column order: "ahead–level–behind", or "" against itself.
    cells: list[str]


def head_to_head_lines(competition: Competition) -> tuple[list[str], list[HeadToHeadLine]]:
    """The column names and the matrix's lines; nothing for a competition too large to show."""
    if competition.entrants.count() > MATRIX_ON_PAGE:
        return [], []
    table = head_to_head(competition)
    lines = [
        HeadToHeadLine(
            name=row.entrant.name,
            cells=["" if cell is None else f"{cell.ahead}–{cell.level}–{cell.behind}" for cell in row.cells],
        )
        for row in table.rows
    ]
    return [entrant.name for entrant in table.entrants], lines
