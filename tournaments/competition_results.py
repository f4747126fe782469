"""The matches a competition has finished, newest first, for its public page: who played, how it ended, and
links to each match and its replay. Whatever the format: a knockout or a ladder shows its own picture too, but
every competition's games are reachable from its page."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.core.paginator import Page, Paginator
from django.db.models import Prefetch

from tournaments.models import Competition, Match, MatchParticipant
from tournaments.result_words import match_words

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
    seats = list(match.participants.all())  # in rank order
    if all(seat.rank is not None for seat in seats):
        words = match_words([(seat.rank, seat.entrant.name) for seat in seats])  # type: ignore[misc]
    else:
        words = ", ".join(seat.entrant.name for seat in seats)
    return FinishedMatch(match.pk, match.round.number, match.finished_at, words)
