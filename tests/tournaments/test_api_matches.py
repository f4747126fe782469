"""/api/matches/: lists with filters, one match's sets, Banter's race to 40, 1923's set table, retries."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from tests.factories import (
    BotFactory,
    BotVersionFactory,
    CompetitionFactory,
    EntrantFactory,
    PlayerFactory,
    full_options,
)
from tests.league.test_api_support import add_entrants, client_for, make_cast, results
from tests.tournaments.helpers import game_played, match_between, match_result, seats_of, started
from tournaments.models import Competition, Match
from tournaments.services.play import competition_play_pending
from tournaments.services.results import match_record_result

pytestmark = pytest.mark.django_db


def played(game: str, entrants: int, **fields: Any) -> Competition:
    competition = CompetitionFactory(game=game, options=full_options(game, 2), **fields)
    add_entrants(competition, entrants)
    started(competition)
    competition_play_pending(competition=competition)
    return competition


def test_the_match_list_costs_four_queries_however_long(django_assert_num_queries) -> None:
    played("war", 4, games_per_match=2)
    with django_assert_num_queries(4):  # count + page (competition and round joined) + participants + games
        rows = results(client_for().get("/api/matches/"))
    assert len(rows) == 6
    assert all(len(r["participants"]) == 2 and len(r["games"]) == 2 for r in rows)
    assert all(r["status"] == "done" and r["game"] == "war" for r in rows)
    assert "record" not in rows[0]["games"][0] and "seed" not in rows[0]


def test_matches_filter_by_competition_status_player_entrant_game_and_dates() -> None:
    war = played("war", 3)
    banter = CompetitionFactory(game="banter", options=full_options("banter", 2))
    owner = PlayerFactory()
    mine = EntrantFactory(competition=banter, bot_version__bot__owner=owner)
    add_entrants(banter, 2)
    started(banter)
    client = client_for()

    def ids(**query: Any) -> set[int]:
        return {row["id"] for row in results(client.get("/api/matches/", query))}

    war_ids = set(Match.objects.filter(competition=war).values_list("id", flat=True))
    banter_ids = set(Match.objects.filter(competition=banter).values_list("id", flat=True))
    mine_ids = set(Match.objects.filter(participants__entrant=mine).values_list("id", flat=True))
    assert ids(competition=war.pk) == war_ids
    assert ids(status="pending") == banter_ids and ids(status="done") == war_ids
    assert ids(game="banter") == banter_ids
    assert ids(player=owner.pk) == mine_ids and len(mine_ids) == 2
    assert ids(entrant=mine.pk) == mine_ids
    tomorrow = (timezone.now() + timedelta(days=1)).date().isoformat()
    assert ids(created_after=tomorrow) == set()
    assert ids(finished_before=tomorrow) == war_ids
    assert client.get("/api/matches/", {"status": "lost"}).status_code == 400
    assert client.get("/api/matches/", {"player": "me"}).json() == {"player": ["Enter a whole number."]}


def test_one_match_lists_its_games_and_stored_sets() -> None:
    competition = played("1923", 2)
    match = competition.matches.get()
    body = client_for().get(f"/api/matches/{match.pk}/").json()
    assert body["round"] == 1 and body["game"] == "1923"
    assert len(body["games"]) == 1 and body["games"][0]["result"]["set_table"]
    assert len(body["sets"]) == len(body["games"][0]["result"]["set_table"])
    assert sorted(body["sets"][0]["scores"]) == sorted(str(p["entrant"]["id"]) for p in body["participants"])
    assert sorted(p["rank"] for p in body["participants"]) in ([1, 2], [1, 1])


def test_the_banter_race_shows_totals_per_round_and_marks_play_on_rounds() -> None:
    competition = CompetitionFactory(game="banter", options=full_options("banter", 2))
    a, b = EntrantFactory(competition=competition, name="A"), EntrantFactory(competition=competition, name="B")
    started(competition)
    match = match_between(competition, a, b)
    order = seats_of(match)
    # Level at 40 after round 2, so round 3 is played on; A ends 42-40.
    race = {a.pk: [20, 40, 42], b.pk: [20, 40, 40]}
    result = {
        "ranks": [1 if e == a.pk else 2 for e in order],
        "scores": [race[e][-1] for e in order],
        "race": [[race[e][r] for e in order] for r in range(3)],
        "play_on_rounds": [3],
    }
    match_record_result(match=match, result=match_result([game_played("banter", 0, [0, 1], result)], 2))

    games = results(client_for().get(f"/api/matches/{match.pk}/race/"))

    assert len(games) == 1 and games[0]["target"] == 40 and games[0]["winner"] == a.pk
    rounds = games[0]["rounds"]
    assert [(r["number"], r["play_on"], r["passed_target"]) for r in rounds] == [
        (1, False, []),
        (2, False, sorted([a.pk, b.pk])),
        (3, True, sorted([a.pk, b.pk])),
    ]
    assert {(p["name"], p["points"], p["total"]) for p in rounds[2]["points"]} == {("A", 2, 42), ("B", 0, 40)}


def test_the_1923_set_table_shows_cards_aces_and_points_per_set() -> None:
    competition = CompetitionFactory(game="1923", options=full_options("1923", 2))
    a, b = EntrantFactory(competition=competition, name="A"), EntrantFactory(competition=competition, name="B")
    started(competition)
    match = match_between(competition, a, b)
    order = seats_of(match)
    sets = {a.pk: [(30, 3, 33), (20, 1, -1)], b.pk: [(22, 1, -1), (32, 3, 35)]}
    result = {
        "ranks": [1 if e == a.pk else 2 for e in order],
        "scores": [0, 0],
        "points": [sum(s[2] for s in sets[e]) for e in order],
        "cards": [sum(s[0] for s in sets[e]) for e in order],
        "set_table": [
            {key: [sets[e][n][i] for e in order] for i, key in enumerate(("cards", "aces", "points"))} for n in (0, 1)
        ],
    }
    match_record_result(match=match, result=match_result([game_played("1923", 0, [0, 1], result)], 2))

    games = results(client_for().get(f"/api/matches/{match.pk}/sets/"))

    assert games[0]["columns"] == [
        {"key": "cards", "label": "Cards"},
        {"key": "aces", "label": "Aces"},
        {"key": "points", "label": "Points"},
    ]
    table = [
        [(s["name"], s["figures"]["cards"], s["figures"]["aces"], s["figures"]["points"]) for s in row["scores"]]
        for row in games[0]["sets"]
    ]
    # Each set lists entrants by id: A joined first.
    assert a.pk < b.pk
    expected = [[("A", 30, 3, 33), ("B", 22, 1, -1)], [("A", 20, 1, -1), ("B", 32, 3, 35)]]
    assert table == expected


def test_race_and_sets_exist_only_for_their_own_game() -> None:
    war = played("war", 2).matches.get()
    banter = played("banter", 2).matches.get()
    client = client_for()
    assert client.get(f"/api/matches/{war.pk}/race/").status_code == 404
    assert client.get(f"/api/matches/{war.pk}/sets/").status_code == 404
    refused = client.get(f"/api/matches/{banter.pk}/sets/")
    assert refused.status_code == 404
    assert refused.json()["detail"] == "this match's game (banter) has no sets: see /api/games/ for its results"
    assert client.get(f"/api/matches/{banter.pk}/race/").status_code == 200
    assert client.get("/api/matches/999999/race/").status_code == 404


@pytest.mark.parametrize("game", ["banter", "1923"])
def test_race_and_set_tables_cost_four_queries_however_many_games(game: str, django_assert_num_queries) -> None:
    match = played(game, 2, games_per_match=6).matches.get()
    view = "race" if game == "banter" else "sets"
    with django_assert_num_queries(4):  # the match + entrant names + games + their sets
        games = results(client_for().get(f"/api/matches/{match.pk}/{view}/"))
    assert [g["number"] for g in games] == [0, 1, 2, 3, 4, 5]


def test_an_organiser_sends_a_match_in_error_back_to_pending_once(
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    cast = make_cast()
    cast.competition.game = "1923"
    cast.competition.options = full_options("1923", 2)
    cast.competition.save()
    add_entrants(cast.competition, 1)
    # A version whose strategy the engine does not know cannot be played: its match ends in error.
    broken = BotVersionFactory(bot=BotFactory(game="1923"), strategy="no-such-strategy")
    EntrantFactory(competition=cast.competition, bot_version=broken)
    client = cast.client("organiser")
    base = f"/api/tournaments/{cast.competition.pk}"
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"{base}/start/")
    match = Match.objects.get(competition=cast.competition)
    assert match.status == Match.Status.ERROR
    retried = client.post(f"/api/matches/{match.pk}/retry/")
    assert retried.status_code == 200
    assert (retried.json()["status"], retried.json()["error"]) == ("pending", "")
    again = client.post(f"/api/matches/{match.pk}/retry/")
    assert again.status_code == 400
    assert again.json() == {"status": ["only a match in error can be retried; this one is pending"]}
    assert client.get(f"{base}/progress/").json()["pending"] == 1
