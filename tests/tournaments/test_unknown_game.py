"""A competition of a game this server was not given (ENGINE_GAMES differs between nodes, or a game
was removed): its pages say so, and its reads answer 409, never a 500."""

from __future__ import annotations

import html
from collections.abc import Iterator

import pytest
from django.test import Client

from engine.games import register_game, unregister_game
from tests.factories import CompetitionFactory, EntrantFactory, PlayerFactory, UserFactory
from tests.league.test_api_support import client_for
from tests.tournaments.helpers import started
from tests.tournaments.test_admin import change_url
from tournaments.models import Competition, Match, Standing

pytestmark = pytest.mark.django_db

NOTE = "unknown game 'highcard': choose one of war, 1923, banter, punk: this server does not have that game"


@pytest.fixture
def forgotten_game() -> Iterator[Competition]:
    """A started competition of the test-only game, which is then unregistered."""
    register_game("highcard", "tests.engine.high_card")
    try:
        competition = CompetitionFactory(game="highcard", options={"hand_size": 3})
        EntrantFactory.create_batch(2, competition=competition)
        started(competition)
    finally:
        unregister_game("highcard")
    yield competition


def test_the_admin_pages_say_the_game_is_missing_instead_of_failing(
    client: Client, forgotten_game: Competition
) -> None:
    client.force_login(PlayerFactory(user=UserFactory(username="root", is_staff=True, is_superuser=True)).user)
    for obj in (forgotten_game, Match.objects.get(competition=forgotten_game)):
        page = client.get(change_url(obj))
        assert page.status_code == 200
        assert NOTE in html.unescape(page.content.decode()).lower()
    standing = Standing.objects.filter(competition=forgotten_game).first()
    page = client.get(change_url(standing))
    assert page.status_code == 200 and NOTE in html.unescape(page.content.decode()).lower()


def test_the_standings_answer_409_naming_the_missing_game(forgotten_game: Competition) -> None:
    answer = client_for().get(f"/api/tournaments/{forgotten_game.pk}/standings/")
    assert answer.status_code == 409
    assert answer.json() == {"detail": f"{NOTE} (ENGINE_GAMES, docs/deploy.md)"}


def test_a_competition_of_a_format_this_server_lacks_is_said_in_words_not_a_500(client: Client) -> None:
    competition = CompetitionFactory()
    Competition.objects.filter(pk=competition.pk).update(format="gone_format")
    page = client.get(f"/competitions/{competition.pk}/")
    assert page.status_code == 200
    assert "no competition format &#x27;gone_format&#x27; on this server, so its standings cannot be shown" in page.text
    shown = client.get(f"/api/tournaments/{competition.pk}/")
    assert shown.status_code == 200 and shown.json()["format"] == "gone_format"
    standings = client.get(f"/api/tournaments/{competition.pk}/standings/")
    assert standings.status_code == 409 and "COMPETITION_FORMATS" in standings.json()["detail"]
