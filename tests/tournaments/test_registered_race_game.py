"""A registered game whose profile breaks its games down into a race and counts a figure in won games
only (tests/engine/high_race.py): recorded, ordered and shown by the service without naming it."""

from __future__ import annotations

import html
from collections.abc import Iterator

import pytest
from django.test import Client

from engine.games import register_game, unregister_game
from tests.factories import CompetitionFactory, EntrantFactory, PlayerFactory, UserFactory
from tests.league.test_api_support import client_for, results
from tests.tournaments.helpers import started
from tests.tournaments.test_admin import change_url
from tournaments.models import Competition, Game, Match
from tournaments.services.play import competition_play_pending

pytestmark = pytest.mark.django_db


@pytest.fixture
def race_competition() -> Iterator[Competition]:
    register_game("highrace", "tests.engine.high_race")
    try:
        competition = CompetitionFactory(game="highrace", options={"hand_size": 5}, games_per_match=4)
        EntrantFactory.create_batch(3, competition=competition)
        started(competition)
        competition_play_pending(competition=competition)
        yield competition
    finally:
        unregister_game("highrace")


def test_the_race_is_stored_and_served_as_the_profile_says(race_competition: Competition) -> None:
    api = client_for()
    for match in Match.objects.filter(competition=race_competition):
        assert match.status == Match.Status.DONE
        games = {game.pk: game for game in Game.objects.filter(match=match)}
        races = results(api.get(f"/api/matches/{match.pk}/race/"))
        assert len(races) == 4
        for race in races:
            assert race["target"] == 2
            stored = games[race["game"]]
            totals = {entrant: 0 for entrant in stored.seating}
            for trick, row in zip(stored.result["tricks"], race["rounds"], strict=True):
                taker = trick["taken_by"]
                if taker is not None:
                    totals[stored.seating[taker]] += 1
                assert {p["entrant"]: p["total"] for p in row["points"]} == totals
                assert sorted(row["passed_target"]) == sorted(e for e, total in totals.items() if total >= 2)
        assert api.get(f"/api/matches/{match.pk}/sets/").status_code == 404


def test_standings_count_the_figure_in_won_games_only(race_competition: Competition) -> None:
    games = list(Game.objects.filter(match__competition=race_competition))
    won: dict[int, int] = {}
    in_wins: dict[int, int] = {}
    for game in games:
        winner = game.result["winner"]
        if winner is not None:
            entrant = game.seating[winner]
            won[entrant] = won.get(entrant, 0) + 1
            in_wins[entrant] = in_wins.get(entrant, 0) + game.result["scores"][winner]
    rows = results(client_for().get(f"/api/tournaments/{race_competition.pk}/standings/"))
    assert [t["field"] for t in rows[0]["tiebreaks"]] == ["match_points", "games_won", "tricks_in_wins"]
    for row in rows:
        entrant = row["entrant"]["id"]
        figures = {t["field"]: t["exact"] for t in row["tiebreaks"]}
        assert (figures["games_won"], figures["tricks_in_wins"]) == (
            str(won.get(entrant, 0)),
            str(in_wins.get(entrant, 0)),
        )
    assert sum(won.values()) > 0


def test_the_admin_pages_draw_the_race_to_the_profile_s_target(client: Client, race_competition: Competition) -> None:
    client.force_login(PlayerFactory(user=UserFactory(username="root", is_staff=True, is_superuser=True)).user)
    page = html.unescape(client.get(change_url(race_competition)).content.decode())
    assert "Tricks in games won" in page and "Games won" in page
    assert "at 2 or more" in page
    match = Match.objects.filter(competition=race_competition).first()
    page = html.unescape(client.get(change_url(match)).content.decode())
    assert "Race to 2" in page
