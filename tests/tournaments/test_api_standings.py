"""/api/tournaments/{id}/standings/ and rounds/: the table with exact points, tiebreaks and shared ranks."""

from __future__ import annotations

import pytest
from rest_framework.pagination import PageNumberPagination

from tests.factories import CompetitionFactory, EntrantFactory, full_options
from tests.league.test_api_support import add_entrants, client_for, results
from tests.tournaments.helpers import game_played, match_between, match_result, seats_of, started
from tournaments.models import Competition
from tournaments.services.play import competition_play_pending
from tournaments.services.results import match_record_result

pytestmark = pytest.mark.django_db


def four_player_1923() -> Competition:
    """One four-player 1923 match: A wins; B, C and D share second place, so each scores 1/3.

    B and C are level on every tiebreak too; D has fewer set points.
    """
    competition = CompetitionFactory(game="1923", players_per_match=4, options=full_options("1923", 4))
    a, b, c, d = (EntrantFactory(competition=competition, name=name) for name in "ABCD")
    started(competition)
    match = match_between(competition, a, b, c, d)
    figures = {a.pk: (30, 40), b.pk: (10, 20), c.pk: (10, 20), d.pk: (5, 30)}
    order = seats_of(match)
    result = {
        "ranks": [1 if e == a.pk else 2 for e in order],
        "scores": [figures[e][0] for e in order],
        "points": [figures[e][0] for e in order],
        "cards": [figures[e][1] for e in order],
    }
    match_record_result(match=match, result=match_result([game_played("1923", 0, [0, 1, 2, 3], result)], 4))
    return competition


def test_standings_show_exact_points_every_tiebreak_column_and_shared_ranks() -> None:
    competition = four_player_1923()
    rows = results(client_for().get(f"/api/tournaments/{competition.pk}/standings/"))

    def brief(row: dict) -> tuple:
        return (
            row["rank"],
            row["entrant"]["name"],
            (row["played"], row["won"], row["drawn"], row["lost"]),
            row["match_points"],
            row["match_points_exact"],
            [(t["field"], t["value"], t["exact"]) for t in row["tiebreaks"]],
        )

    third = [("match_points", "0.333333", "1/3")]
    assert [brief(row) for row in rows] == [
        (
            1,
            "A",
            (1, 1, 0, 0),
            "1",
            "1",
            [("match_points", "1", "1"), ("set_points", "30", "30"), ("cards_won", "40", "40")],
        ),
        (2, "B", (1, 0, 0, 1), "0.333333", "1/3", [*third, ("set_points", "10", "10"), ("cards_won", "20", "20")]),
        (2, "C", (1, 0, 0, 1), "0.333333", "1/3", [*third, ("set_points", "10", "10"), ("cards_won", "20", "20")]),
        (4, "D", (1, 0, 0, 1), "0.333333", "1/3", [*third, ("set_points", "5", "5"), ("cards_won", "30", "30")]),
    ]
    assert [t["label"] for t in rows[0]["tiebreaks"]] == ["Match points", "Set points", "Cards won"]
    for row in rows:
        assert row["ordinal"] == pytest.approx(row["mu"] - 3 * row["sigma"])
    # The three who shared second place in the match are rated alike, below the winner.
    assert rows[0]["mu"] > rows[1]["mu"] == rows[2]["mu"] == rows[3]["mu"]


def test_standings_are_paginated_after_ranking_the_whole_table(monkeypatch: pytest.MonkeyPatch) -> None:
    competition = four_player_1923()
    monkeypatch.setattr(PageNumberPagination, "page_size", 2)
    second_page = client_for().get(f"/api/tournaments/{competition.pk}/standings/", {"page": 2}).json()
    assert second_page["count"] == 4
    assert [(row["rank"], row["entrant"]["name"]) for row in second_page["results"]] == [(2, "C"), (4, "D")]


def test_the_standings_cost_two_queries_however_long(django_assert_num_queries) -> None:
    competition = CompetitionFactory(game="war")
    add_entrants(competition, 6)
    started(competition)
    with django_assert_num_queries(2):  # the competition + the rows with their entrants
        rows = results(client_for().get(f"/api/tournaments/{competition.pk}/standings/"))
    assert len(rows) == 6 and {row["rank"] for row in rows} == {1}


def test_rounds_list_every_match_with_its_participants_in_a_fixed_number_of_queries(django_assert_num_queries) -> None:
    competition = CompetitionFactory(game="war")
    add_entrants(competition, 6)
    started(competition)
    competition_play_pending(competition=competition)
    with django_assert_num_queries(6):  # competition + count + rounds + matches + participants + the entrants (byes)
        rounds = results(client_for().get(f"/api/tournaments/{competition.pk}/rounds/"))
    assert [r["number"] for r in rounds] == [1, 2, 3, 4, 5]
    assert all(len(r["matches"]) == 3 for r in rounds)
    participant = rounds[0]["matches"][0]["participants"][0]
    assert set(participant) == {"seat", "entrant", "score", "rank", "match_points", "match_points_exact"}
    assert participant["match_points"] in {"0", "0.5", "1"}
