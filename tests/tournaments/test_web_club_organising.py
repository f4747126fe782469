"""An organiser's club pages without a browser: only the club's organisers open them, every change goes
through the services (the last organiser is protected there), and each page's queries do not grow with rows."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from league.joining import invitation_create
from league.models import Club, Invitation, JoinRequest, Membership, PersonalInvitation, Player
from league.personal_invitations import club_invite
from tests.factories import ClubFactory, MembershipFactory, PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db

ORGANISER_PAGES = ("site:club-settings", "site:club-members", "site:club-invitations", "site:club-requests")


def person(username: str) -> Player:
    return PlayerFactory(user=UserFactory(username=username), display_name=username.capitalize())


@pytest.fixture
def club() -> Club:
    club = ClubFactory(name="Chess club", slug="chess", joining=Club.Joining.REQUEST)
    MembershipFactory(club=club, player=person("olga"), role=Membership.Role.ORGANISER)
    return club


@pytest.fixture
def olga(club: Club) -> Player:
    return Player.objects.get(user__username="olga")


@pytest.fixture
def organiser(client: Client, olga: Player) -> Client:
    client.force_login(olga.user)
    return client


def member(club: Club, username: str, role: str = Membership.Role.MEMBER) -> Membership:
    return MembershipFactory(club=club, player=person(username), role=role)


def messages_of(response: object) -> list[str]:
    return [str(m) for m in response.context["messages"]]  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", ORGANISER_PAGES)
def test_a_member_who_is_not_an_organiser_gets_the_sites_403(client: Client, club: Club, name: str) -> None:
    client.force_login(member(club, "mia").player.user)
    response = client.get(reverse(name, args=["chess"]))
    assert response.status_code == 403 and b"Only the organisers of Chess club may open this page." in response.content


@pytest.mark.parametrize("name", ORGANISER_PAGES)
def test_an_organiser_of_another_club_gets_the_sites_403(client: Client, club: Club, name: str) -> None:
    other = ClubFactory(slug="other")
    client.force_login(member(other, "otto", Membership.Role.ORGANISER).player.user)
    assert client.get(reverse(name, args=["chess"])).status_code == 403


@pytest.mark.parametrize("name", ORGANISER_PAGES)
def test_a_visitor_is_sent_to_sign_in(client: Client, club: Club, name: str) -> None:
    response = client.get(reverse(name, args=["chess"]))
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_an_outsider_cannot_decide_a_request_or_make_a_link(client: Client, club: Club) -> None:
    asked = JoinRequest.objects.create(club=club, player=person("nia"))
    client.force_login(member(club, "mia").player.user)
    assert client.post(reverse("site:club-request-decide", args=["chess", asked.pk, "accept"])).status_code == 403
    form = {"link-max_uses": 5, "link-days": 7, "link-role": "member"}
    assert client.post(reverse("site:club-invitations", args=["chess"]), form).status_code == 403
    assert JoinRequest.objects.get(pk=asked.pk).status == JoinRequest.Status.PENDING
    assert not Invitation.objects.exists()


# --- Settings ----------------------------------------------------------------------------------------


def test_settings_change_the_club(organiser: Client, club: Club) -> None:
    page = organiser.get(reverse("site:club-settings", args=["chess"]))
    assert 'value="Chess club"' in page.content.decode()
    response = organiser.post(
        reverse("site:club-settings", args=["chess"]),
        {"name": "Chess friends", "joining": "open", "competition_creators": "members"},
    )
    assert response.status_code == 302
    club.refresh_from_db()
    assert (club.name, club.joining, club.competition_creators) == ("Chess friends", "open", "members")


def test_settings_with_a_blank_name_are_refused_on_the_form(organiser: Client, club: Club) -> None:
    response = organiser.post(
        reverse("site:club-settings", args=["chess"]), {"name": "", "joining": "open", "competition_creators": "x"}
    )
    assert response.status_code == 200 and "This field is required." in response.content.decode()
    club.refresh_from_db()
    assert (club.name, club.joining) == ("Chess club", "request")


# --- Members and roles -------------------------------------------------------------------------------


def test_promoting_demoting_and_removing_members(organiser: Client, club: Club) -> None:
    mia = member(club, "mia")
    response = organiser.post(
        reverse("site:club-member-role", args=["chess", mia.pk]), {f"m{mia.pk}-role": "organiser"}, follow=True
    )
    assert "Mia is now an organiser." in messages_of(response)
    assert Membership.objects.get(pk=mia.pk).role == Membership.Role.ORGANISER
    organiser.post(reverse("site:club-member-role", args=["chess", mia.pk]), {f"m{mia.pk}-role": "referee"})
    assert Membership.objects.get(pk=mia.pk).role == Membership.Role.REFEREE
    confirm = organiser.get(reverse("site:club-member-remove", args=["chess", mia.pk]))
    assert "Remove Mia from Chess club?" in confirm.content.decode() and Membership.objects.filter(pk=mia.pk).exists()
    organiser.post(reverse("site:club-member-remove", args=["chess", mia.pk]))
    assert not Membership.objects.filter(pk=mia.pk).exists()


def test_the_last_organiser_cannot_step_down_or_be_removed(organiser: Client, club: Club, olga: Player) -> None:
    mine = Membership.objects.get(club=club, player=olga)
    words = "Olga is the last organiser of Chess club: make another member organiser first"
    response = organiser.post(
        reverse("site:club-member-role", args=["chess", mine.pk]), {f"m{mine.pk}-role": "member"}, follow=True
    )
    assert messages_of(response) == [words]
    response = organiser.post(reverse("site:club-member-remove", args=["chess", mine.pk]), follow=True)
    assert messages_of(response) == [words]
    assert Membership.objects.get(pk=mine.pk).role == Membership.Role.ORGANISER


def test_a_member_of_another_club_is_not_found_on_these_pages(organiser: Client, club: Club) -> None:
    elsewhere = member(ClubFactory(slug="other"), "zed")
    response = organiser.post(reverse("site:club-member-remove", args=["chess", elsewhere.pk]))
    assert response.status_code == 404 and Membership.objects.filter(pk=elsewhere.pk).exists()


def test_the_members_page_costs_the_same_queries_for_many_members(
    organiser: Client, club: Club, django_assert_num_queries: object
) -> None:
    for n in range(6):
        member(club, f"m{n}")
    # session, user, club, player, role, how many members, the page of them
    with django_assert_num_queries(8):  # type: ignore[operator]
        page = organiser.get(reverse("site:club-members", args=["chess"]))
    assert page.content.decode().count("Change role</button>") == 7


def test_a_long_roll_is_read_a_page_at_a_time(organiser: Client, club: Club) -> None:
    for n in range(51):
        member(club, f"m{n:02}")
    first = organiser.get(reverse("site:club-members", args=["chess"])).content.decode()
    assert first.count("Change role</button>") == 50 and "Page 1 of 2" in first and 'href="?page=2"' in first
    second = organiser.get(reverse("site:club-members", args=["chess"]), {"page": 2}).content.decode()
    assert second.count("Change role</button>") == 2 and ">M50</a>" in second
    # A page that is not there gives the last one, not an error.
    assert organiser.get(reverse("site:club-members", args=["chess"]), {"page": "x9"}).status_code == 200


# --- Invitations -------------------------------------------------------------------------------------


def test_making_a_link_shows_its_full_address_to_copy(organiser: Client, club: Club) -> None:
    response = organiser.post(
        reverse("site:club-invitations", args=["chess"]),
        {"link-max_uses": 5, "link-days": 3, "link-role": "member"},
        follow=True,
    )
    made = Invitation.objects.get(club=club)
    assert (made.max_uses, made.role) == (5, "member")
    text = response.content.decode()
    assert f'value="http://testserver/invitations/{made.code}/" readonly' in text
    assert "Copy link 1</button>" in text


def test_a_link_out_of_bounds_is_refused_on_the_form(organiser: Client, club: Club) -> None:
    response = organiser.post(
        reverse("site:club-invitations", args=["chess"]), {"link-max_uses": 0, "link-days": 91, "link-role": "member"}
    )
    text = response.content.decode()
    assert response.status_code == 400
    assert "greater than or equal to 1" in text and "less than or equal to 90" in text
    assert not Invitation.objects.exists()


def test_withdrawing_a_link_takes_it_off_the_list(organiser: Client, club: Club, olga: Player) -> None:
    made = invitation_create(club=club, created_by=olga)
    organiser.post(reverse("site:club-link-withdraw", args=["chess", made.pk]))
    made.refresh_from_db()
    assert made.revoked_at is not None
    assert made.code not in organiser.get(reverse("site:club-invitations", args=["chess"])).content.decode()


def test_inviting_a_person_by_user_name_and_withdrawing_it(organiser: Client, club: Club) -> None:
    nia = person("nia")
    organiser.post(
        reverse("site:club-invite-person", args=["chess"]), {"person-username": "NIA", "person-role": "referee"}
    )
    offer = PersonalInvitation.objects.get(club=club, player=nia)
    assert (offer.role, offer.status) == ("referee", "pending")
    assert (
        "Withdraw the invitation to Nia"
        in organiser.get(reverse("site:club-invitations", args=["chess"])).content.decode()
    )
    organiser.post(reverse("site:club-offer-withdraw", args=["chess", offer.pk]))
    assert PersonalInvitation.objects.get(pk=offer.pk).status == PersonalInvitation.Status.WITHDRAWN


def test_inviting_an_unknown_name_or_a_member_is_refused_on_the_form(organiser: Client, club: Club) -> None:
    member(club, "mia")
    unknown = organiser.post(
        reverse("site:club-invite-person", args=["chess"]), {"person-username": "ghost", "person-role": "member"}
    )
    assert unknown.status_code == 400 and "No one here has the user name &#x27;ghost&#x27;." in unknown.content.decode()
    already = organiser.post(
        reverse("site:club-invite-person", args=["chess"]), {"person-username": "mia", "person-role": "member"}
    )
    assert "Mia is already a member of Chess club: change their role instead" in already.content.decode()
    assert not PersonalInvitation.objects.exists()


def test_the_invitations_page_costs_the_same_queries_for_many_links(
    organiser: Client, club: Club, olga: Player, django_assert_num_queries: object
) -> None:
    for n in range(4):
        invitation_create(club=club, created_by=olga, max_uses=n + 1)
        club_invite(club=club, player=person(f"p{n}"), role="member", invited_by=olga)
    with django_assert_num_queries(8):  # type: ignore[operator]  # session, user, club, player, role, links, offers, unread
        page = organiser.get(reverse("site:club-invitations", args=["chess"]))
    assert page.content.decode().count("Copy link") == 4


# --- Join requests -----------------------------------------------------------------------------------


def test_deciding_join_requests(organiser: Client, club: Club) -> None:
    nia, sam = person("nia"), person("sam")
    first = JoinRequest.objects.create(club=club, player=nia, note="Ben's friend")
    second = JoinRequest.objects.create(club=club, player=sam)
    page = organiser.get(reverse("site:club-requests", args=["chess"])).content.decode()
    assert "Ben&#x27;s friend" in page and "No note." in page
    response = organiser.post(reverse("site:club-request-decide", args=["chess", first.pk, "accept"]), follow=True)
    assert "Nia is now a member." in messages_of(response)
    assert Membership.objects.filter(club=club, player=nia).exists()
    declined = organiser.post(reverse("site:club-request-decide", args=["chess", second.pk, "decline"]), follow=True)
    assert messages_of(declined) == ["You have declined Sam's request."]
    assert JoinRequest.objects.get(pk=second.pk).status == JoinRequest.Status.DECLINED
    assert not Membership.objects.filter(club=club, player=sam).exists()
    again = organiser.post(reverse("site:club-request-decide", args=["chess", first.pk, "decline"]), follow=True)
    assert messages_of(again) == ["this request was already accepted"]


def test_the_requests_page_costs_the_same_queries_for_many_requests(
    organiser: Client, club: Club, django_assert_num_queries: object
) -> None:
    for n in range(5):
        JoinRequest.objects.create(club=club, player=person(f"p{n}"), note=f"note {n}")
    # session, user, club, player, role, how many wait, the page of them
    with django_assert_num_queries(8):  # type: ignore[operator]
        page = organiser.get(reverse("site:club-requests", args=["chess"]))
    assert page.content.decode().count("Decline</button>") == 5
