"""An organiser's open offers go when their organiser role does (review of issue 21, finding 1.2).

Invitation codes and personal invitations are made on the organiser's authority. When that ends (they are
removed, they leave, or they are demoted), their open codes of the club are withdrawn and their pending
personal invitations are withdrawn, so that no one, the former organiser included, becomes a member or
an organiser through them afterwards. Other organisers' offers stay.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from league.models import Club, Invitation, Membership, PersonalInvitation, Player
from tests.factories import ClubFactory, MembershipFactory, PlayerFactory
from tests.league.test_api_support import client_for

pytestmark = pytest.mark.django_db


def organiser_of(club: Club) -> Player:
    return MembershipFactory(club=club, role=Membership.Role.ORGANISER).player


def post(player: Player, url: str, data: dict[str, Any] | None = None) -> Any:
    return client_for(player.user).post(url, data or {}, format="json")


def make_code(by: Player, club: Club, role: str = "organiser") -> str:
    made = post(by, f"/api/clubs/{club.pk}/invitations/", {"days": 7, "max_uses": 5, "role": role})
    assert made.status_code == 201, made.json()
    return str(made.json()["code"])


def invite(by: Player, club: Club, player: Player, role: str = "organiser") -> int:
    made = post(by, f"/api/clubs/{club.pk}/members/", {"player": player.pk, "role": role})
    assert made.status_code == 202, made.json()
    return int(made.json()["id"])


def remove(by: Player, club: Club, player: Player) -> Any:
    membership = Membership.objects.get(club=club, player=player)
    return client_for(by.user).delete(f"/api/clubs/{club.pk}/members/{membership.pk}/")


def end_by_removal(club: Club, alice: Player, bob: Player) -> None:
    assert remove(bob, club, alice).status_code == 204


def end_by_leaving(club: Club, alice: Player, bob: Player) -> None:
    assert post(alice, f"/api/clubs/{club.pk}/leave/").status_code == 204


def end_by_demotion(club: Club, alice: Player, bob: Player) -> None:
    assert post(bob, f"/api/clubs/{club.pk}/members/", {"player": alice.pk, "role": "member"}).status_code == 200


Ending = Callable[[Club, Player, Player], None]
ENDINGS = pytest.mark.parametrize("end", [end_by_removal, end_by_leaving, end_by_demotion], ids=lambda f: f.__name__)


@ENDINGS
def test_the_former_organisers_own_code_does_not_make_them_organiser_again(end: Ending) -> None:
    club = ClubFactory()
    alice, bob = organiser_of(club), organiser_of(club)
    code = make_code(alice, club)
    end(club, alice, bob)
    if Membership.objects.filter(club=club, player=alice).exists():  # demoted: still a member, so no code applies
        Membership.objects.filter(club=club, player=alice).delete()
    redeemed = post(alice, f"/api/invitations/{code}/accept/")
    assert redeemed.status_code == 409
    assert "withdrawn" in redeemed.json()["detail"]
    assert not Membership.objects.filter(club=club, player=alice).exists()
    # Nor anyone else's way in: the code is withdrawn for all.
    assert post(PlayerFactory(), f"/api/invitations/{code}/accept/").status_code == 409


@ENDINGS
def test_a_pending_personal_invitation_of_the_former_organiser_is_withdrawn(end: Ending) -> None:
    club = ClubFactory()
    alice, bob = organiser_of(club), organiser_of(club)
    carol = PlayerFactory()
    offered = invite(alice, club, carol)
    end(club, alice, bob)
    assert PersonalInvitation.objects.get(pk=offered).status == PersonalInvitation.Status.WITHDRAWN
    accepted = post(carol, f"/api/players/me/invitations/{offered}/accept/")
    assert accepted.status_code == 409
    assert not Membership.objects.filter(club=club, player=carol).exists()


def test_other_organisers_offers_and_other_clubs_offers_stay_open() -> None:
    club, elsewhere = ClubFactory(), ClubFactory()
    alice, bob = organiser_of(club), organiser_of(club)
    MembershipFactory(club=elsewhere, player=alice, role=Membership.Role.ORGANISER)
    carol = PlayerFactory()
    bobs_code, bobs_offer = make_code(bob, club), invite(bob, club, carol)
    alices_other_code, alices_other_offer = make_code(alice, elsewhere), invite(alice, elsewhere, carol)
    end_by_removal(club, alice, bob)
    open_codes = set(Invitation.objects.filter(revoked_at__isnull=True).values_list("code", flat=True))
    assert open_codes == {bobs_code, alices_other_code}
    pending = set(
        PersonalInvitation.objects.filter(status=PersonalInvitation.Status.PENDING).values_list("pk", flat=True)
    )
    assert pending == {bobs_offer, alices_other_offer}


def test_an_organiser_who_stays_organiser_keeps_their_offers() -> None:
    club = ClubFactory()
    alice, bob = organiser_of(club), organiser_of(club)
    code = make_code(alice, club)
    offered = invite(alice, club, PlayerFactory())
    # Setting the role one already has is no demotion.
    assert post(bob, f"/api/clubs/{club.pk}/members/", {"player": alice.pk, "role": "organiser"}).status_code == 200
    assert Invitation.objects.get(code=code).revoked_at is None
    assert PersonalInvitation.objects.get(pk=offered).status == PersonalInvitation.Status.PENDING


# --- Races: an offer made while its maker is being removed ---------------------------------------------------


def _code_answer(alice: Player, club: Club, carol: Player) -> int:
    answer = post(alice, f"/api/clubs/{club.pk}/invitations/", {"days": 7, "max_uses": 5, "role": "organiser"})
    return int(answer.status_code)


def _invite_answer(alice: Player, club: Club, carol: Player) -> int:
    answer = post(alice, f"/api/clubs/{club.pk}/members/", {"player": carol.pk, "role": "organiser"})
    return int(answer.status_code)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("offer", [_code_answer, _invite_answer], ids=["code", "personal"])
@pytest.mark.parametrize("attempt", range(3))
def test_an_offer_made_while_its_maker_is_removed_is_refused_or_withdrawn(
    offer: Callable[[Player, Club, Player], int], attempt: int
) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL")
    club = ClubFactory()
    alice, bob = organiser_of(club), organiser_of(club)
    carol = PlayerFactory()
    membership = Membership.objects.get(club=club, player=alice)
    start = threading.Barrier(2)
    answers: dict[str, int] = {}

    def act(name: str, do: Callable[[], int]) -> None:
        try:
            start.wait()
            answers[name] = do()
        finally:
            connection.close()

    def removal() -> int:
        return int(client_for(bob.user).delete(f"/api/clubs/{club.pk}/members/{membership.pk}/").status_code)

    threads = [
        threading.Thread(target=act, args=("offer", lambda: offer(alice, club, carol))),
        threading.Thread(target=act, args=("remove", removal)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers["remove"] == 204, answers
    assert answers["offer"] in (201, 202, 403), answers
    # Whichever came first, nothing alice offered is open once she is out.
    assert not Invitation.objects.filter(club=club, created_by=alice, revoked_at__isnull=True).exists()
    assert not PersonalInvitation.objects.filter(
        club=club, invited_by=alice, status=PersonalInvitation.Status.PENDING
    ).exists()
