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
