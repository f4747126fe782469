"""A competition page's list of finished matches: plain words for each result, newest first, paged, in a fixed
number of queries."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import CompetitionFactory, EntrantFactory, full_options
from tests.tournaments.helpers import game_played, match_result, seats_of, started
from tournaments.competition_results import RESULTS_PER_PAGE, competition_results
from tournaments.models import Competition, Match
from tournaments.services.results import match_record_result

pytestmark = pytest.mark.django_db

WON = {"scores": [1, 0], "ranks": [1, 2], "rounds": 1}
DREW = {"scores": [0, 0], "ranks": [1, 1], "rounds": 1}


def round_robin(entrants: int, game: str = "war", players: int = 2) -> Competition:
    competition = CompetitionFactory(game=game, players_per_match=players, options=full_options(game, players))
    for number in range(entrants):
        EntrantFactory(competition=competition, bot_version__bot__name=f"Bot{number}")
    return started(competition)


def record(match: Match, result: dict[str, Any]) -> None:
    seating = tuple(range(len(seats_of(match))))
    played = game_played(match.competition.game, 0, seating, result)
    match_record_result(match=match, result=match_result([played], len(seating)))


def test_two_player_results_say_who_beat_whom_and_a_draw_says_drew() -> None:
    competition = round_robin(3)
    first, second = competition.matches.order_by("pk")[:2]
    record(first, WON)
    record(second, DREW)
    lines = competition_results(competition, None).lines
    names = [[p.entrant.name for p in m.participants.order_by("seat")] for m in (first, second)]
    assert [line.words for line in lines] == [
        f"{names[1][0]} and {names[1][1]} drew",
        f"{names[0][0]} beat {names[0][1]}",
    ]
    assert [line.match_id for line in lines] == [second.pk, first.pk]


def test_a_larger_table_lists_its_places_with_shared_ones_marked() -> None:
    competition = round_robin(3, game="punk", players=3)
    match = competition.matches.get()
    record(match, {"scores": [5, 5, 1], "ranks": [1, 1, 3]})
    seated = [p.entrant.name for p in match.participants.order_by("seat")]
    (line,) = competition_results(competition, None).lines
    assert line.words == f"1st= {seated[0]}, 1st= {seated[1]}, 3rd {seated[2]}"


@pytest.mark.parametrize("entrants", [4, 8])
def test_the_page_lists_the_newest_results_in_the_same_queries_however_many(
    entrants: int, django_assert_num_queries: Any
) -> None:
    competition = round_robin(entrants)
    for match in competition.matches.all():
        record(match, WON)
    with django_assert_num_queries(3):  # how many, the page of matches with their round, the seats
        lines = competition_results(competition, "1").lines
    assert len(lines) == min(RESULTS_PER_PAGE, competition.matches.count())
    html = Client().get(reverse("site:competition", args=[competition.pk])).content.decode()
    assert html.count('href="/play/matches/') >= len(lines)
    assert ("Older results" in html) == (competition.matches.count() > RESULTS_PER_PAGE)


def test_a_page_number_past_the_end_or_not_a_number_shows_a_page_not_an_error() -> None:
    competition = round_robin(3)
    for match in competition.matches.all():
        record(match, WON)
    for asked in ("99", "two", "-1"):
        response = Client().get(reverse("site:competition", args=[competition.pk]), {"results": asked})
        assert response.status_code == 200 and "beat" in response.content.decode()
