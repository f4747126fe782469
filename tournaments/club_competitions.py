"""A club's competitions as its page groups them: ladders, running, open for entry, finished.

Two queries whatever the club's history: the ones not over yet, all of them (a club runs a handful at once),
and the latest finished ones, up to a bound, with how many finished in all.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Count, F, Q, QuerySet

from league.models import Club, game_choices
from tournaments.formats.registry import UnknownFormat, get_format
from tournaments.models import Competition

#: The most finished competitions a club's page lists, newest first.
FINISHED_SHOWN = 20


@dataclass(frozen=True)
class CompetitionLine:
    competition: Competition
    game: str
    format: str
    entrants: int


@dataclass
class ClubCompetitions:
    ladders: list[CompetitionLine] = field(default_factory=list)
    running: list[CompetitionLine] = field(default_factory=list)
    open: list[CompetitionLine] = field(default_factory=list)
    finished: list[CompetitionLine] = field(default_factory=list)
    finished_count: int = 0


def _is_ladder(key: str) -> bool:
    # A ladder runs until cancelled and takes people while it runs: it is its own group, open or running.
    try:
        return not get_format(key).ends_by_itself
    except UnknownFormat:
        return False


def _format_label(key: str) -> str:
    try:
        return get_format(key).label
    except UnknownFormat:
        return "a format this server does not have"


def _lines(competitions: QuerySet[Competition]) -> list[CompetitionLine]:
    games = dict(game_choices())
    return [
        CompetitionLine(
            competition=competition,
            game=games.get(competition.game, competition.game),
            format=_format_label(competition.format),
            entrants=getattr(competition, "entrant_count", 0),
        )
        for competition in competitions
    ]


def club_competitions(*, club: Club) -> ClubCompetitions:
    # Entrants still in (a ladder's who left are not counted), through one join: no match is read.
    counted = Competition.objects.filter(club=club).annotate(
        entrant_count=Count("entrants", filter=Q(entrants__left_at__isnull=True))
    )
    grouped = ClubCompetitions()
    current = counted.filter(status__in=[Competition.Status.OPEN, Competition.Status.RUNNING]).order_by(
        "-created_at", "-id"
    )
    for line in _lines(current):
        if _is_ladder(line.competition.format):
            grouped.ladders.append(line)
        elif line.competition.status == Competition.Status.RUNNING:
            grouped.running.append(line)
        else:
            grouped.open.append(line)
    over = counted.filter(status__in=[Competition.Status.FINISHED, Competition.Status.CANCELLED])
    grouped.finished = _lines(
        over.order_by(F("finished_at").desc(nulls_last=True), "-created_at", "-id")[:FINISHED_SHOWN]
    )
    grouped.finished_count = (
        len(grouped.finished) if len(grouped.finished) < FINISHED_SHOWN else over.order_by().count()
    )
    return grouped
