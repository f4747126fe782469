"""The API's edge refuses what a database column or the JSON parser cannot take with a 400, never a 500."""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from tests.factories import PlayerFactory
from tests.league.test_api_support import make_cast
from tests.tournaments.helpers import two_bot_match
from tournaments.models import Match, Standing
from tournaments.services.play import match_play

pytestmark = pytest.mark.django_db

HUGE = "99999999999999999999"


@pytest.mark.parametrize(
    "path",
    [
        f"/api/games/?competition={HUGE}",
        f"/api/bots/?owner={HUGE}",
        f"/api/clubs/?member={HUGE}",
        f"/api/matches/?competition={HUGE}",
        f"/api/players/?club={HUGE}",
        "/api/tournaments/?club=-2e252",
        "/api/tournaments/?club=1.5",
        "/api/matches/?round=-1",
    ],
)
def test_an_id_no_column_holds_is_a_400_naming_the_filter(path: str) -> None:
    response = APIClient().get(path)
    assert response.status_code == 400, response.content
    assert path.split("?")[1].split("=")[0] in response.json()


def test_an_id_within_range_still_filters() -> None:
    assert APIClient().get("/api/matches/?competition=9223372036854775807").status_code == 200


def test_a_huge_entrant_limit_is_a_400() -> None:
    cast = make_cast()
    body = {"club": cast.club.pk, "name": "x", "game": "war", "max_entrants": 10**20}
    response = cast.client("organiser").post("/api/tournaments/", body, format="json")
    assert response.status_code == 400 and "max_entrants" in response.json()
    patched = cast.client("organiser").patch(
        f"/api/tournaments/{cast.competition.pk}/", {"max_entrants": 10**20}, format="json"
    )
    assert patched.status_code == 400 and "max_entrants" in patched.json()


def test_json_nested_too_deep_is_a_400() -> None:
    deep = "[" * 1000 + "1" + "]" * 1000
    body = '{"username": ' + deep + ', "password": "x"}'
    response = APIClient().post("/api/auth/token/", body, content_type="application/json")
    assert response.status_code == 400
    client = APIClient()
    client.force_authenticate(PlayerFactory().user)
    nested = client.post("/api/tournaments/", body, content_type="application/json")
    assert nested.status_code == 400 and "nested too deeply" in json.dumps(nested.json())


def test_a_recorded_match_moves_the_standings_update_time() -> None:
    match = two_bot_match()
    before = {s.pk: s.updated_at for s in Standing.objects.filter(competition=match.competition_id)}
    match_play(match_id=match.pk)
    assert Match.objects.get(pk=match.pk).status == Match.Status.DONE
    after = {s.pk: s.updated_at for s in Standing.objects.filter(competition=match.competition_id)}
    assert all(after[pk] > before[pk] for pk in before)


def test_the_schema_types_query_string_ids_as_integers() -> None:
    schema = APIClient().get("/api/schema/?format=json").json()
    parameters = {p["name"]: p["schema"] for p in schema["paths"]["/api/games/"]["get"]["parameters"]}
    assert parameters["competition"]["type"] == "integer"


def test_player_counts_are_refused_with_each_games_own_range_in_people() -> None:
    cast = make_cast()
    base = {"club": cast.club.pk, "name": "x"}
    organiser = cast.client("organiser")
    eleven = organiser.post("/api/tournaments/", {**base, "game": "1923", "players_per_match": 11}, format="json")
    assert eleven.status_code == 201, eleven.content
    thirteen = organiser.post("/api/tournaments/", {**base, "game": "1923", "players_per_match": 13}, format="json")
    assert thirteen.status_code == 400
    assert "12" in json.dumps(thirteen.json())
    dummy = {**base, "game": "punk", "options": {"dummy": True}, "players_per_match": 4}
    refused = organiser.post("/api/tournaments/", dummy, format="json")
    assert refused.status_code == 400
    assert refused.json() == {
        "options": ["punk with the dummy option is played by exactly 2 people (and the dummy), not 4"]
    }


def test_the_bot_logs_endpoint_is_documented_as_the_list_it_returns() -> None:
    schema = APIClient().get("/api/schema/?format=json").json()
    answer = schema["paths"]["/api/matches/{id}/logs/"]["get"]["responses"]["200"]["content"]["application/json"]
    assert answer["schema"]["type"] == "array"
