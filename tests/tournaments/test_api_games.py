"""/api/games/: games without seeds, and records shown public or private by who asks."""

from __future__ import annotations

import pytest

from tests.factories import CompetitionFactory, EntrantFactory, full_options
from tests.league.test_api_support import ROLES, Cast, add_entrants, client_for, make_cast, results
from tests.tournaments.helpers import game_played, match_between, match_result, started
from tournaments.models import Competition, Game
from tournaments.services.play import competition_play_pending
from tournaments.services.results import match_record_result

pytestmark = pytest.mark.django_db


def played_with_owner(cast: Cast) -> Game:
    """A played Banter match between the owner's bot and another; its first game."""
    EntrantFactory(competition=cast.competition, bot_version=cast.version)
    add_entrants(cast.competition, 1)
    started(cast.competition)
    competition_play_pending(competition=cast.competition)
    return Game.objects.filter(match__competition=cast.competition).first()


def test_a_game_shows_its_result_but_never_its_seed_or_deal() -> None:
    game = played_with_owner(make_cast("banter"))
    body = client_for().get(f"/api/games/{game.pk}/").json()
    assert body["result"] == game.result and body["options"] == game.options
    assert not {"seed", "deal", "record"} & set(body)


@pytest.mark.parametrize(
    ("role", "visibility"),
    [
        ("anonymous", "public"),
        ("stranger", "public"),
        ("member", "public"),
        ("owner", "private"),
        ("organiser", "private"),
    ],
)
def test_the_record_is_private_only_for_organisers_and_owners_of_bots_that_played(role: str, visibility: str) -> None:
    assert role in ROLES
    cast = make_cast("banter")
    game = played_with_owner(cast)
    response = cast.client(role).get(f"/api/games/{game.pk}/record/")
    assert response.status_code == 200
    body = response.json()
    assert body["visibility"] == visibility
    if visibility == "private":
        assert body["record"] == game.record and body["record"]["seed"] == game.seed
    else:
        assert "seed" not in body["record"] and "deal" not in body["record"]
        assert body["record"]["actions"] == game.record["actions"]
        # A spectator's view before the first step and after each one; no hands are shown.
        assert len(body["record"]["views"]) == len(game.record["actions"]) + 1
        assert all(view["hand"] is None for view in body["record"]["views"])


def test_a_person_who_played_sees_the_private_record_and_a_person_who_did_not_sees_the_public_one() -> None:
    cast = make_cast("banter")
    person = EntrantFactory(competition=cast.competition, bot_version=None, player=cast.member, name="Member")
    bot = EntrantFactory(competition=cast.competition, bot_version=cast.version)
    started(cast.competition)
    # Refereed play is not in the service yet, so the person's game is recorded by hand.
    match = match_between(cast.competition, person, bot)
    result = {"ranks": [1, 2], "scores": [40, 12], "race": [[40, 12]], "play_on_rounds": []}
    match_record_result(match=match, result=match_result([game_played("banter", 0, [0, 1], result)], 2))
    game = Game.objects.get(match=match)
    body = cast.client("member").get(f"/api/games/{game.pk}/record/").json()
    assert body == {"visibility": "private", "record": game.record}
    assert cast.client("stranger").get(f"/api/games/{game.pk}/record/", {"view": "private"}).status_code == 403


def test_insiders_may_ask_for_the_public_view_and_outsiders_may_not_ask_for_the_private_one() -> None:
    cast = make_cast("banter")
    game = played_with_owner(cast)
    url = f"/api/games/{game.pk}/record/"
    assert cast.client("owner").get(url, {"view": "public"}).json()["visibility"] == "public"
    assert cast.client("stranger").get(url, {"view": "private"}).status_code == 403
    assert client_for().get(url, {"view": "private"}).status_code == 403
    bad = cast.client("owner").get(url, {"view": "secret"})
    assert bad.status_code == 400 and bad.json() == {"view": ['"secret" is not a valid choice.']}


def test_games_filter_by_competition_match_and_winner() -> None:
    cast = make_cast("banter")
    game = played_with_owner(cast)
    CompetitionFactory()
    client = client_for()
    assert [r["id"] for r in results(client.get("/api/games/", {"competition": cast.competition.pk}))] == [game.pk]
    assert [r["id"] for r in results(client.get("/api/games/", {"match": game.match_id}))] == [game.pk]
    assert [r["id"] for r in results(client.get("/api/games/", {"winner": game.winner_id}))] == [game.pk]
    assert client.get("/api/games/", {"recorded_after": "yesterday"}).status_code == 400


def test_the_game_list_costs_two_queries_however_long(django_assert_num_queries) -> None:
    competition = CompetitionFactory(game="war", games_per_match=2, options=full_options("war", 2))
    add_entrants(competition, 3)
    started(competition)
    competition_play_pending(competition=competition)
    assert competition.matches.count() == 3
    with django_assert_num_queries(2):  # count + page, match and competition joined, records left behind
        rows = results(client_for().get("/api/games/"))
    assert len(rows) == 6 and {r["game"] for r in rows} == {"war"}
    assert Competition.objects.get(pk=competition.pk).status == Competition.Status.FINISHED
