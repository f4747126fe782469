"""/api/clubs/: anyone reads; the creator becomes an organiser; organisers invite people and change roles."""

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
    assert response.status_code == 400 and response.json() == {"slug": ["the address 'taken' is taken by another club"]}


def test_an_organiser_invites_someone_who_accepts_and_is_then_promoted() -> None:
    organiser = MembershipFactory(role=Membership.Role.ORGANISER)
    newcomer = PlayerFactory()
    client = client_for(organiser.player.user)
    url = f"/api/clubs/{organiser.club_id}/members/"
    invited = client.post(url, {"player": newcomer.pk}, format="json")
    assert invited.status_code == 202 and (invited.json()["role"], invited.json()["status"]) == ("member", "pending")
    assert not Membership.objects.filter(club_id=organiser.club_id, player=newcomer).exists()
    accepted = client_for(newcomer.user).post(f"/api/players/me/invitations/{invited.json()['id']}/accept/")
    assert accepted.status_code == 201 and accepted.json()["role"] == "member"
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


# --- Who may create competitions (issue 11, finding 14) ------------------------------------------------


def competition_by(player: object, club: object) -> object:
    body = {"club": club.pk, "name": "Friday ladder", "game": "war"}  # type: ignore[attr-defined]
    return client_for(player.user).post("/api/tournaments/", body, format="json")  # type: ignore[attr-defined]


def test_by_default_only_organisers_create_a_clubs_competitions() -> None:
    club = ClubFactory()
    member = MembershipFactory(club=club).player
    organiser = MembershipFactory(club=club, role=Membership.Role.ORGANISER).player
    assert client_for().get(f"/api/clubs/{club.pk}/").json()["competition_creators"] == "organisers"
    refused = competition_by(member, club)
    assert refused.status_code == 403
    assert "only organisers create competitions" in refused.json()["detail"]
    assert competition_by(organiser, club).status_code == 201


def test_an_organiser_lets_any_member_create_competitions_and_can_take_it_back() -> None:
    club = ClubFactory()
    member = MembershipFactory(club=club).player
    organiser = MembershipFactory(club=club, role=Membership.Role.ORGANISER).player
    opened = client_for(organiser.user).patch(f"/api/clubs/{club.pk}/", {"competition_creators": "members"})
    assert opened.status_code == 200 and opened.json()["competition_creators"] == "members"
    assert competition_by(member, club).status_code == 201
    assert competition_by(PlayerFactory(), club).status_code == 403  # outsiders never
    client_for(organiser.user).patch(f"/api/clubs/{club.pk}/", {"competition_creators": "organisers"})
    assert competition_by(member, club).status_code == 403


def test_a_club_can_be_made_open_to_members_from_the_start() -> None:
    founder = PlayerFactory()
    body = {"name": "Open club", "slug": "open-club", "competition_creators": "members"}
    created = client_for(founder.user).post("/api/clubs/", body, format="json")
    assert created.status_code == 201 and created.json()["competition_creators"] == "members"


@pytest.mark.parametrize(("who", "code"), [("anonymous", 401), ("member", 403), ("stranger", 403)])
def test_only_organisers_change_the_club(who: str, code: int) -> None:
    club = ClubFactory(name="Before")
    member = MembershipFactory(club=club).player
    user = {"anonymous": None, "member": member.user, "stranger": PlayerFactory().user}[who]
    response = client_for(user).patch(f"/api/clubs/{club.pk}/", {"competition_creators": "members", "name": "After"})
    assert response.status_code == code
    club.refresh_from_db()
    assert (club.name, club.competition_creators) == ("Before", "organisers")


def test_a_bad_setting_is_a_400_naming_the_field_and_changes_nothing() -> None:
    organiser = MembershipFactory(role=Membership.Role.ORGANISER)
    response = client_for(organiser.player.user).patch(
        f"/api/clubs/{organiser.club_id}/", {"competition_creators": "everyone", "name": "New"}, format="json"
    )
    assert response.status_code == 400 and list(response.json()) == ["competition_creators"]
    organiser.club.refresh_from_db()
    assert organiser.club.name != "New"
