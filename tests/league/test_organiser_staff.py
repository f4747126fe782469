"""Staff status follows the organiser role (issue 23), through every service that makes or ends one; it is never
taken from a superuser or from someone made staff by hand. A fresh organiser's admin site shows their club only."""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.urls import reverse

from league.joining import club_remove_member, club_set_role, invitation_accept, invitation_create
from league.models import Club, Membership, Player
from league.organiser_staff import ROLE_STAFF_GROUP
from league.personal_invitations import club_invite, personal_invitation_accept
from league.services import club_add_member, club_create
from tests.factories import ClubFactory, CompetitionFactory, MembershipFactory, PlayerFactory, UserFactory
from tournaments.models import Competition

pytestmark = pytest.mark.django_db


def person(username: str, **user: object) -> Player:
    return PlayerFactory(user=UserFactory(username=username, **user), display_name=username.capitalize())


def staff(player: Player) -> bool:
    return User.objects.get(pk=player.user_id).is_staff


def marked(player: Player) -> bool:
    return User.objects.get(pk=player.user_id).groups.filter(name=ROLE_STAFF_GROUP).exists()


def new_club(organiser: Player, slug: str = "home") -> Club:
    return club_create(name=slug.capitalize(), slug=slug, organiser=organiser)


def test_creating_a_club_makes_its_organiser_staff() -> None:
    olga = person("olga")
    new_club(olga)
    assert staff(olga) and marked(olga)


def test_stepping_down_from_the_last_organiser_role_takes_staff_away() -> None:
    olga, mia = person("olga"), person("mia")
    club = new_club(olga)
    club_add_member(club=club, player=mia)
    assert not staff(mia)
    club_set_role(club=club, player=mia, role=Membership.Role.ORGANISER, by=olga)
    assert staff(mia)
    club_set_role(club=club, player=olga, role=Membership.Role.REFEREE, by=mia)
    assert not staff(olga) and not marked(olga)
    club_set_role(club=club, player=olga, role=Membership.Role.ORGANISER, by=mia)
    assert staff(olga)  # and back with the role


def test_an_organiser_of_two_clubs_keeps_staff_until_the_last_role_goes() -> None:
    olga, mia = person("olga"), person("mia")
    home, away = new_club(olga, "home"), new_club(mia, "away")
    club_add_member(club=away, player=olga, role=Membership.Role.ORGANISER)
    club_add_member(club=home, player=mia, role=Membership.Role.ORGANISER)
    club_remove_member(club=home, player=olga, by=mia)
    assert staff(olga)
    club_remove_member(club=away, player=olga)  # leaving
    assert not staff(olga)


def test_a_member_role_never_makes_staff() -> None:
    olga, nia = person("olga"), person("nia")
    club = new_club(olga)
    club_add_member(club=club, player=nia, role=Membership.Role.REFEREE)
    club_set_role(club=club, player=nia, role=Membership.Role.MEMBER, by=olga)
    assert not staff(nia)


def test_an_organisers_invitation_code_and_personal_invitation_make_staff() -> None:
    olga, nia, sam = person("olga"), person("nia"), person("sam")
    club = new_club(olga)
    code = invitation_create(club=club, created_by=olga, role=Membership.Role.ORGANISER).code
    invitation_accept(code=code, player=nia)
    assert staff(nia)
    offer = club_invite(club=club, player=sam, role=Membership.Role.ORGANISER, invited_by=olga)
    personal_invitation_accept(invitation=offer, player=sam)
    assert staff(sam)


def test_a_superuser_keeps_staff_whatever_their_roles() -> None:
    root, olga = person("root", is_staff=True, is_superuser=True), person("olga")
    club = new_club(root)
    club_add_member(club=club, player=olga, role=Membership.Role.ORGANISER)
    club_remove_member(club=club, player=root)
    user = User.objects.get(pk=root.user_id)
    assert user.is_staff and user.is_superuser and not marked(root)


def test_someone_made_staff_by_hand_keeps_it_after_the_role() -> None:
    # Staff before the role came: the role gave nothing, so it takes nothing back.
    ada, olga = person("ada", is_staff=True), person("olga")
    club = new_club(olga)
    club_add_member(club=club, player=ada, role=Membership.Role.ORGANISER)
    assert not marked(ada)
    club_set_role(club=club, player=ada, role=Membership.Role.MEMBER, by=olga)
    assert staff(ada)


def test_an_organiser_made_on_the_site_opens_the_admin_scoped_to_their_club(client: Client) -> None:
    away = ClubFactory(name="Away club", slug="away")
    zed = person("zed-login")
    MembershipFactory(club=away, player=zed, role=Membership.Role.ORGANISER)
    CompetitionFactory(club=away, name="Away cup")
    olga, mia = person("olga-login"), person("mia-login")
    client.force_login(olga.user)
    assert client.get("/admin/").status_code == 302  # not staff yet: the admin's sign-in
    made = client.post(
        reverse("site:club-new"),
        {"name": "Home club", "slug": "home", "joining": "open", "competition_creators": "organisers"},
    )
    assert made.status_code == 302
    home = Club.objects.get(slug="home")
    club_add_member(club=home, player=mia)
    CompetitionFactory(club=home, name="Home cup", created_by=olga)
    index = client.get("/admin/")
    assert index.status_code == 200
    clubs = client.get(reverse("admin:league_club_changelist"))
    assert [c.name for c in clubs.context["cl"].result_list] == ["Home club"]
    players = client.get(reverse("admin:league_player_changelist"))
    assert set(players.context["cl"].result_list) == {olga, mia}
    competitions = client.get(reverse("admin:tournaments_competition_changelist"))
    assert [c.name for c in competitions.context["cl"].result_list] == ["Home cup"]
    for page in (index, clubs, players, competitions):
        text = page.content.decode()
        assert "Away club" not in text and "zed-login" not in text and "Away cup" not in text
    away_cup = Competition.objects.get(name="Away cup")
    for hidden in (
        reverse("admin:tournaments_competition_change", args=[away_cup.pk]),
        reverse("admin:league_club_change", args=[away.pk]),
    ):
        # Out of scope is "does not exist": the admin sends them back to its index, showing nothing.
        response = client.get(hidden)
        assert (response.status_code, response["Location"]) == (302, "/admin/"), hidden


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("attempt", range(4))
def test_losing_one_role_while_gaining_another_at_once_leaves_staff(attempt: int) -> None:
    """Demoted in one club while made organiser of another, at the same moment: each change decides staff status
    under the user row's lock, after the other's commit, so the person who organises a club stays staff."""
    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL")
    olga, xavier, yara = person("olga"), person("xavier"), person("yara")
    home, away = new_club(xavier, "home"), new_club(yara, "away")
    club_add_member(club=home, player=olga, role=Membership.Role.ORGANISER)
    club_add_member(club=away, player=olga)
    assert staff(olga)
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def act(change: Callable[[], object]) -> None:
        try:
            start.wait()
            change()
        except BaseException as error:  # reported below, in the test's thread
            errors.append(error)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=act, args=(lambda: club_set_role(club=home, player=olga, role="member", by=xavier),)),
        threading.Thread(target=act, args=(lambda: club_set_role(club=away, player=olga, role="organiser", by=yara),)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert staff(olga) and marked(olga)


def test_organisers_from_before_the_rule_become_staff_with_the_marker_when_migrated() -> None:
    from django.apps import apps

    migration = importlib.import_module("league.migrations.0010_organisers_are_staff")
    club = ClubFactory()
    earlier = person("olga")
    MembershipFactory(club=club, player=earlier, role=Membership.Role.ORGANISER)  # made before the rule
    by_hand = person("hana", is_staff=True)
    MembershipFactory(club=club, player=by_hand, role=Membership.Role.ORGANISER)
    member = person("max")
    MembershipFactory(club=club, player=member, role=Membership.Role.MEMBER)
    assert not staff(earlier)
    migration.organisers_become_staff(apps, None)
    assert staff(earlier) and marked(earlier)
    assert staff(by_hand) and not marked(by_hand)  # staff already: the role gave nothing to take back
    assert not staff(member)
    club_remove_member(club=club, player=earlier, by=by_hand)
    assert not staff(earlier)  # taken back with the role, as anyone's is
