"""The club pages a person uses, without a browser: the list, a club's page, joining each way, leaving, and
invitation links. Refusals are messages in the services' words; the journeys in chromium are
tests/e2e/test_site_clubs.py."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from league.joining import invitation_create
from league.models import Club, Invitation, JoinRequest, Membership, PersonalInvitation, Player
from league.personal_invitations import club_invite
from tests.factories import ClubFactory, CompetitionFactory, MembershipFactory, PlayerFactory, UserFactory
from tournaments.models import Competition

pytestmark = pytest.mark.django_db


def person(username: str) -> Player:
    return PlayerFactory(user=UserFactory(username=username), display_name=username.capitalize())


def signed_in(client: Client, player: Player) -> Client:
    client.force_login(player.user)
    return client


def club_with(joining: str, *, slug: str = "chess", organiser: str = "olga", members: int = 0) -> Club:
    club = ClubFactory(name=slug.capitalize() + " club", slug=slug, joining=joining)
    MembershipFactory(club=club, player=person(f"{organiser}-{slug}"), role=Membership.Role.ORGANISER)
    for n in range(members):
        MembershipFactory(club=club, player=person(f"m{n}-{slug}"))
    return club


def messages_of(response: object) -> list[str]:
    return [str(m) for m in response.context["messages"]]  # type: ignore[attr-defined]


# --- The list ---------------------------------------------------------------------------------------


def test_the_list_names_every_club_says_how_it_admits_and_counts_members(client: Client) -> None:
    club_with(Club.Joining.OPEN, slug="open", members=2)
    club_with(Club.Joining.REQUEST, slug="asking")
    club_with(Club.Joining.INVITATION, slug="closed", members=1)
    page = client.get(reverse("site:clubs"))
    text = page.content.decode()
    assert page.status_code == 200
    assert 'href="/clubs/open/">Open club</a>' in text and "Anyone can join · 3 members" in text
    assert 'href="/clubs/asking/">Asking club</a>' in text and "Ask to join · 1 member<" in text
    assert "By invitation only · 2 members" in text
    assert "Start a club" not in text  # a visitor is asked to sign up or in instead


def test_the_list_costs_the_same_queries_for_many_clubs(client: Client, django_assert_num_queries: object) -> None:
    for n in range(6):
        club_with(Club.Joining.OPEN, slug=f"c{n}", members=2)
    viewer = person("vera")
    signed_in(client, viewer)
    with django_assert_num_queries(4):  # type: ignore[operator]  # the session, the user, the clubs, the unread count
        page = client.get(reverse("site:clubs"))
    assert page.content.decode().count('class="club-name"') == 6
    assert "Start a club" in page.content.decode()


# --- Starting a club ---------------------------------------------------------------------------------


def test_starting_a_club_makes_me_its_organiser(client: Client) -> None:
    me = signed_in(client, person("olga"))
    response = me.post(
        reverse("site:club-new"),
        {"name": "Chess friends", "slug": "chess-friends", "joining": "request", "competition_creators": "members"},
    )
    assert response.status_code == 302 and response["Location"] == "/clubs/chess-friends/"
    club = Club.objects.get(slug="chess-friends")
    assert (club.name, club.joining, club.competition_creators) == ("Chess friends", "request", "members")
    assert Membership.objects.get(club=club).role == Membership.Role.ORGANISER


@pytest.mark.parametrize(
    ("slug", "words"),
    [("new", "&#x27;new&#x27; is kept for the site&#x27;s own pages"), ("Taken", "is taken by another club")],
)
def test_a_refused_address_is_a_message_on_the_form(client: Client, slug: str, words: str) -> None:
    club_with(Club.Joining.OPEN, slug="taken")
    me = signed_in(client, person("olga"))
    response = me.post(
        reverse("site:club-new"),
        {"name": "Mine", "slug": slug, "joining": "open", "competition_creators": "organisers"},
    )
    assert response.status_code == 200 and words in response.content.decode()
    assert not Club.objects.filter(name="Mine").exists()


def test_a_visitor_is_sent_to_sign_in_before_starting_a_club(client: Client) -> None:
    response = client.get(reverse("site:club-new"))
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/?next=/clubs/new/")


# --- A club's page -----------------------------------------------------------------------------------


def test_the_club_page_groups_competitions_and_marks_organisers(client: Client) -> None:
    club = club_with(Club.Joining.OPEN, members=1)
    CompetitionFactory(club=club, name="Spring open", status=Competition.Status.OPEN)
    CompetitionFactory(club=club, name="Winter cup", status=Competition.Status.RUNNING)
    CompetitionFactory(club=club, name="Autumn cup", status=Competition.Status.FINISHED)
    CompetitionFactory(club=club, name="The ladder", format="challenge_ladder", status=Competition.Status.RUNNING)
    text = client.get(reverse("site:club", args=["chess"])).content.decode()
    sections = [
        text.index(h) for h in ("<h3>Ladders</h3>", "<h3>Open for entry</h3>", "<h3>Running</h3>", "<h3>Finished</h3>")
    ]
    assert sections == sorted(sections)
    ladder, spring, winter, autumn = (text.index(n) for n in ("The ladder", "Spring open", "Winter cup", "Autumn cup"))
    assert sections[0] < ladder < sections[1] < spring < sections[2] < winter < sections[3] < autumn
    assert 'Olga-chess</a> <span class="pill good">Organiser</span>' in text


def test_a_club_page_costs_the_same_queries_with_many_members_and_competitions(
    client: Client, django_assert_num_queries: object
) -> None:
    club = club_with(Club.Joining.OPEN, members=5)
    for n in range(4):
        CompetitionFactory(club=club, name=f"Open {n}", status=Competition.Status.OPEN)
        CompetitionFactory(club=club, name=f"Done {n}", status=Competition.Status.FINISHED)
    viewer = Membership.objects.filter(club=club, role=Membership.Role.ORGANISER).get().player
    signed_in(client, viewer)
    # session, user, club, player, membership, roll, competitions now, finished, waiting requests
    with django_assert_num_queries(10):  # type: ignore[operator]
        page = client.get(reverse("site:club", args=["chess"]))
    assert page.content.decode().count('href="/competitions/') == 8


@pytest.mark.parametrize(
    ("joining", "shown"),
    [
        ("open", "Join Chess club</button>"),
        ("request", "Ask to join</button>"),
        ("invitation", "you need an invitation link from one of its organisers"),
    ],
)
def test_a_signed_in_outsider_is_offered_the_clubs_own_way_in(client: Client, joining: str, shown: str) -> None:
    club_with(joining)
    text = signed_in(client, person("nia")).get(reverse("site:club", args=["chess"])).content.decode()
    assert shown in text and "Leave the club" not in text


def test_an_unknown_club_is_the_sites_404(client: Client) -> None:
    response = client.get(reverse("site:club", args=["nowhere"]))
    assert response.status_code == 404 and b"We could not find that page" in response.content


# --- Joining ---------------------------------------------------------------------------------------


def test_joining_an_open_club_makes_a_member_at_once(client: Client) -> None:
    club = club_with(Club.Joining.OPEN)
    nia = person("nia")
    response = signed_in(client, nia).post(reverse("site:club-join", args=["chess"]), follow=True)
    assert Membership.objects.filter(club=club, player=nia, role=Membership.Role.MEMBER).exists()
    assert "Welcome to Chess club: you are a member." in messages_of(response)
    assert "Leave the club" in response.content.decode()


def test_asking_to_join_files_a_request_with_its_note_and_can_be_withdrawn(client: Client) -> None:
    club = club_with(Club.Joining.REQUEST)
    nia = person("nia")
    me = signed_in(client, nia)
    response = me.post(reverse("site:club-join", args=["chess"]), {"note": "Ben sent me"}, follow=True)
    asked = JoinRequest.objects.get(club=club, player=nia)
    assert (asked.status, asked.note) == (JoinRequest.Status.PENDING, "Ben sent me")
    assert "Your request is waiting for an organiser." in response.content.decode()
    response = me.post(reverse("site:club-request-withdraw", args=["chess"]), follow=True)
    asked.refresh_from_db()
    assert asked.status == JoinRequest.Status.WITHDRAWN
    assert "Ask to join</button>" in response.content.decode()


def test_a_too_long_note_is_an_error_on_the_form_and_nothing_is_filed(client: Client) -> None:
    club_with(Club.Joining.REQUEST)
    response = signed_in(client, person("nia")).post(reverse("site:club-join", args=["chess"]), {"note": "x" * 301})
    assert response.status_code == 400 and "at most 300 characters" in response.content.decode()
    assert not JoinRequest.objects.exists()


def test_joining_an_invitation_only_club_is_refused_in_the_services_words(client: Client) -> None:
    club = club_with(Club.Joining.INVITATION)
    response = signed_in(client, person("nia")).post(reverse("site:club-join", args=["chess"]), follow=True)
    assert response.status_code == 200
    assert messages_of(response) == [
        "Chess club admits members by invitation only: ask one of its organisers for a code"
    ]
    assert club.memberships.count() == 1


def test_a_visitor_is_sent_to_sign_in_before_joining(client: Client) -> None:
    club_with(Club.Joining.OPEN)
    response = client.post(reverse("site:club-join", args=["chess"]))
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_a_personal_invitation_shows_on_the_club_page_and_accepting_joins(client: Client) -> None:
    club = club_with(Club.Joining.INVITATION)
    organiser = club.memberships.get().player
    nia = person("nia")
    offer = club_invite(club=club, player=nia, role=Membership.Role.REFEREE, invited_by=organiser)
    me = signed_in(client, nia)
    text = me.get(reverse("site:club", args=["chess"])).content.decode()
    assert "Olga-chess invites you to join Chess club as a referee." in text
    response = me.post(reverse("site:club-offer-answer", args=["chess", offer.pk, "accept"]), follow=True)
    assert Membership.objects.get(club=club, player=nia).role == Membership.Role.REFEREE
    assert "Welcome to Chess club: you are a member." in messages_of(response)
    # Answered: a second answer is refused in the service's words, not a 500.
    again = me.post(reverse("site:club-offer-answer", args=["chess", offer.pk, "decline"]), follow=True)
    assert messages_of(again) == ["this invitation was already accepted"]


def test_someone_elses_personal_invitation_is_not_found(client: Client) -> None:
    club = club_with(Club.Joining.INVITATION)
    offer = club_invite(club=club, player=person("nia"), role="member", invited_by=club.memberships.get().player)
    response = signed_in(client, person("sam")).post(
        reverse("site:club-offer-answer", args=["chess", offer.pk, "accept"])
    )
    assert response.status_code == 404
    assert PersonalInvitation.objects.get(pk=offer.pk).status == PersonalInvitation.Status.PENDING


# --- Leaving ---------------------------------------------------------------------------------------


def test_leaving_asks_first_then_ends_the_membership(client: Client) -> None:
    club = club_with(Club.Joining.OPEN)
    nia = person("nia")
    MembershipFactory(club=club, player=nia)
    me = signed_in(client, nia)
    confirm = me.get(reverse("site:club-leave", args=["chess"]))
    assert confirm.status_code == 200 and "Leave Chess club?" in confirm.content.decode()
    assert Membership.objects.filter(club=club, player=nia).exists()
    response = me.post(reverse("site:club-leave", args=["chess"]), follow=True)
    assert not Membership.objects.filter(club=club, player=nia).exists()
    assert "You have left Chess club." in messages_of(response)


def test_the_last_organiser_cannot_leave_and_is_told_why(client: Client) -> None:
    club = club_with(Club.Joining.OPEN)
    organiser = club.memberships.get().player
    response = signed_in(client, organiser).post(reverse("site:club-leave", args=["chess"]), follow=True)
    assert messages_of(response) == [
        "Olga-chess is the last organiser of Chess club: make another member organiser first"
    ]
    assert club.memberships.filter(player=organiser, role=Membership.Role.ORGANISER).exists()


# --- Invitation links --------------------------------------------------------------------------------


def link(club: Club, **kwargs: object) -> Invitation:
    return invitation_create(club=club, created_by=club.memberships.get().player, **kwargs)  # type: ignore[arg-type]


def test_a_signed_in_person_joins_by_a_link_with_one_click(client: Client) -> None:
    club = club_with(Club.Joining.INVITATION)
    code = link(club).code
    nia = person("nia")
    me = signed_in(client, nia)
    page = me.get(reverse("site:invitation", args=[code]))
    assert "You are invited to join" in page.content.decode() and "Join Chess club</button>" in page.content.decode()
    response = me.post(reverse("site:invitation", args=[code]))
    assert response.status_code == 302 and response["Location"] == "/clubs/chess/"
    assert Membership.objects.filter(club=club, player=nia).exists()
    assert Invitation.objects.get(code=code).uses == 1


def test_a_visitor_is_offered_sign_up_and_sign_in_that_come_back_to_the_link(client: Client) -> None:
    code = link(club_with(Club.Joining.INVITATION)).code
    text = client.get(reverse("site:invitation", args=[code])).content.decode()
    back = f"next=%2Finvitations%2F{code}%2F"
    assert f'href="/accounts/signup/?{back}"' in text and f'href="/accounts/login/?{back}"' in text


@pytest.mark.parametrize(
    ("spoil", "words"),
    [
        ({"revoked_at": timezone.now()}, "this invitation was withdrawn by the club&#x27;s organisers"),
        ({"expires_at": timezone.now() - timedelta(hours=1)}, "this invitation expired on"),
        ({"uses": 1}, "this invitation has been used 1 times, all it allows"),
    ],
)
def test_a_spent_link_explains_itself_and_admits_no_one(client: Client, spoil: dict[str, object], words: str) -> None:
    club = club_with(Club.Joining.INVITATION)
    code = link(club).code
    Invitation.objects.filter(code=code).update(**spoil)
    me = signed_in(client, person("nia"))
    text = me.get(reverse("site:invitation", args=[code])).content.decode()
    assert (
        "This link no longer lets anyone join" in text and words in text and "</button>" not in text.split("<main")[1]
    )
    response = me.post(reverse("site:invitation", args=[code]), follow=True)
    assert club.memberships.count() == 1 and messages_of(response)[0].startswith("this invitation")


def test_an_unknown_code_is_the_sites_404(client: Client) -> None:
    assert client.get(reverse("site:invitation", args=["x" * 32])).status_code == 404


@pytest.mark.parametrize(("creators", "shown"), [("organisers", False), ("members", True)])
def test_new_competition_shows_to_members_only_where_the_club_lets_them(
    client: Client, creators: str, shown: bool
) -> None:
    club = club_with(Club.Joining.OPEN)
    Club.objects.filter(pk=club.pk).update(competition_creators=creators)
    mia = person("mia")
    MembershipFactory(club=club, player=mia)
    text = signed_in(client, mia).get(reverse("site:club", args=["chess"])).content.decode()
    assert ('href="/clubs/chess/competitions/new/"' in text) is shown
    assert "Running the club" not in text  # the organisers' links are theirs


def test_a_visitor_sees_a_club_page_in_few_queries(client: Client, django_assert_num_queries: object) -> None:
    club = club_with(Club.Joining.REQUEST, members=4)
    CompetitionFactory(club=club, name="Spring open", status=Competition.Status.OPEN)
    with django_assert_num_queries(4):  # type: ignore[operator]  # club, roll, competitions now, finished
        page = client.get(reverse("site:club", args=["chess"]))
    assert 'href="/accounts/signup/?next=/clubs/chess/"' in page.content.decode()
