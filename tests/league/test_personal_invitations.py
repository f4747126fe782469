"""Organisers invite people; they do not enrol them (issue 21, finding 9).

``POST /api/clubs/{club}/members/`` for someone outside the club makes a personal invitation in the
offered role; the person accepts or declines it, and only an accepted one makes a membership.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection

from league.models import Club, Membership, PersonalInvitation, Player
from tests.factories import CompetitionFactory, MembershipFactory, PlayerFactory
from tests.league.test_api_support import client_for, results

pytestmark = pytest.mark.django_db

MINE = "/api/players/me/invitations/"


def club_with_organiser() -> tuple[Club, Player]:
    membership = MembershipFactory(role=Membership.Role.ORGANISER)
    return membership.club, membership.player


def invite(by: Player, club: Club, player: Player, role: str = "member") -> Any:
    return client_for(by.user).post(
        f"/api/clubs/{club.pk}/members/", {"player": player.pk, "role": role}, format="json"
    )


def post(player: Player, url: str) -> Any:
    return client_for(player.user).post(url, format="json")


def test_adding_an_outsider_invites_them_and_makes_no_membership() -> None:
    club, organiser = club_with_organiser()
    stranger = PlayerFactory()
    answer = invite(organiser, club, stranger, "organiser")
    assert answer.status_code == 202
    body = answer.json()
    assert (body["club"], body["club_name"], body["player"]["id"]) == (club.pk, club.name, stranger.pk)
    assert (body["role"], body["status"], body["invited_by"]) == ("organiser", "pending", organiser.pk)
    assert not Membership.objects.filter(club=club, player=stranger).exists()
    # Not a member, so not entered either: an organiser entering them is refused as for any outsider.
    competition = CompetitionFactory(club=club, created_by=organiser)
    entered = client_for(organiser.user).post(
        f"/api/tournaments/{competition.pk}/entrants/", {"player": stranger.pk}, format="json"
    )
    assert entered.status_code == 400 and "not a member" in entered.json()["player"][0]


def test_the_invited_person_sees_their_invitations_and_accepts_one() -> None:
    club, organiser = club_with_organiser()
    invited = PlayerFactory()
    made = invite(organiser, club, invited, "referee").json()
    assert client_for(PlayerFactory().user).get(MINE).json()["results"] == []
    mine = results(client_for(invited.user).get(MINE))
    assert [(i["id"], i["status"], i["role"]) for i in mine] == [(made["id"], "pending", "referee")]
    accepted = post(invited, f"{MINE}{made['id']}/accept/")
    assert accepted.status_code == 201
    assert (accepted.json()["player"]["id"], accepted.json()["role"]) == (invited.pk, "referee")
    assert Membership.objects.get(club=club, player=invited).role == Membership.Role.REFEREE
    assert PersonalInvitation.objects.get(pk=made["id"]).status == PersonalInvitation.Status.ACCEPTED
    twice = post(invited, f"{MINE}{made['id']}/accept/")
    assert twice.status_code == 409 and twice.json() == {"detail": "this invitation was already accepted"}


def test_a_declined_invitation_makes_no_membership_and_may_be_made_again() -> None:
    club, organiser = club_with_organiser()
    invited = PlayerFactory()
    first = invite(organiser, club, invited).json()
    declined = post(invited, f"{MINE}{first['id']}/decline/")
    assert declined.status_code == 200 and declined.json()["status"] == "declined"
    assert not Membership.objects.filter(club=club, player=invited).exists()
    assert post(invited, f"{MINE}{first['id']}/accept/").status_code == 409
    again = invite(organiser, club, invited).json()
    assert again["id"] != first["id"] and again["status"] == "pending"


def test_nobody_but_the_invited_person_answers_an_invitation() -> None:
    club, organiser = club_with_organiser()
    invited = PlayerFactory()
    made = invite(organiser, club, invited).json()
    for other in (organiser, PlayerFactory()):
        assert post(other, f"{MINE}{made['id']}/accept/").status_code == 404
        assert post(other, f"{MINE}{made['id']}/decline/").status_code == 404
    assert client_for().post(f"{MINE}{made['id']}/accept/").status_code == 401
    assert not Membership.objects.filter(club=club, player=invited).exists()


def test_inviting_twice_gives_the_same_pending_invitation_with_the_latest_role() -> None:
    club, organiser = club_with_organiser()
    other_organiser = MembershipFactory(club=club, role=Membership.Role.ORGANISER).player
    invited = PlayerFactory()
    first = invite(organiser, club, invited, "member").json()
    second = invite(other_organiser, club, invited, "referee")
    assert second.status_code == 202
    assert second.json()["id"] == first["id"] and second.json()["role"] == "referee"
    assert PersonalInvitation.objects.filter(club=club, player=invited).count() == 1


def test_a_members_role_is_changed_not_invited() -> None:
    club, organiser = club_with_organiser()
    member = MembershipFactory(club=club).player
    changed = invite(organiser, club, member, "referee")
    assert changed.status_code == 200 and changed.json()["role"] == "referee"
    assert not PersonalInvitation.objects.exists()


def test_the_invitation_service_refuses_someone_already_a_member() -> None:
    from league.errors import Conflict
    from league.personal_invitations import club_invite

    club, organiser = club_with_organiser()
    member = MembershipFactory(club=club).player
    with pytest.raises(Conflict, match="already a member"):
        club_invite(club=club, player=member, role="member", invited_by=organiser)


def test_an_invitation_accepted_after_joining_another_way_is_a_409() -> None:
    club, organiser = club_with_organiser()
    invited = PlayerFactory()
    made = invite(organiser, club, invited).json()
    MembershipFactory(club=club, player=invited)  # joined by a code meanwhile
    late = post(invited, f"{MINE}{made['id']}/accept/")
    assert late.status_code == 409 and late.json() == {"detail": f"you are already a member of {club.name}"}


def test_an_organiser_of_one_club_cannot_invite_to_or_see_another() -> None:
    home, organiser = club_with_organiser()
    away, away_organiser = club_with_organiser()
    stranger = PlayerFactory()
    refused = invite(organiser, away, stranger, "organiser")
    assert refused.status_code == 403
    assert not PersonalInvitation.objects.exists() and not Membership.objects.filter(player=stranger).exists()
    made = invite(away_organiser, away, stranger).json()
    listing = f"/api/clubs/{away.pk}/personal-invitations/"
    assert client_for(organiser.user).get(listing).status_code == 403
    assert post(organiser, f"{listing}{made['id']}/withdraw/").status_code == 403
    assert [i["id"] for i in results(client_for(away_organiser.user).get(listing))] == [made["id"]]
    # Through home's URL, away's invitation does not exist.
    assert post(organiser, f"/api/clubs/{home.pk}/personal-invitations/{made['id']}/withdraw/").status_code == 404


def test_an_organiser_withdraws_a_pending_invitation() -> None:
    club, organiser = club_with_organiser()
    invited = PlayerFactory()
    made = invite(organiser, club, invited).json()
    url = f"/api/clubs/{club.pk}/personal-invitations/{made['id']}/withdraw/"
    assert post(MembershipFactory(club=club).player, url).status_code == 403
    withdrawn = post(organiser, url)
    assert withdrawn.status_code == 200 and withdrawn.json()["status"] == "withdrawn"
    assert post(organiser, url).status_code == 409
    assert post(invited, f"{MINE}{made['id']}/accept/").status_code == 409
    assert not Membership.objects.filter(club=club, player=invited).exists()


def test_the_lists_cost_a_fixed_number_of_queries(django_assert_num_queries) -> None:
    club, organiser = club_with_organiser()
    invited = PlayerFactory()
    for _ in range(4):
        invite(organiser, club, PlayerFactory())
        other, other_organiser = club_with_organiser()
        invite(other_organiser, other, invited)
    with django_assert_num_queries(3):  # the caller's player + count + page (with club, player)
        assert len(results(client_for(invited.user).get(MINE))) == 4
    with django_assert_num_queries(4):  # the club + is-organiser + count + page (with club, player)
        assert len(results(client_for(organiser.user).get(f"/api/clubs/{club.pk}/personal-invitations/"))) == 4


@pytest.mark.django_db(transaction=True)
def test_two_organisers_inviting_one_person_at_once_make_one_invitation() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the partial unique index is PostgreSQL's")
    club, organiser = club_with_organiser()
    organisers = [organiser, *(MembershipFactory(club=club, role=Membership.Role.ORGANISER).player for _ in range(5))]
    invited = PlayerFactory()
    start = threading.Barrier(len(organisers))
    answers: list[tuple[int, int]] = []

    def go(by: Player) -> None:
        try:
            start.wait()
            answer = invite(by, club, invited)
            answers.append((answer.status_code, answer.json()["id"]))
        finally:
            connection.close()

    threads = [threading.Thread(target=go, args=(by,)) for by in organisers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert {code for code, _ in answers} == {202} and len({pk for _, pk in answers}) == 1
    assert PersonalInvitation.objects.filter(club=club, player=invited).count() == 1
