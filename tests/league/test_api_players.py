"""/api/players/: public profiles, and the caller's own created on first use."""

from __future__ import annotations

import pytest

from league.models import Player
from tests.factories import ClubFactory, MembershipFactory, PlayerFactory, UserFactory
from tests.league.test_api_support import client_for, results

pytestmark = pytest.mark.django_db


def test_me_creates_the_profile_on_first_use_and_returns_the_same_one_after() -> None:
    user = UserFactory(username="ada")
    client = client_for(user)
    first = client.get("/api/players/me/")
    assert first.status_code == 200
    assert first.json()["username"] == "ada" and first.json()["display_name"] == "ada"
    again = client.get("/api/players/me/")
    assert again.json()["id"] == first.json()["id"]
    assert Player.objects.filter(user=user).count() == 1


def test_me_needs_a_login() -> None:
    assert client_for().get("/api/players/me/").status_code == 401


def test_patching_me_renames_the_profile_and_rejects_a_blank_or_missing_name() -> None:
    player = PlayerFactory(display_name="Old")
    client = client_for(player.user)
    response = client.patch("/api/players/me/", {"display_name": "New name"}, format="json")
    assert response.status_code == 200 and response.json()["display_name"] == "New name"
    player.refresh_from_db()
    assert player.display_name == "New name"
    assert client.patch("/api/players/me/", {"display_name": "  "}, format="json").json() == {
        "display_name": ["This field may not be blank."]
    }
    assert "display_name" in client.patch("/api/players/me/", {}, format="json").json()


def test_the_public_profile_hides_the_username() -> None:
    player = PlayerFactory()
    body = client_for().get(f"/api/players/{player.pk}/").json()
    assert body == {"id": player.pk, "display_name": player.display_name, "created_at": body["created_at"]}


def test_players_filter_by_club_and_name() -> None:
    club = ClubFactory()
    inside = [MembershipFactory(club=club, player=PlayerFactory(display_name=n)).player for n in ("Ann", "Bob")]
    PlayerFactory(display_name="Annette")
    rows = results(client_for().get("/api/players/", {"club": club.pk}))
    assert [r["id"] for r in rows] == [p.pk for p in inside]
    assert [r["display_name"] for r in results(client_for().get("/api/players/", {"name": "ann"}))] == [
        "Ann",
        "Annette",
    ]
    assert client_for().get("/api/players/", {"club": "x"}).json() == {"club": ["Enter a whole number."]}


def test_the_player_list_costs_two_queries_however_long(django_assert_num_queries) -> None:
    PlayerFactory.create_batch(6)
    with django_assert_num_queries(2):  # count + page
        rows = results(client_for().get("/api/players/"))
    assert len(rows) == 6
