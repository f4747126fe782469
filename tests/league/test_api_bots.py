"""/api/bots/ and their versions: owners write, anyone reads, bad input is a 400 that names the field."""

from __future__ import annotations

import pytest

from league.models import Bot, BotVersion
from tests.factories import BotFactory, BotVersionFactory, PlayerFactory, UserFactory
from tests.league.test_api_support import client_for, results

pytestmark = pytest.mark.django_db


def test_creating_a_bot_makes_the_caller_its_owner_creating_their_profile_on_first_use() -> None:
    user = UserFactory(username="grace")
    response = client_for(user).post("/api/bots/", {"name": "Counter", "game": "banter"}, format="json")
    assert response.status_code == 201
    body = response.json()
    assert body["name"] == "Counter" and body["game"] == "banter" and body["version_count"] == 0
    assert Bot.objects.get(pk=body["id"]).owner.user == user
    assert body["owner"]["display_name"] == "grace"


@pytest.mark.parametrize(
    ("payload", "field", "message"),
    [
        ({"name": "x", "game": "chess"}, "game", 'unknown game "chess": choose one of war, 1923, banter, punk'),
        ({"name": "x", "game": 7}, "game", 'unknown game "7": choose one of war, 1923, banter, punk'),
        ({"game": "war"}, "name", "This field is required."),
        ({"name": ["a"], "game": "war"}, "name", "Not a valid string."),
        ({"name": "x" * 81, "game": "war"}, "name", "Ensure this field has no more than 80 characters."),
    ],
)
def test_bad_bot_input_is_a_400_naming_the_field(payload: dict[str, object], field: str, message: str) -> None:
    response = client_for(PlayerFactory().user).post("/api/bots/", payload, format="json")
    assert response.status_code == 400
    assert response.json() == {field: [message]}


def test_a_second_bot_with_the_same_name_is_refused() -> None:
    bot = BotFactory(name="Twin")
    response = client_for(bot.owner.user).post("/api/bots/", {"name": "Twin", "game": "war"}, format="json")
    assert response.status_code == 400
    assert response.json() == {"name": ["you already have a bot called 'Twin'"]}


def test_the_owner_renames_retires_and_deletes_a_bot_without_versions() -> None:
    bot = BotFactory(name="Old")
    client = client_for(bot.owner.user)
    renamed = client.patch(f"/api/bots/{bot.pk}/", {"name": "New", "description": "d"}, format="json")
    assert renamed.status_code == 200 and renamed.json()["name"] == "New"
    retired = client.post(f"/api/bots/{bot.pk}/retire/")
    assert retired.status_code == 200 and retired.json()["retired_at"] is not None
    assert client.delete(f"/api/bots/{bot.pk}/").status_code == 204
    assert not Bot.objects.filter(pk=bot.pk).exists()


def test_a_bot_with_versions_cannot_be_deleted_only_retired() -> None:
    version = BotVersionFactory()
    response = client_for(version.bot.owner.user).delete(f"/api/bots/{version.bot_id}/")
    assert response.status_code == 400
    assert "retire" in response.json()["bot"][0]
    assert Bot.objects.filter(pk=version.bot_id).exists()


def test_the_owner_adds_builtin_versions_numbered_in_order() -> None:
    bot = BotFactory(game="banter")
    client = client_for(bot.owner.user)
    first = client.post(f"/api/bots/{bot.pk}/versions/", {"strategy": "random"}, format="json")
    second = client.post(f"/api/bots/{bot.pk}/versions/", {"kind": "builtin", "strategy": "random"}, format="json")
    assert (first.status_code, second.status_code) == (201, 201)
    assert [first.json()["number"], second.json()["number"]] == [1, 2]
    assert second.json()["status"] == "ready"
    shown = client_for().get(f"/api/bots/{bot.pk}/versions/2/")
    assert shown.status_code == 200 and shown.json()["id"] == second.json()["id"]


@pytest.mark.parametrize(
    ("payload", "field", "fragment"),
    [
        ({"strategy": "psychic"}, "strategy", "unknown strategy 'psychic' for war: choose one of random"),
        ({}, "strategy", "a builtin version needs 'strategy'"),
        ({"kind": "upload", "strategy": "random"}, "source", "an upload version needs 'source'"),
        ({"kind": "http"}, "url", "a http version needs 'url'"),
        ({"kind": "http", "url": "http://bot.example/", "strategy": "random"}, "strategy", "is for builtin versions"),
        ({"kind": "http", "url": "ftp://bot.example/"}, "url", "only http and https"),
        ({"kind": "http", "url": "http://127.0.0.1:6379/"}, "url", "127.0.0.1"),
        ({"kind": "http", "url": "http://10.1.2.3/"}, "url", "10.1.2.3"),
        ({"kind": "telepathy", "strategy": "random"}, "kind", '"telepathy" is not a valid choice.'),
        ({"strategy": "random", "parameters": [1]}, "parameters", "Expected a dictionary of items"),
        ({"strategy": "random", "parameters": {"depth": 2}}, "parameters", "built-in strategies take no parameters"),
    ],
)
def test_bad_version_input_is_a_400_naming_the_field(payload: dict[str, object], field: str, fragment: str) -> None:
    bot = BotFactory(game="war")
    response = client_for(bot.owner.user).post(f"/api/bots/{bot.pk}/versions/", payload, format="json")
    assert response.status_code == 400
    assert list(response.json()) == [field]
    assert fragment in response.json()[field][0]
    assert not BotVersion.objects.filter(bot=bot).exists()


def test_a_retired_bot_gets_no_new_versions() -> None:
    bot = BotFactory(retired_at="2025-01-01T00:00:00Z")
    response = client_for(bot.owner.user).post(f"/api/bots/{bot.pk}/versions/", {"strategy": "random"}, format="json")
    assert response.status_code == 400 and response.json() == {"bot": ["this bot is retired"]}


def test_versions_of_a_missing_bot_are_a_404() -> None:
    assert client_for().get("/api/bots/999999/versions/").status_code == 404
    assert client_for(PlayerFactory().user).post("/api/bots/999999/versions/", {}, format="json").status_code == 404


def test_bots_filter_by_game_owner_and_retirement() -> None:
    owner = PlayerFactory()
    war = BotFactory(owner=owner, game="war")
    BotFactory(owner=owner, game="punk", retired_at="2025-01-01T00:00:00Z")
    BotFactory(game="war")
    client = client_for()
    assert [r["id"] for r in results(client.get("/api/bots/", {"owner": owner.pk, "game": "war"}))] == [war.pk]
    assert [r["game"] for r in results(client.get("/api/bots/", {"owner": owner.pk, "retired": "true"}))] == ["punk"]
    assert client.get("/api/bots/", {"game": "chess"}).status_code == 400
    assert "game" in client.get("/api/bots/", {"game": "chess"}).json()


def test_the_bot_list_costs_two_queries_however_long(django_assert_num_queries) -> None:
    for bot in BotFactory.create_batch(6):
        BotVersionFactory.create_batch(2, bot=bot)
    with django_assert_num_queries(2):  # count + page (owners joined, versions counted in the same query)
        rows = results(client_for().get("/api/bots/"))
    assert len(rows) == 6 and {r["version_count"] for r in rows} == {2}


def test_the_version_list_costs_three_queries_however_long(django_assert_num_queries) -> None:
    bot = BotFactory()
    for number in range(1, 7):
        BotVersionFactory(bot=bot, number=number)
    with django_assert_num_queries(3):  # the bot + count + page
        rows = results(client_for().get(f"/api/bots/{bot.pk}/versions/"))
    assert [r["number"] for r in rows] == [1, 2, 3, 4, 5, 6]
