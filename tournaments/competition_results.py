"""The matches a competition has finished, newest first, for its public page: who played, how it ended, and
links to each match and its replay. Whatever the format: a knockout or a ladder shows its own picture too, but
every competition's games are reachable from its page."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.core.paginator import Page, Paginator
from django.db.models import Prefetch

from tournaments.models import Competition, Match, MatchParticipant
from tournaments.result_words import ordinal

#: Finished matches on one page of a competition's results.
RESULTS_PER_PAGE = 20


@dataclass(frozen=True)
class FinishedMatch:
    match_id: int
    round_number: int
    finished_at: datetime | None
    #: "Ann beat Bob", "Ann and Bob drew", or "1st Ann, 2nd= Bob, 2nd= Cy" at a larger table.
    words: str


@dataclass(frozen=True)
class ResultsPage:
    lines: list[FinishedMatch]
    #: The page of matches the lines are made of, for the links to newer and older results.
    page: Page[Match]


def competition_results(competition: Competition, page_number: str | None) -> ResultsPage:
    """One page of the competition's finished matches (a bad or too large page number gives the last page):
    three queries however long the page."""
    seated = MatchParticipant.objects.select_related("entrant").order_by("rank", "seat")
    matches = (
        Match.objects.filter(competition=competition, status=Match.Status.DONE)
        .select_related("round")
        .prefetch_related(Prefetch("participants", queryset=seated))
        .order_by("-finished_at", "-id")
    )
    page = Paginator(matches, RESULTS_PER_PAGE).get_page(page_number)
    return ResultsPage([_finished(match) for match in page], page)


def _finished(match: Match) -> FinishedMatch:
    return FinishedMatch(match.pk, match.round.number, match.finished_at, _words(list(match.participants.all())))


def _words(seats: list[MatchParticipant]) -> str:
    if len(seats) == 2 and seats[0].rank is not None and seats[1].rank is not None:
        first, second = seats
        if first.rank == second.rank:
            return f"{first.entrant.name} and {second.entrant.name} drew"
        return f"{first.entrant.name} beat {second.entrant.name}"
    ranks = [seat.rank for seat in seats]
    return ", ".join(
        f"{ordinal(seat.rank)}{'=' if ranks.count(seat.rank) > 1 else ''} {seat.entrant.name}"
        if seat.rank is not None
        else seat.entrant.name
        for seat in seats
    )
