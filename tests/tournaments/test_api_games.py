"""/api/games/: games without seeds, and records shown public or private by who asks."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.record import Record
from engine.verify import expand_views, public_record
from tests.factories import CompetitionFactory, EntrantFactory, full_options
from tests.league.test_api_support import ROLES, Cast, add_entrants, client_for, make_cast, results
from tests.tournaments.helpers import game_played, match_between, match_result, started
from tournaments import public_records
from tournaments.models import Competition, Game, Match
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
        # A spectator's view before the first step and what each step changed in it; no hands are shown.
        views = body["record"]["views"]
        assert len(views["steps"]) == len(game.record["actions"])
        assert all(view["hand"] is None for view in expand_views(views))


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


def counted_builds(monkeypatch: pytest.MonkeyPatch) -> list[Record]:
    """Every public record built from here on (tournaments/public_records.py builds them)."""
    built: list[Record] = []

    def build(record: Record) -> dict[str, Any]:
        built.append(record)
        return public_record(record)

    monkeypatch.setattr(public_records, "public_record", build)
    return built


def test_a_public_record_is_built_once_and_then_served_without_reading_the_record(
    monkeypatch: pytest.MonkeyPatch, django_assert_num_queries: Any
) -> None:
    game = played_with_owner(make_cast("banter"))
    built = counted_builds(monkeypatch)
    url = f"/api/games/{game.pk}/record/"
    first = client_for().get(url)
    with django_assert_num_queries(1):  # the game with its match and competition; the record stays behind
        again = client_for().get(url)
    assert len(built) == 1
    assert first.status_code == again.status_code == 200 and first.content == again.content
    assert again.json()["record"] == json.loads(json.dumps(public_record(Record.from_dict(game.record))))
    # The browsable API decodes the same cached record.
    assert client_for().get(url, HTTP_ACCEPT="text/html").status_code == 200
    assert len(built) == 1


def test_a_public_record_of_a_game_whose_match_is_not_done_is_built_for_each_request_and_never_cached(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = played_with_owner(make_cast("banter"))
    Match.objects.filter(pk=game.match_id).update(status=Match.Status.LIVE)
    built = counted_builds(monkeypatch)
    url = f"/api/games/{game.pk}/record/"
    assert client_for().get(url).json() == client_for().get(url).json()
    assert len(built) == 2
    Match.objects.filter(pk=game.match_id).update(status=Match.Status.DONE)
    client_for().get(url)
    client_for().get(url)
    assert len(built) == 3


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
