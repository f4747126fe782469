"""/api/clubs/: anyone reads; the creator becomes an organiser; organisers add members and organisers."""

from __future__ import annotations

import pytest

from league.models import Membership
from tests.factories import ClubFactory, MembershipFactory, PlayerFactory
from tests.league.test_api_support import client_for, results

pytestmark = pytest.mark.django_db


def test_creating_a_club_makes_the_creator_its_organiser() -> None:
    player = PlayerFactory()
    response = client_for(player.user).post("/api/clubs/", {"name": "Card Club", "slug": "card-club"}, format="json")
    assert response.status_code == 201
    assert response.json()["member_count"] == 1
    membership = Membership.objects.get(club_id=response.json()["id"])
    assert (membership.player, membership.role) == (player, Membership.Role.ORGANISER)


@pytest.mark.parametrize(
    ("payload", "field"),
    [({"name": "X", "slug": "not a slug!"}, "slug"), ({"slug": "ok"}, "name"), ({"name": "X", "slug": 5.5}, "slug")],
)
def test_bad_club_input_is_a_400_naming_the_field(payload: dict[str, object], field: str) -> None:
    response = client_for(PlayerFactory().user).post("/api/clubs/", payload, format="json")
    assert response.status_code == 400 and list(response.json()) == [field]


def test_a_taken_slug_is_refused() -> None:
    ClubFactory(slug="taken")
    response = client_for(PlayerFactory().user).post("/api/clubs/", {"name": "X", "slug": "taken"}, format="json")
    assert response.status_code == 400 and response.json() == {"slug": ["a club with the slug 'taken' exists"]}


def test_an_organiser_adds_a_member_then_promotes_them() -> None:
    organiser = MembershipFactory(role=Membership.Role.ORGANISER)
    newcomer = PlayerFactory()
    client = client_for(organiser.player.user)
    url = f"/api/clubs/{organiser.club_id}/members/"
    added = client.post(url, {"player": newcomer.pk}, format="json")
    assert added.status_code == 201 and added.json()["role"] == "member"
    promoted = client.post(url, {"player": newcomer.pk, "role": "organiser"}, format="json")
    assert promoted.status_code == 200 and promoted.json()["role"] == "organiser"
    assert Membership.objects.get(club_id=organiser.club_id, player=newcomer).role == Membership.Role.ORGANISER


def test_adding_an_unknown_player_or_role_is_a_400() -> None:
    organiser = MembershipFactory(role=Membership.Role.ORGANISER)
    url = f"/api/clubs/{organiser.club_id}/members/"
    client = client_for(organiser.player.user)
    assert client.post(url, {"player": 999999}, format="json").json() == {
        "player": ['Invalid pk "999999" - object does not exist.']
    }
    response = client.post(url, {"player": PlayerFactory().pk, "role": "king"}, format="json")
    assert response.status_code == 400 and list(response.json()) == ["role"]


def test_clubs_filter_by_member_and_still_count_every_member() -> None:
    club = ClubFactory()
    player = MembershipFactory(club=club).player
    MembershipFactory.create_batch(2, club=club)
    ClubFactory()
    rows = results(client_for().get("/api/clubs/", {"member": player.pk}))
    assert [(r["id"], r["member_count"]) for r in rows] == [(club.pk, 3)]


def test_the_club_list_costs_two_queries_however_long(django_assert_num_queries) -> None:
    for club in ClubFactory.create_batch(6):
        MembershipFactory.create_batch(2, club=club)
    with django_assert_num_queries(2):  # count + page, members counted in the same query
        rows = results(client_for().get("/api/clubs/"))
    assert len(rows) == 6 and {r["member_count"] for r in rows} == {2}


def test_the_member_list_costs_three_queries_however_long(django_assert_num_queries) -> None:
    club = ClubFactory()
    MembershipFactory.create_batch(6, club=club)
    with django_assert_num_queries(3):  # the club + count + page
        rows = results(client_for().get(f"/api/clubs/{club.pk}/members/"))
    assert len(rows) == 6 and all(r["player"]["display_name"] for r in rows)


def test_club_slugs_differing_only_by_case_are_one_slug() -> None:
    from league.models import Club
    from tests.factories import PlayerFactory
    from tests.league.test_api_support import client_for

    client = client_for(PlayerFactory().user)
    assert client.post("/api/clubs/", {"name": "Alice", "slug": "alice-club"}, format="json").status_code == 201
    again = client.post("/api/clubs/", {"name": "Alice again", "slug": "ALICE-CLUB"}, format="json")
    assert again.status_code == 400 and "slug" in again.json()
    assert Club.objects.filter(slug__iexact="alice-club").count() == 1
