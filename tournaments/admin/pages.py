"""What the competition and match pages show below Django's form: standings, each game's breakdown, run buttons.

The builders turn the selectors' rows into plain lines, so the templates print them as they are.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.http import HttpRequest
from django.urls import reverse
from django.utils.text import capfirst

from engine.games import UnknownGame
from engine.games.profile import Breakdown, Race, SetTable
from tournaments.admin.figures import match_points_text, shown_game_number
from tournaments.competition_sheets import (
    head_to_head_lines,
    rating_chart_axis,
    standings_lines,
    standings_order_note,
    top_rating_chart,
)
from tournaments.formats.registry import UnknownFormat, format_of
from tournaments.models import Competition, Match, MatchParticipant
from tournaments.selectors import (
    GameBreakdown,
    MatchSheet,
    breakdown_of,
    competition_match_sheets,
    competition_progress,
    match_breakdown,
)

#: What a page says of a competition whose game this server does not have.
UNKNOWN_GAME_NOTE = "this server does not have that game (ENGINE_GAMES, docs/deploy.md)"


@contextmanager
def unknown_game_reported(request: HttpRequest) -> Iterator[None]:
    """Build a page's parts that need the game (and the format); a game or a format this server lacks is said
    on the page, not a 500."""
    try:
        yield
    except UnknownGame as exc:
        messages.error(request, f"{exc}: {UNKNOWN_GAME_NOTE}, so its standings and matches cannot be shown.")
    except UnknownFormat as exc:
        messages.error(request, f"{capfirst(str(exc))}, so its settings, standings and matches cannot be shown.")


# --- Lines the templates print ------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatLine:
    name: str
    rank: int | None
    points: str


@dataclass(frozen=True)
class SetLine:
    game: int
    number: int
    #: Per participant in seat order, a value per column of the set table.
    cells: list[list[Any]]


@dataclass(frozen=True)
class RaceLine:
    game: int
    number: int
    #: Per participant in seat order: (points this round, total so far).
    cells: list[tuple[Any, Any]]
    play_on: bool
    #: Names of those at or past the target after this round.
    past_target: list[str]


@dataclass(frozen=True)
class MatchView:
    match: Match
    round_number: int
    seats: list[SeatLine]
    set_lines: list[SetLine]
    race_lines: list[RaceLine]

    @property
    def seat_names(self) -> list[str]:
        return [seat.name for seat in self.seats]


def seat_lines(participants: Sequence[MatchParticipant], players_per_match: int) -> list[SeatLine]:
    return [
        SeatLine(
            name=p.entrant.name,
            rank=p.rank,
            points="" if p.match_units is None else match_points_text(p.match_units, players_per_match),
        )
        for p in participants
    ]


def set_lines(
    participants: Sequence[MatchParticipant], table: SetTable, games: Sequence[GameBreakdown]
) -> list[SetLine]:
    columns = [column.key for column in table.columns]
    return [
        SetLine(
            game=shown_game_number(game.game.number),
            number=row.number,
            cells=[[row.cells.get(p.entrant_id, {}).get(key, "–") for key in columns] for p in participants],
        )
        for game in games
        for row in game.rows
    ]


def race_lines(participants: Sequence[MatchParticipant], games: Sequence[GameBreakdown]) -> list[RaceLine]:
    names = {p.entrant_id: p.entrant.name for p in participants}
    lines = []
    for game in games:
        for row in game.rows:
            cells = [row.cells.get(p.entrant_id, {}) for p in participants]
            lines.append(
                RaceLine(
                    game=shown_game_number(game.game.number),
                    number=row.number,
                    cells=[(cell.get("points", "–"), cell.get("total", "–")) for cell in cells],
                    play_on=row.marked,
                    past_target=[names.get(e, str(e)) for e in row.past_target],
                )
            )
    return lines


def breakdown_lines(
    participants: Sequence[MatchParticipant], breakdown: Breakdown | None, games: Sequence[GameBreakdown]
) -> tuple[list[SetLine], list[RaceLine]]:
    """The set-table lines or the race lines of a match, whichever kind of breakdown its game has."""
    if isinstance(breakdown, SetTable):
        return set_lines(participants, breakdown, games), []
    if isinstance(breakdown, Race):
        return [], race_lines(participants, games)
    return [], []


def match_view(sheet: MatchSheet, players_per_match: int, breakdown: Breakdown | None) -> MatchView:
    sets, race = breakdown_lines(sheet.participants, breakdown, sheet.games)
    return MatchView(
        match=sheet.match,
        round_number=sheet.match.round.number,
        seats=seat_lines(sheet.participants, players_per_match),
        set_lines=sets,
        race_lines=race,
    )


# --- The buttons that run a competition ---------------------------------------------------------------

#: Their labels, by the step each posts to run/ (see ``actions.run_step``).
RUN_STEPS = {
    "start": "Start (close entries, build the rounds)",
    "play": "Play pending matches now",
    "retry": "Retry matches in error",
    "cancel": "Cancel…",
}


def available_steps(competition: Competition, progress: dict[str, int]) -> list[str]:
    """The steps that make sense for the competition as it stands (the services refuse the others anyway)."""
    if competition.status == Competition.Status.OPEN:
        return ["start", "cancel"]
    if competition.status == Competition.Status.RUNNING:
        steps = ["play"] if progress["pending"] else []
        return [*steps, *(["retry"] if progress["error"] else []), "cancel"]
    return []


# --- Whole pages --------------------------------------------------------------------------------------


#: The most matches the competition page lists (the latest): a ladder plays on for thousands, and the match list,
#: filtered to the competition, pages through them all.
MATCHES_ON_PAGE = 20
#: The most entrants the page's entrant list shows (the first to join); the entrant list pages through the rest.
ENTRANTS_ON_PAGE = 25
#: The most lines of the standings the page shows (the top); the standing list pages through the rest.
STANDINGS_ON_PAGE = 50
#: The most entrants the rating chart draws (the top of the standings): more lines than this are a blur.


def competition_list_url(model_name: str, competition: Competition) -> str:
    """The admin's list of ``model_name`` (matches, entrants), filtered to the competition's."""
    changelist = reverse(f"admin:tournaments_{model_name}_changelist")
    return f"{changelist}?{urlencode({'competition__id__exact': competition.pk})}"


def competition_page(competition: Competition, *, may_run: bool) -> dict[str, Any]:
    """The competition page's context: standings, its latest matches' breakdowns, and the run buttons if
    ``may_run``."""
    progress = competition_progress(competition)
    labels, lines = standings_lines(competition)
    breakdown = breakdown_of(competition.game)
    chart = top_rating_chart(competition, lines)
    return {
        "tiebreak_labels": labels,
        "standings_order": standings_order_note(competition, labels),
        "standing_lines": lines[:STANDINGS_ON_PAGE],
        "standing_total": len(lines),
        "standings_url": competition_list_url("standing", competition),
        "chart_lines": chart.cut_to,
        "match_views": [
            match_view(sheet, competition.players_per_match, breakdown)
            for sheet in competition_match_sheets(competition, latest=MATCHES_ON_PAGE)
        ],
        "matches_url": competition_list_url("match", competition),
        "entrant_total": competition.entrants.count(),
        "entrants_on_page": ENTRANTS_ON_PAGE,
        "entrants_url": competition_list_url("entrant", competition),
        "progress": progress,
        "rating_chart": chart.lines,
        "rating_chart_axis": rating_chart_axis(competition),
        "head_to_head": head_to_head_lines(competition),
        "breakdown": breakdown,
        "run_buttons": [(step, RUN_STEPS[step]) for step in available_steps(competition, progress)] if may_run else [],
        "can_add_entrants": competition.status == Competition.Status.OPEN and may_run,
        "format_part": format_of(competition).page_part(competition, admin=True),
    }


def race_charts(participants: Sequence[MatchParticipant], race: Race, games: Sequence[GameBreakdown]) -> list[Any]:
    """Per game, each side's total against round, from 0 before the first: the race charts' data."""
    return [
        {
            "game": shown_game_number(game.game.number),
            "target": race.target,
            "lines": [
                {
                    "name": p.entrant.name,
                    "points": [[0, 0]]
                    + [[row.number, row.cells.get(p.entrant_id, {}).get("total", 0)] for row in game.rows],
                }
                for p in participants
            ],
        }
        for game in games
        if game.rows
    ]


def match_page(match: Match) -> dict[str, Any]:
    """The match page's context: its games' set table or race (with its charts), whichever its game has."""
    participants = list(match.participants.select_related("entrant").order_by("seat"))
    breakdown = breakdown_of(match.competition.game)
    games = match_breakdown(match)
    sets, race = breakdown_lines(participants, breakdown, games)
    return {
        "seat_names": [p.entrant.name for p in participants],
        "set_lines": sets,
        "race_lines": race,
        "race_charts": race_charts(participants, breakdown, games) if isinstance(breakdown, Race) else [],
        "breakdown": breakdown,
    }
