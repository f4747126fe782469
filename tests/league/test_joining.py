"""Joining clubs (issue 13, "Membership"): open clubs, join requests, invitations, leaving and removal.

Every refusal is a 4xx with a message a person can act on; leaving keeps one's results.
"""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from league.models import Club, Invitation, JoinRequest, Membership, Player
from tests.factories import ClubFactory, EntrantFactory, MembershipFactory, PlayerFactory
from tests.league.test_api_support import client_for, results
from tournaments.models import Entrant, Standing

pytestmark = pytest.mark.django_db


def club_with_organiser(joining: str = Club.Joining.INVITATION) -> tuple[Club, Player]:
    organiser = MembershipFactory(role=Membership.Role.ORGANISER, club=ClubFactory(joining=joining))
    return organiser.club, organiser.player


def post(player: Player | None, url: str, body: dict[str, Any] | None = None) -> Any:
    return client_for(player.user if player else None).post(url, body or {}, format="json")


# --- Asking to join ---------------------------------------------------------------------------


def test_an_open_club_takes_a_member_at_once_and_only_once() -> None:
    club, _ = club_with_organiser(Club.Joining.OPEN)
    newcomer = PlayerFactory()
    joined = post(newcomer, f"/api/clubs/{club.pk}/join/")
    assert joined.status_code == 201
    assert (joined.json()["player"]["id"], joined.json()["role"]) == (newcomer.pk, "member")
    again = post(newcomer, f"/api/clubs/{club.pk}/join/")
    assert again.status_code == 409
    assert again.json() == {"detail": f"you are already a member of {club.name}"}


def test_a_club_by_invitation_refuses_a_plain_join_and_says_what_to_do() -> None:
    club, _ = club_with_organiser(Club.Joining.INVITATION)
    refused = post(PlayerFactory(), f"/api/clubs/{club.pk}/join/")
    assert refused.status_code == 403
    assert refused.json() == {
        "detail": f"{club.name} admits members by invitation only: ask one of its organisers for a code"
    }
    assert not JoinRequest.objects.exists() and Membership.objects.filter(club=club).count() == 1


def test_joining_needs_a_login() -> None:
    club, _ = club_with_organiser(Club.Joining.OPEN)
    assert post(None, f"/api/clubs/{club.pk}/join/").status_code == 401


def test_a_request_is_decided_by_an_organiser_once() -> None:
    club, organiser = club_with_organiser(Club.Joining.REQUEST)
    asker, other = PlayerFactory(), PlayerFactory()
    asked = post(asker, f"/api/clubs/{club.pk}/join/", {"note": "I play on Tuesdays"})
    assert asked.status_code == 202
    assert (asked.json()["status"], asked.json()["note"]) == ("pending", "I play on Tuesdays")
    # Asking again returns the same request; another person's ask is their own.
    assert post(asker, f"/api/clubs/{club.pk}/join/").json()["id"] == asked.json()["id"]
    other_ask = post(other, f"/api/clubs/{club.pk}/join/").json()["id"]

    listing = f"/api/clubs/{club.pk}/join-requests/"
    assert {r["id"] for r in results(client_for(organiser.user).get(listing))} == {asked.json()["id"], other_ask}
    assert [r["id"] for r in results(client_for(asker.user).get(listing))] == [asked.json()["id"]]

    accept = f"{listing}{asked.json()['id']}/accept/"
    assert post(asker, accept).status_code == 403
    accepted = post(organiser, accept)
    assert accepted.status_code == 200
    assert (accepted.json()["status"], accepted.json()["decided_by"]) == ("accepted", organiser.pk)
    assert Membership.objects.get(club=club, player=asker).role == Membership.Role.MEMBER
    twice = post(organiser, f"{listing}{asked.json()['id']}/decline/")
    assert twice.status_code == 409 and twice.json() == {"detail": "this request was already accepted"}

    declined = post(organiser, f"{listing}{other_ask}/decline/")
    assert declined.json()["status"] == "declined"
    assert not Membership.objects.filter(club=club, player=other).exists()
    # Declined, one may ask again: a new request.
    assert post(other, f"/api/clubs/{club.pk}/join/").json()["id"] != other_ask


def test_the_one_who_asked_may_withdraw_and_no_one_else() -> None:
    club, organiser = club_with_organiser(Club.Joining.REQUEST)
    asker = PlayerFactory()
    request_id = post(asker, f"/api/clubs/{club.pk}/join/").json()["id"]
    url = f"/api/clubs/{club.pk}/join-requests/{request_id}/withdraw/"
    assert post(organiser, url).status_code == 403
    assert post(PlayerFactory(), url).status_code == 404  # a stranger does not see it
    assert post(asker, url).json()["status"] == "withdrawn"
    assert post(asker, url).status_code == 409


# --- Invitations ------------------------------------------------------------------------------


def test_an_invitation_admits_up_to_its_uses_in_its_role() -> None:
    club, organiser = club_with_organiser()
    made = post(organiser, f"/api/clubs/{club.pk}/invitations/", {"days": 3, "max_uses": 2, "role": "referee"})
    assert made.status_code == 201
    code = made.json()["code"]
    assert len(code) == 32 and made.json()["usable"] is True and made.json()["max_uses"] == 2
    first, second, third = PlayerFactory(), PlayerFactory(), PlayerFactory()
    shown = client_for(first.user).get(f"/api/invitations/{code}/")
    assert (shown.json()["club_name"], shown.json()["role"]) == (club.name, "referee")
    for player in (first, second):
        joined = post(player, f"/api/invitations/{code}/accept/")
        assert joined.status_code == 201 and joined.json()["role"] == "referee"
    used_up = post(third, f"/api/invitations/{code}/accept/")
    assert used_up.status_code == 409
    assert used_up.json() == {"detail": "this invitation has been used 2 times, all it allows"}
    again = post(first, f"/api/invitations/{code}/accept/")
    assert again.json() == {"detail": f"you are already a member of {club.name}"}
    assert Invitation.objects.get(code=code).uses == 2


def test_an_expired_or_withdrawn_invitation_admits_no_one() -> None:
    club, organiser = club_with_organiser()
    expired = post(organiser, f"/api/clubs/{club.pk}/invitations/").json()
    Invitation.objects.filter(pk=expired["id"]).update(expires_at=timezone.now() - timedelta(minutes=1))
    refused = post(PlayerFactory(), f"/api/invitations/{expired['code']}/accept/")
    assert refused.status_code == 409 and refused.json()["detail"].startswith("this invitation expired on ")

    withdrawn = post(organiser, f"/api/clubs/{club.pk}/invitations/").json()
    assert post(PlayerFactory(), f"/api/clubs/{club.pk}/invitations/{withdrawn['id']}/revoke/").status_code == 403
    revoked = post(organiser, f"/api/clubs/{club.pk}/invitations/{withdrawn['id']}/revoke/")
    assert revoked.json()["usable"] is False
    refused = post(PlayerFactory(), f"/api/invitations/{withdrawn['code']}/accept/")
    assert refused.json() == {"detail": "this invitation was withdrawn by the club's organisers"}
    assert Membership.objects.filter(club=club).count() == 1


def test_only_organisers_make_or_list_invitations_and_bad_terms_are_named() -> None:
    club, organiser = club_with_organiser()
    member = MembershipFactory(club=club).player
    assert post(member, f"/api/clubs/{club.pk}/invitations/").status_code == 403
    assert client_for(member.user).get(f"/api/clubs/{club.pk}/invitations/").status_code == 403
    assert client_for().get(f"/api/clubs/{club.pk}/invitations/").status_code == 401
    bad = post(organiser, f"/api/clubs/{club.pk}/invitations/", {"days": 0, "max_uses": 5000, "role": "king"})
    assert bad.status_code == 400
    assert set(bad.json()) == {"days", "max_uses", "role"}
    assert not Invitation.objects.exists()


def test_an_unknown_code_is_a_404_and_accepting_needs_a_login() -> None:
    assert post(PlayerFactory(), "/api/invitations/no-such-code/accept/").status_code == 404
    club, organiser = club_with_organiser()
    code = post(organiser, f"/api/clubs/{club.pk}/invitations/").json()["code"]
    assert post(None, f"/api/invitations/{code}/accept/").status_code == 401


@pytest.mark.django_db(transaction=True)
def test_people_racing_for_an_invitation_get_exactly_its_uses() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL")
    club, organiser = club_with_organiser()
    code = post(organiser, f"/api/clubs/{club.pk}/invitations/", {"max_uses": 3}).json()["code"]
    players = [PlayerFactory() for _ in range(8)]
    answers: list[int] = []
    start = threading.Barrier(len(players))

    def accept(player: Player) -> None:
        start.wait()
        answers.append(post(player, f"/api/invitations/{code}/accept/").status_code)
        connection.close()

    threads = [threading.Thread(target=accept, args=(p,)) for p in players]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answers) == [201] * 3 + [409] * 5
    assert Invitation.objects.get(code=code).uses == 3
    assert Membership.objects.filter(club=club).count() == 4


# --- Leaving and removal ----------------------------------------------------------------------


def test_leaving_keeps_one_s_results() -> None:
    club, _ = club_with_organiser()
    leaver = MembershipFactory(club=club).player
    entrant = EntrantFactory(competition__club=club, player=leaver, bot_version=None, name=leaver.display_name)
    Standing.objects.create(competition=entrant.competition, entrant=entrant, played=3, won=2, match_units=4)
    left = post(leaver, f"/api/clubs/{club.pk}/leave/")
    assert left.status_code == 204
    assert not Membership.objects.filter(club=club, player=leaver).exists()
    assert Entrant.objects.filter(pk=entrant.pk, player=leaver).exists()
    assert Standing.objects.get(entrant=entrant).won == 2
    again = post(leaver, f"/api/clubs/{club.pk}/leave/")
    assert again.status_code == 409


def test_the_last_organiser_cannot_leave_or_be_removed_but_another_can() -> None:
    club, organiser = club_with_organiser()
    refused = post(organiser, f"/api/clubs/{club.pk}/leave/")
    assert refused.status_code == 409
    assert refused.json() == {
        "detail": f"{organiser.display_name} is the last organiser of {club.name}: make another member organiser first"
    }
    second = MembershipFactory(club=club, role=Membership.Role.ORGANISER)
    remove = f"/api/clubs/{club.pk}/members/{second.pk}/"
    assert client_for(organiser.user).delete(remove).status_code == 204
    own = Membership.objects.get(club=club, player=organiser)
    assert client_for(organiser.user).delete(f"/api/clubs/{club.pk}/members/{own.pk}/").status_code == 409


def test_only_organisers_remove_members() -> None:
    club, _ = club_with_organiser()
    member = MembershipFactory(club=club)
    url = f"/api/clubs/{club.pk}/members/{member.pk}/"
    assert client_for().delete(url).status_code == 401
    assert client_for(MembershipFactory(club=club).player.user).delete(url).status_code == 403
    assert Membership.objects.filter(pk=member.pk).exists()


def test_a_club_says_how_people_join_and_its_organisers_change_it() -> None:
    creator = PlayerFactory()
    made = post(creator, "/api/clubs/", {"name": "Open club", "slug": "open-club", "joining": "open"})
    assert made.status_code == 201 and made.json()["joining"] == "open"
    club_id = made.json()["id"]
    changed = client_for(creator.user).patch(f"/api/clubs/{club_id}/", {"joining": "request"}, format="json")
    assert changed.json()["joining"] == "request"
    bad = client_for(creator.user).patch(f"/api/clubs/{club_id}/", {"joining": "secret"}, format="json")
    assert bad.status_code == 400 and list(bad.json()) == ["joining"]
    assert post(PlayerFactory(), "/api/clubs/", {"name": "X", "slug": "x"}).json()["joining"] == "invitation"
