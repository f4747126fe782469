"""Every club keeps an organiser (issue 21, finding 3): no role change, removal or leaving takes its last one,
through the API or the admin, even when two organisers demote or remove each other at the same moment."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from league.models import Club, Membership, Player
from tests.factories import ClubFactory, MembershipFactory, PlayerFactory, UserFactory
from tests.league.test_api_support import client_for

pytestmark = pytest.mark.django_db


def organiser_of(club: Club, *, staff: bool = False) -> Player:
    player = PlayerFactory(user=UserFactory(is_staff=staff))
    MembershipFactory(club=club, player=player, role=Membership.Role.ORGANISER)
    return player


def set_role(by: Player, club: Club, player: Player, role: str) -> Any:
    return client_for(by.user).post(
        f"/api/clubs/{club.pk}/members/", {"player": player.pk, "role": role}, format="json"
    )


def organisers(club: Club) -> list[int]:
    return sorted(Membership.objects.filter(club=club, role=Membership.Role.ORGANISER).values_list("player", flat=True))


@pytest.mark.parametrize("role", ["member", "referee"])
def test_the_sole_organiser_cannot_step_down(role: str) -> None:
    club = ClubFactory()
    sole = organiser_of(club)
    refused = set_role(sole, club, sole, role)
    assert refused.status_code == 409
    assert refused.json() == {
        "detail": f"{sole.display_name} is the last organiser of {club.name}: make another member organiser first"
    }
    assert organisers(club) == [sole.pk]


def test_with_another_organiser_one_may_step_down_and_the_last_may_not() -> None:
    club = ClubFactory()
    first, second = organiser_of(club), organiser_of(club)
    stepped = set_role(first, club, first, "member")
    assert stepped.status_code == 200 and stepped.json()["role"] == "member"
    assert set_role(second, club, second, "referee").status_code == 409
    # The former organiser can no longer change roles at all.
    assert set_role(first, club, second, "member").status_code == 403
    assert organisers(club) == [second.pk]


def test_keeping_the_organiser_role_is_no_change_and_allowed() -> None:
    club = ClubFactory()
    sole = organiser_of(club)
    again = set_role(sole, club, sole, "organiser")
    assert again.status_code == 200 and again.json()["role"] == "organiser"


def test_the_admin_club_page_cannot_demote_the_last_organiser(client: Client) -> None:
    club = ClubFactory()
    sole = organiser_of(club, staff=True)
    client.force_login(sole.user)
    row = Membership.objects.get(club=club, player=sole)
    data = {
        "memberships-TOTAL_FORMS": 1,
        "memberships-INITIAL_FORMS": 1,
        "memberships-0-id": row.pk,
        "memberships-0-club": club.pk,
        "memberships-0-role": "member",
    }
    response = client.post(reverse("admin:league_club_change", args=[club.pk]), data, follow=True)
    assert response.status_code == 200
    shown = [str(m) for m in response.context["messages"]]
    assert any("is the last organiser of" in m for m in shown), shown
    assert organisers(club) == [sole.pk]


# --- Races: two organisers acting on each other at once -----------------------------------------------------


def _demote(by: Player, club: Club, other: Player) -> int:
    return int(set_role(by, club, other, "member").status_code)


def _remove(by: Player, club: Club, other: Player) -> int:
    membership = Membership.objects.get(club=club, player=other)
    return int(client_for(by.user).delete(f"/api/clubs/{club.pk}/members/{membership.pk}/").status_code)


def _step_down(by: Player, club: Club, other: Player) -> int:
    return int(set_role(by, club, by, "member").status_code)


def _leave(by: Player, club: Club, other: Player) -> int:
    return int(client_for(by.user).post(f"/api/clubs/{club.pk}/leave/").status_code)


Act = Callable[[Player, Club, Player], int]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("first", "second"),
    [(_demote, _demote), (_demote, _remove), (_step_down, _step_down), (_step_down, _leave)],
    ids=["demote-demote", "demote-remove", "step-down-step-down", "step-down-leave"],
)
@pytest.mark.parametrize("attempt", range(2))
def test_two_organisers_acting_at_once_leave_the_club_an_organiser(first: Act, second: Act, attempt: int) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL")
    club = ClubFactory()
    alice, bob = organiser_of(club), organiser_of(club)
    # The membership ids are read before the race, so both requests start from the same state.
    start = threading.Barrier(2)
    answers: dict[str, int] = {}

    def act(name: str, do: Act, by: Player, other: Player) -> None:
        try:
            start.wait()
            answers[name] = do(by, club, other)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=act, args=("alice", first, alice, bob)),
        threading.Thread(target=act, args=("bob", second, bob, alice)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answers.values()) in ([200, 409], [204, 409], [200, 403], [204, 403]), answers
    assert len(organisers(club)) == 1
