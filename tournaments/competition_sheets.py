"""What a competition's pages show, as plain lines the templates print: its standings, a chart of its
ratings and its head-to-head matrix. The admin competition page (tournaments/admin/pages.py) and the
public competition page (tournaments/web/views.py) both build on these."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from league.ratings import DEFAULT_MU
from tournaments.admin.figures import points_text
from tournaments.formats.registry import format_of
from tournaments.models import Competition
from tournaments.selectors import (
    RatingHistory,
    competition_standings,
    head_to_head,
    rating_history,
    standings_order,
)


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
    #: The entrant left the ladder (or its bot was retired): no more matches, its results stay.
    left: bool = False


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
            left=row.standing.entrant.left_at is not None,
        )
        for row in rows
    ]
    # The help line under the table reads "Ordered by ..., then Rounds needed (fewer first)".
    return [t.label if t.higher_first else f"{t.label} (fewer first)" for t in standings_order(competition)], lines


def standings_order_note(competition: Competition, labels: list[str]) -> str:
    """How the table is ordered, for the line under it, as its format says (a ladder is not ordered by its
    game's tiebreaks)."""
    return format_of(competition).order_note(labels)


#: The x axis of a competition's rating chart: rounds for scheduled formats, time for ladders.
ROUND_AXIS = "round"
TIME_AXIS = "time"


def rating_chart_axis(competition: Competition) -> str:
    """A ladder's rounds are one challenge each, or one beat tick each, and may be hours or weeks apart:
    its ratings read better against time than against round numbers."""
    return TIME_AXIS if format_of(competition).chart_over_time else ROUND_AXIS


def rating_chart(competition: Competition, *, entrant_ids: Collection[int] | None = None) -> list[dict[str, Any]]:
    """Each entrant's rating after every match it played (or only these entrants': the admin's page draws the
    top of a big table), from the default before the first; [] before any is rated. Against round (from
    round 0), or for a ladder against time (see ``rating_chart_axis``).

    The chart's data as the page embeds it (json_script), one line per entrant.
    """
    over_time = rating_chart_axis(competition) == TIME_AXIS
    lines = [
        {"name": h.entrant.name, "points": points_over_time(competition, h) if over_time else _points_by_round(h)}
        for h in rating_history(competition, entrant_ids=entrant_ids)
    ]
    return lines if any(len(line["points"]) > 1 for line in lines) else []


#: A chart of more lines than this draws the top of the table only: more lines could not be told apart.
CHART_LINES = 10


@dataclass(frozen=True)
class RatingChart:
    lines: list[dict[str, Any]]
    #: How many lines the chart was cut to (the top of the table), or 0 when it draws every entrant.
    cut_to: int


def top_rating_chart(competition: Competition, table: list[StandingLine]) -> RatingChart:
    """The rating chart of the table's top ``CHART_LINES`` entrants, or of all of them when there are no more."""
    if len(table) <= CHART_LINES:
        return RatingChart(lines=rating_chart(competition), cut_to=0)
    top = [line.entrant_id for line in table[:CHART_LINES]]
    return RatingChart(lines=rating_chart(competition, entrant_ids=top), cut_to=CHART_LINES)


def _points_by_round(history: RatingHistory) -> list[list[float]]:
    return [[0, DEFAULT_MU]] + [[p.round_number, round(p.mu, 3)] for p in history.points]


def _epoch(moment: datetime) -> int:
    return int(moment.timestamp())


def points_over_time(competition: Competition, history: RatingHistory) -> list[list[float]]:
    """[epoch seconds, μ]: a chart's line (as ``rating_chart`` embeds it, and a person's page shows it), from
    the default when the entrant came onto the running ladder, then after each rated match at the time it
    finished.

    Ratings apply in (round, match) order, and a match may finish before one rated ahead of it (a
    person's challenge accepted earlier and played later): its new rating cannot hold before the
    earlier one's, so a point is never put before the one ahead of it, and the line runs left to right.
    """
    joined = history.entrant.joined_at
    since = max(competition.started_at, joined) if competition.started_at is not None else joined
    points: list[list[float]] = [[_epoch(since), DEFAULT_MU]]
    for point in history.points:
        finished = _epoch(point.finished_at) if point.finished_at is not None else points[-1][0]
        points.append([max(finished, points[-1][0]), round(point.mu, 3)])
    return points


#: The most entrants the page draws a head-to-head matrix for; the API serves larger ones row by row.
MATRIX_ON_PAGE = 30


@dataclass(frozen=True)
class HeadToHeadLine:
    name: str
    #: Against each entrant in column order: "ahead–level–behind", or "" against itself.
    cells: list[str]


def head_to_head_lines(competition: Competition) -> tuple[list[str], list[HeadToHeadLine]]:
    """The column names and the matrix's lines; nothing for a competition too large to show, or before any
    match is played."""
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
    met = any(
        cell is not None and (cell.ahead or cell.level or cell.behind) for row in table.rows for cell in row.cells
    )
    if not met:
        return [], []  # before any match: a grid of dots and noughts says nothing
    return [entrant.name for entrant in table.entrants], lines
