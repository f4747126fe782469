"""Standings follow each game's own order; expected tables are written out by hand."""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import pytest

from tests.factories import CompetitionFactory, EntrantFactory, full_options
from tests.league.test_api_support import client_for
from tests.tournaments.helpers import game_played, match_between, match_result, seats_of, started
from tournaments.models import Competition, Entrant
from tournaments.selectors import competition_standings
from tournaments.services.results import match_record_result

pytestmark = pytest.mark.django_db


def record_two_player(
    competition: Competition, a: Entrant, b: Entrant, per_entrant: dict[int, dict[str, Any]], keys: tuple[str, ...]
) -> None:
    """Record a one-game match between a and b; ``per_entrant`` gives each one's rank and its ``keys`` figures."""
    match = match_between(competition, a, b)
    order = seats_of(match)
    result: dict[str, Any] = {"ranks": [per_entrant[e]["rank"] for e in order]}
    for key in keys:
        result[key] = [per_entrant[e][key] for e in order]
    match_record_result(match=match, result=match_result([game_played(competition.game, 0, [0, 1], result)], 2))


def table(competition: Competition) -> list[tuple[int, str, Fraction, list[Any]]]:
    return [
        (row.rank, row.standing.entrant.name, row.match_points, [value for _, value in row.tiebreaks])
        for row in competition_standings(competition)
    ]


def test_1923_players_level_on_match_and_set_points_are_split_by_cards_won() -> None:
    competition = CompetitionFactory(game="1923", options=full_options("1923", 2))
    a, b, c = (EntrantFactory(competition=competition, name=n) for n in "ABC")
    started(competition)
    keys = ("scores", "points", "cards")
    # A beats B, B beats C, C beats A: one win each, 10 set points each; only the cards differ.
    record_two_player(
        competition,
        a,
        b,
        {
            a.pk: {"rank": 1, "scores": 10, "points": 10, "cards": 20},
            b.pk: {"rank": 2, "scores": 0, "points": 0, "cards": 12},
        },
        keys,
    )
    record_two_player(
        competition,
        b,
        c,
        {
            b.pk: {"rank": 1, "scores": 10, "points": 10, "cards": 15},
            c.pk: {"rank": 2, "scores": 0, "points": 0, "cards": 10},
        },
        keys,
    )
    record_two_player(
        competition,
        c,
        a,
        {
            c.pk: {"rank": 1, "scores": 10, "points": 10, "cards": 25},
            a.pk: {"rank": 2, "scores": 0, "points": 0, "cards": 14},
        },
        keys,
    )
    assert table(competition) == [
        (1, "C", Fraction(1), [Fraction(1), 10, 35]),
        (2, "A", Fraction(1), [Fraction(1), 10, 34]),
        (3, "B", Fraction(1), [Fraction(1), 10, 27]),
    ]


def test_war_orders_by_match_points_then_games_won_then_fewer_rounds() -> None:
    competition = CompetitionFactory(game="war", games_per_match=2)
    a, b, c = (EntrantFactory(competition=competition, name=n) for n in "ABC")
    started(competition)

    def play(x: Entrant, y: Entrant, games: list[tuple[Entrant | None, int]]) -> None:
        match = match_between(competition, x, y)
        order = seats_of(match)
        played = []
        for number, (winner, rounds) in enumerate(games):
            seating = [number % 2, (number + 1) % 2]  # participants rotate seats every game
            seat_entrants = [order[p] for p in seating]
            ranks = [1, 1] if winner is None else [1 if e == winner.pk else 2 for e in seat_entrants]
            played.append(game_played("war", number, seating, {"ranks": ranks, "scores": [26, 26], "rounds": rounds}))
        match_record_result(match=match, result=match_result(played, 2))

    # A and B both win one match and draw one (match points 1.5 each) and win three games each;
    # A needed 300 rounds for its game wins, B 500: A ranks above B. C lost everything it could.
    play(a, b, [(a, 100), (b, 200)])  # a draw: one game each
    play(a, c, [(a, 100), (a, 100)])
    play(b, c, [(b, 150), (b, 150)])
    assert table(competition) == [
        (1, "A", Fraction(3, 2), [Fraction(3, 2), 3, 300]),
        (2, "B", Fraction(3, 2), [Fraction(3, 2), 3, 500]),
        (3, "C", Fraction(0), [Fraction(0), 0, 0]),
    ]
    # The API says which way each column ranks (issue 11, finding 11), so a client can check the order.
    rows = client_for().get(f"/api/tournaments/{competition.pk}/standings/").json()["results"]
    orders = [(t["field"], t["order"]) for t in rows[0]["tiebreaks"]]
    assert orders == [("match_points", "higher_first"), ("games_won", "higher_first"), ("rounds_needed", "lower_first")]
    for upper, lower in itertools.pairwise(rows):
        differing = [
            (Fraction(u["exact"]), Fraction(v["exact"]), u["order"])
            for u, v in zip(upper["tiebreaks"], lower["tiebreaks"], strict=True)
            if u["exact"] != v["exact"]
        ]
        above, below, order = differing[0]
        assert above > below if order == "higher_first" else above < below


def test_punk_places_share_points_and_ties_after_every_tiebreak_share_a_rank() -> None:
    competition = CompetitionFactory(game="punk", players_per_match=3, options=full_options("punk", 3))
    a, b, c = (EntrantFactory(competition=competition, name=n) for n in "ABC")
    started(competition)
    match = competition.matches.get()
    order = seats_of(match)
    ranks = {a.pk: 1, b.pk: 1, c.pk: 3}
    scores = {a.pk: 25, b.pk: 25, c.pk: 4}
    result = {"ranks": [ranks[e] for e in order], "scores": [scores[e] for e in order]}
    match_record_result(match=match, result=match_result([game_played("punk", 0, [0, 1, 2], result)], 3))
    # Shared first of three: (0 below... ) = (1 below + ½ × 1 level) / 2 = 3/4 each; last 0.
    assert table(competition) == [
        (1, "A", Fraction(3, 4), [Fraction(3, 4), 25]),
        (1, "B", Fraction(3, 4), [Fraction(3, 4), 25]),
        (3, "C", Fraction(0), [Fraction(0), 4]),
    ]
    rows = {row.standing.entrant.name: row.standing for row in competition_standings(competition)}
    assert (rows["A"].won, rows["A"].drawn, rows["A"].lost) == (0, 1, 0)
    assert (rows["C"].won, rows["C"].drawn, rows["C"].lost) == (0, 0, 1)
    assert rows["A"].mu == rows["B"].mu > 25 > rows["C"].mu


def test_banter_orders_by_match_points_then_trick_points() -> None:
    competition = CompetitionFactory(game="banter", options=full_options("banter", 2))
    a, b, c = (EntrantFactory(competition=competition, name=n) for n in "ABC")
    started(competition)
    keys = ("scores",)
    record_two_player(competition, a, b, {a.pk: {"rank": 1, "scores": 41}, b.pk: {"rank": 2, "scores": 30}}, keys)
    record_two_player(competition, b, c, {b.pk: {"rank": 1, "scores": 40}, c.pk: {"rank": 2, "scores": 39}}, keys)
    record_two_player(competition, c, a, {c.pk: {"rank": 1, "scores": 44}, a.pk: {"rank": 2, "scores": 12}}, keys)
    assert table(competition) == [
        (1, "C", Fraction(1), [Fraction(1), 83]),
        (2, "B", Fraction(1), [Fraction(1), 70]),
        (3, "A", Fraction(1), [Fraction(1), 53]),
    ]
