"""Head to head (issue 13, "Seeing it"): results between every two entrants, in the API and the admin site."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from django.test import Client

from tests.factories import CompetitionFactory, EntrantFactory, PlayerFactory, UserFactory
from tests.league.test_api_support import client_for
from tests.tournaments.helpers import game_played, match_between, match_result, started
from tests.tournaments.test_admin import change_url, table_rows
from tournaments.models import Competition, Entrant, Match, MatchParticipant
from tournaments.services.play import competition_play_pending
from tournaments.services.results import match_record_result

pytestmark = pytest.mark.django_db


def matrix(competition: Competition, **query: Any) -> Any:
    return client_for().get(f"/api/tournaments/{competition.pk}/head-to-head/", query)


def test_two_player_results_read_as_won_drawn_lost_from_both_sides() -> None:
    competition = CompetitionFactory(game="war")
    a, b, c = (EntrantFactory(competition=competition, name=n) for n in "ABC")
    started(competition)
    for (first, second), ranks in (((a, b), (1, 2)), ((a, c), (1, 1))):
        match = match_between(competition, first, second)
        seats = [p.entrant_id for p in match.participants.order_by("seat")]
        by_seat = [ranks[0] if e == first.pk else ranks[1] for e in seats]
        games = [game_played("war", 0, [0, 1], {"ranks": by_seat, "scores": [0, 0], "rounds": 1})]
        match_record_result(match=match, result=match_result(games, 2))
    body = matrix(competition).json()
    assert [e["name"] for e in body["entrants"]] == ["A", "B", "C"]
    cells = {
        (row["entrant"]["name"], Entrant.objects.get(pk=cell["entrant"]).name): (
            cell["ahead"],
            cell["level"],
            cell["behind"],
        )
        for row in body["rows"]
        for cell in row["against"]
    }
    assert cells == {
        ("A", "B"): (1, 0, 0),
        ("B", "A"): (0, 0, 1),
        ("A", "C"): (0, 1, 0),
        ("C", "A"): (0, 1, 0),
        ("B", "C"): (0, 0, 0),  # their match is not played yet
        ("C", "B"): (0, 0, 0),
    }


def test_a_multiplayer_table_counts_every_pair_of_its_seats() -> None:
    competition = CompetitionFactory(game="punk", players_per_match=4, games_per_match=2)
    EntrantFactory.create_batch(5, competition=competition)
    started(competition)
    competition_play_pending(competition=competition)
    body = matrix(competition).json()
    ranks = {}
    for match in Match.objects.filter(competition=competition, status=Match.Status.DONE):
        ranks[match.pk] = dict(MatchParticipant.objects.filter(match=match).values_list("entrant_id", "rank"))
    for row in body["rows"]:
        me = row["entrant"]["id"]
        for cell in row["against"]:
            shared = [table for table in ranks.values() if me in table and cell["entrant"] in table]
            expected = (
                sum(t[me] < t[cell["entrant"]] for t in shared),
                sum(t[me] == t[cell["entrant"]] for t in shared),
                sum(t[me] > t[cell["entrant"]] for t in shared),
            )
            assert (cell["ahead"], cell["level"], cell["behind"]) == expected
    # Each meeting is counted once from each side, mirrored.
    cells = {(row["entrant"]["id"], c["entrant"]): c for row in body["rows"] for c in row["against"]}
    for (me, other), cell in cells.items():
        assert (cell["ahead"], cell["behind"]) == (cells[(other, me)]["behind"], cells[(other, me)]["ahead"])
    assert sum(c["ahead"] + c["level"] + c["behind"] for c in cells.values()) > 0


def test_one_row_on_request_and_refusals_that_say_why() -> None:
    competition = CompetitionFactory()
    first, second = EntrantFactory.create_batch(2, competition=competition)
    row = matrix(competition, entrant=first.pk).json()
    assert [r["entrant"]["id"] for r in row["rows"]] == [first.pk]
    assert [c["entrant"] for c in row["rows"][0]["against"]] == [second.pk]
    stranger = EntrantFactory()
    refused = matrix(competition, entrant=stranger.pk)
    assert refused.status_code == 404
    assert refused.json() == {"detail": f"entrant {stranger.pk} is not in this competition"}
    assert matrix(competition, entrant="x").status_code == 400


def test_a_large_competition_is_served_row_by_row(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tournaments.api.competitions.MAX_MATRIX_ENTRANTS", 2)
    competition = CompetitionFactory()
    entrants = EntrantFactory.create_batch(3, competition=competition)
    refused = matrix(competition)
    assert refused.status_code == 400
    assert refused.json() == {"entrant": ["3 entrants make too large a matrix: ask for one row with ?entrant=<id>"]}
    assert matrix(competition, entrant=entrants[0].pk).status_code == 200


def test_the_admin_page_shows_the_matrix(client: Client) -> None:
    competition = CompetitionFactory(game="war", games_per_match=3)
    for name in ("Ann", "Ben", "Cy"):
        EntrantFactory(competition=competition, name=name)
    started(competition)
    competition_play_pending(competition=competition)
    client.force_login(PlayerFactory(user=UserFactory(username="root", is_staff=True, is_superuser=True)).user)
    rows = table_rows(client.get(change_url(competition)).content.decode(), "head-to-head")
    assert rows[0] == ["Entrant", "Ann", "Ben", "Cy"]
    body = matrix(competition).json()
    for line, row in zip(rows[1:], body["rows"], strict=True):
        cells = [f"{c['ahead']}–{c['level']}–{c['behind']}" for c in row["against"]]
        assert [cell for cell in line[1:] if cell != "·"] == cells
    for (i, a), (j, b) in itertools.permutations(enumerate(rows[1:], start=1), 2):
        won, drawn, lost = map(int, a[j].split("–"))
        assert (won, drawn, lost) == tuple(map(int, b[i].split("–")))[::-1]
