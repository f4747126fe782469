"""A competition's public page for the person looking (issue 23): what it is, Enter / Leave, and on a challenge
ladder Challenge, Accept, Decline and Withdraw, each through the services the API calls, their refusals shown as
messages. The browser journeys are in tests/e2e/test_site_compete.py."""

from __future__ import annotations

import html
import re
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from league.models import Club, Membership, Player
from tests.factories import (
    BotFactory,
    BotVersionFactory,
    ClubFactory,
    EntrantFactory,
    MembershipFactory,
    PlayerFactory,
    UserFactory,
)
from tournaments.ladder_selectors import in_words
from tournaments.models import Challenge, Competition, Entrant, Match
from tournaments.services.challenges import challenge_decline, challenge_issue
from tournaments.services.competitions import competition_create, competition_start, entrant_join

pytestmark = pytest.mark.django_db


def person(club: Club | None, username: str, role: str = Membership.Role.MEMBER) -> Player:
    player = PlayerFactory(user=UserFactory(username=username), display_name=username.capitalize())
    if club is not None:
        MembershipFactory(club=club, player=player, role=role)
    return player


def signed_in(player: Player) -> Client:
    client = Client()
    client.force_login(player.user)
    return client


def page_of(competition: Competition) -> str:
    return reverse("site:competition", args=[competition.pk])


def said(response: Any) -> list[str]:
    """The messages the page a button led back to shows (the button's response followed)."""
    assert response.status_code == 200 and response.redirect_chain, "a button leads back to a page"
    return [html.unescape(text) for text in re.findall(r'<li class="message [^"]*">(.*?)</li>', response.text)]


class Club_:
    """A club with its organiser, and competitions made through the services."""

    def __init__(self) -> None:
        self.club = ClubFactory(name="Riverside", slug="riverside", joining=Club.Joining.OPEN)
        self.organiser = person(self.club, "olga", Membership.Role.ORGANISER)

    def competition(self, **given: Any) -> Competition:
        given.setdefault("game", "1923")
        given.setdefault("options", {"mode": "set"})
        return competition_create(club=self.club, created_by=self.organiser, name="Autumn", **given)

    def ladder(self, names: list[str], **settings: Any) -> tuple[Competition, dict[str, Player]]:
        """A running challenge ladder of people, in the order of ``names`` (top first)."""
        ladder = self.competition(format="challenge_ladder", settings=settings)
        people = {name: person(self.club, name) for name in names}
        entrants = [entrant_join(competition=ladder, player=people[name]) for name in names]
        competition_start(competition=ladder, order=[e.pk for e in entrants])
        ladder.refresh_from_db()
        return ladder, people


@pytest.fixture
def riverside() -> Club_:
    return Club_()


# --- what the page says ----------------------------------------------------------------------------------------


def test_the_page_says_what_the_competition_is_in_plain_words(riverside: Club_) -> None:
    competition = riverside.competition(format="swiss")
    for name in ("ann", "bob", "cat"):
        entrant_join(competition=competition, player=person(riverside.club, name))
    html = Client().get(page_of(competition)).text
    assert "1923 · Swiss · run by" in html
    assert f'href="{reverse("site:club", args=["riverside"])}"' in html
    assert "Open for entry" in html
    assert re.search(r'id="competition-players">\s*3\s*<', html)
    assert "Live, at tables on this site" in html


def test_a_visitor_is_asked_to_sign_in_and_a_non_member_to_join_the_club(riverside: Club_) -> None:
    competition = riverside.competition()
    visitor = Client().get(page_of(competition)).text
    assert "Sign in to enter" in visitor
    assert f"/accounts/login/?next=/competitions/{competition.pk}/" in visitor
    outsider = signed_in(person(None, "sven")).get(page_of(competition)).text
    assert "Join Riverside to enter" in outsider
    assert reverse("site:competition-enter", args=[competition.pk]) not in outsider
    member = signed_in(person(riverside.club, "mia")).get(page_of(competition)).text
    assert reverse("site:competition-enter", args=[competition.pk]) in member
    assert reverse("site:competition-manage", args=[competition.pk]) not in member
    organiser = signed_in(riverside.organiser).get(page_of(competition)).text
    assert reverse("site:competition-manage", args=[competition.pk]) in organiser


def test_a_member_enters_and_leaves_from_the_page(riverside: Club_) -> None:
    competition = riverside.competition()
    mia = person(riverside.club, "mia")
    client = signed_in(mia)
    entered = client.post(reverse("site:competition-enter", args=[competition.pk]), follow=True)
    assert entered.redirect_chain == [(page_of(competition), 302)]
    assert said(entered) == ["You are in Autumn."]
    assert Entrant.objects.filter(competition=competition, player=mia).count() == 1
    page = client.get(page_of(competition)).text
    assert "You are in" in page and reverse("site:competition-leave", args=[competition.pk]) in page
    again = client.post(reverse("site:competition-enter", args=[competition.pk]), follow=True)
    assert said(again) == ["Mia has already joined this competition"]
    left = client.post(reverse("site:competition-leave", args=[competition.pk]), follow=True)
    assert said(left) == ["You have left Autumn."]
    assert not Entrant.objects.filter(competition=competition, player=mia).exists()
    assert said(client.post(reverse("site:competition-leave", args=[competition.pk]), follow=True)) == [
        "You are not in Autumn."
    ]


def test_the_services_refusals_are_messages_not_errors(riverside: Club_) -> None:
    competition = riverside.competition()
    outsider = signed_in(person(None, "sven"))
    refused = outsider.post(reverse("site:competition-enter", args=[competition.pk]), follow=True)
    assert said(refused) == ["Sven is not a member of Riverside"]
    assert not competition.entrants.exists()
    # Started: nobody enters or leaves a round robin any more.
    mia = person(riverside.club, "mia")
    for name in ("ann", "bob"):
        entrant_join(competition=competition, player=person(riverside.club, name))
    entrant_join(competition=competition, player=mia)
    competition_start(competition=competition)
    client = signed_in(mia)
    assert said(client.post(reverse("site:competition-leave", args=[competition.pk]), follow=True)) == [
        "entrants can leave only before the start; the competition is running"
    ]
    page = client.get(page_of(competition)).text
    assert reverse("site:competition-leave", args=[competition.pk]) not in page
    late = signed_in(person(riverside.club, "lea"))
    assert said(late.post(reverse("site:competition-enter", args=[competition.pk]), follow=True)) == [
        "entries are closed: the competition is running"
    ]


def test_a_bots_only_ladder_offers_people_no_enter_button_and_says_why(riverside: Club_) -> None:
    ladder = riverside.competition(game="war", options={}, format="rating_ladder")
    client = signed_in(person(riverside.club, "mia"))
    page = client.get(page_of(ladder)).text
    assert "People cannot enter: a rating ladder is for bots" in page
    assert reverse("site:competition-enter", args=[ladder.pk]) not in page
    refused = client.post(reverse("site:competition-enter", args=[ladder.pk]), follow=True)
    assert said(refused) == ["a rating ladder is for bots: people play in a challenge ladder"]


def test_a_full_competition_says_so(riverside: Club_) -> None:
    competition = riverside.competition(settings={"max_entrants": 2})
    for name in ("ann", "bob"):
        entrant_join(competition=competition, player=person(riverside.club, name))
    page = signed_in(person(riverside.club, "mia")).get(page_of(competition)).text
    assert "Every place is taken." in page
    assert re.search(r'id="competition-players">\s*2 of 2 places', page)


def test_the_buttons_take_a_post_and_a_visitor_is_sent_to_sign_in_and_back(riverside: Club_) -> None:
    competition = riverside.competition()
    enter = reverse("site:competition-enter", args=[competition.pk])
    assert signed_in(person(riverside.club, "mia")).get(enter).status_code == 405
    visitor = Client().post(enter)
    assert visitor.status_code == 302
    assert visitor.url == f"/accounts/login/?next=/competitions/{competition.pk}/"
    assert Client().post(reverse("site:competition-enter", args=[999999])).status_code == 404


# --- a challenge ladder --------------------------------------------------------------------------------------


def challenge_url(ladder: Competition) -> str:
    return reverse("site:competition-challenge", args=[ladder.pk])


def leave_url(competition: Competition) -> str:
    return reverse("site:competition-leave", args=[competition.pk])


def decide_url(challenge: Challenge, decision: str) -> str:
    return reverse("site:challenge-decide", args=[challenge.pk, decision])


def challenge_buttons(html: str) -> list[str]:
    return re.findall(r'aria-label="Challenge ([^"]+)"', html)


def test_challenge_buttons_stand_next_to_those_within_reach_and_free(riverside: Club_) -> None:
    ladder, people = riverside.ladder(["ann", "bob", "cat", "dan", "eve"], challenge_reach=2)
    eve = signed_in(people["eve"])
    assert challenge_buttons(eve.get(page_of(ladder)).text) == ["Cat", "Dan"]
    # Bob and Cat in a challenge of their own: Cat is no longer free.
    bob_, cat_ = (Entrant.objects.get(competition=ladder, player=people[n]) for n in ("bob", "cat"))
    challenge_issue(competition=ladder, challenger=cat_, defender=bob_, issued_by=people["cat"])
    assert challenge_buttons(eve.get(page_of(ladder)).text) == ["Dan"]
    # The top of the ladder challenges nobody; a visitor and a non-entrant see no buttons.
    assert challenge_buttons(signed_in(people["ann"]).get(page_of(ladder)).text) == []
    assert challenge_buttons(Client().get(page_of(ladder)).text) == []
    assert challenge_buttons(signed_in(riverside.organiser).get(page_of(ladder)).text) == []


def test_a_challenge_is_issued_answered_and_linked_to_its_table(
    riverside: Club_, django_capture_on_commit_callbacks: Any
) -> None:
    ladder, people = riverside.ladder(["ann", "bob", "cat"], challenge_days=2)
    ann_ = Entrant.objects.get(competition=ladder, player=people["ann"])
    cat = signed_in(people["cat"])
    issued = cat.post(challenge_url(ladder), {"opponent": ann_.pk}, follow=True)
    (message,) = said(issued)
    assert message.startswith("You challenged Ann: they have until ") and message.endswith(" UTC to accept.")
    challenge = Challenge.objects.get(competition=ladder)
    assert challenge.status == Challenge.Status.ISSUED
    mine = cat.get(page_of(ladder)).text
    assert "You challenged Ann." in mine and "Ann has until" in mine and "(in 2 days)" in mine
    assert decide_url(challenge, "withdraw") in mine
    ann = signed_in(people["ann"])
    theirs = ann.get(page_of(ladder)).text
    assert "Cat challenged you." in theirs and "Answer by" in theirs and "(in 2 days)" in theirs
    # Neither may leave while the challenge is open (the ladder would refuse): the page says so, with no button.
    for page in (mine, theirs):
        assert "You can leave once your open challenge is decided." in page and leave_url(ladder) not in page
    assert decide_url(challenge, "accept") in theirs and decide_url(challenge, "decline") in theirs
    # Only the challenged answers, only the challenger withdraws.
    bob = signed_in(people["bob"])
    assert said(bob.post(decide_url(challenge, "accept"), follow=True)) == [
        "Only the challenged player can accept challenge 1."
    ]
    assert said(ann.post(decide_url(challenge, "withdraw"), follow=True)) == [
        "Only the challenger can withdraw challenge 1."
    ]
    with django_capture_on_commit_callbacks(execute=True):
        accepted = ann.post(decide_url(challenge, "accept"), follow=True)
    assert said(accepted) == ["You accepted the challenge: play the match from its table."]
    challenge.refresh_from_db()
    assert challenge.status == Challenge.Status.ACCEPTED
    assert Match.objects.get(pk=challenge.match_id).status == Match.Status.LIVE
    table = reverse("site:table", args=[challenge.match_id])
    for client in (ann, cat):
        assert f'href="{table}"' in client.get(page_of(ladder)).text
    # An accepted challenge is decided by its match: no more declining or withdrawing.
    assert said(ann.post(decide_url(challenge, "decline"), follow=True)) == [
        "challenge 1 was accepted: it is decided by its match now"
    ]


def test_declining_gives_up_the_place_and_withdrawing_moves_nobody(riverside: Club_) -> None:
    ladder, people = riverside.ladder(["ann", "bob", "cat"])
    ann_ = Entrant.objects.get(competition=ladder, player=people["ann"])
    bob = signed_in(people["bob"])
    bob.post(challenge_url(ladder), {"opponent": ann_.pk}, follow=True)
    first = Challenge.objects.get(competition=ladder, number=1)
    assert said(bob.post(decide_url(first, "withdraw"), follow=True)) == ["You withdrew your challenge."]
    first.refresh_from_db()
    assert first.status == Challenge.Status.WITHDRAWN
    assert list(Entrant.objects.filter(competition=ladder).order_by("position").values_list("name", flat=True)) == [
        "Ann",
        "Bob",
        "Cat",
    ]
    bob.post(challenge_url(ladder), {"opponent": ann_.pk}, follow=True)
    second = Challenge.objects.get(competition=ladder, number=2)
    declined = signed_in(people["ann"]).post(decide_url(second, "decline"), follow=True)
    assert said(declined) == ["You declined the challenge, and so gave up your place to the challenger."]
    assert list(Entrant.objects.filter(competition=ladder).order_by("position").values_list("name", flat=True)) == [
        "Bob",
        "Ann",
        "Cat",
    ]


def test_challenges_the_ladder_refuses_are_messages_in_its_words(riverside: Club_) -> None:
    ladder, people = riverside.ladder(["ann", "bob", "cat", "dan"], challenge_reach=1)
    ids = {n: Entrant.objects.get(competition=ladder, player=people[n]).pk for n in people}
    dan = signed_in(people["dan"])
    assert said(dan.post(challenge_url(ladder), {"opponent": ids["ann"]}, follow=True)) == [
        "Ann is 3 places above Dan: this ladder lets an entrant challenge up to 1 places above"
    ]
    assert said(signed_in(people["ann"]).post(challenge_url(ladder), {"opponent": ids["dan"]}, follow=True)) == [
        "Dan is below Ann (place 4, not above 1)"
    ]
    assert said(dan.post(challenge_url(ladder), {"opponent": 999999}, follow=True)) == [
        "That player is not on this ladder."
    ]
    assert said(dan.post(challenge_url(ladder), {"opponent": "x"}, follow=True)) == [
        "Choose whom to challenge from the ladder."
    ]
    signed_in(people["cat"]).post(challenge_url(ladder), {"opponent": ids["bob"]})
    assert said(dan.post(challenge_url(ladder), {"opponent": ids["cat"]}, follow=True)) == [
        "Cat is already in challenge 1"
    ]
    outsider = signed_in(person(riverside.club, "sven"))
    assert said(outsider.post(challenge_url(ladder), {"opponent": ids["cat"]}, follow=True)) == [
        "Enter the ladder to challenge someone on it."
    ]
    assert Challenge.objects.filter(competition=ladder).count() == 1
    assert Client().post(decide_url(Challenge.objects.get(), "accept")).status_code == 302
    assert signed_in(people["bob"]).post(reverse("site:challenge-decide", args=[1, "shrug"])).status_code == 404


def test_a_game_of_more_than_two_challenges_the_table_directly_above(riverside: Club_) -> None:
    ladder = riverside.competition(
        game="punk", options={}, format="challenge_ladder", settings={"players_per_match": 3}
    )
    people = {n: person(riverside.club, n) for n in ("ann", "bob", "cat", "dan")}
    entrants = [entrant_join(competition=ladder, player=p) for p in people.values()]
    competition_start(competition=ladder, order=[e.pk for e in entrants])
    dan = signed_in(people["dan"])
    page = dan.get(page_of(ladder)).text
    assert "Challenge Bob and Cat" in page and challenge_buttons(page) == []
    dan.post(challenge_url(ladder))
    challenge = Challenge.objects.get(competition=ladder)
    assert sorted(challenge.sides.values_list("entrant__name", flat=True)) == ["Bob", "Cat", "Dan"]
    assert "Bob and Cat have until" not in dan.get(page_of(ladder)).text  # "They have until" for several
    assert "They have until" in dan.get(page_of(ladder)).text


def test_deadlines_are_said_in_words_to_the_nearest_unit() -> None:
    now = timezone.now()
    assert in_words(now + timedelta(days=2, seconds=-30), now) == "in 2 days"
    assert in_words(now + timedelta(hours=5, minutes=10), now) == "in 5 hours"
    assert in_words(now + timedelta(minutes=1, seconds=5), now) == "in 1 minute"
    assert in_words(now + timedelta(seconds=20), now) == "in less than a minute"
    assert in_words(now - timedelta(seconds=1), now) == "passed"


# --- query counts ----------------------------------------------------------------------------------------------


def busy_ladder(riverside: Club_, size: int, on_commit: Any) -> tuple[Competition, dict[str, Player]]:
    """A ladder of ``size`` people and two bots, with a declined challenge, two open ones and the bots' accepted
    one (its match made)."""
    ladder, people = riverside.ladder([f"p{i}" for i in range(size)], challenge_reach=3)
    for _ in range(2):
        version = BotVersionFactory(bot=BotFactory(game=ladder.game, owner=riverside.organiser))
        entrant_join(competition=ladder, bot_version=version)
    order = list(Entrant.objects.filter(competition=ladder).order_by("position"))
    # p1 takes p0's place; p3 challenges p2 and p5 p4; the bots accept theirs at once.
    for challenger, defender in (
        (order[1], order[0]),
        (order[3], order[2]),
        (order[5], order[4]),
        (order[-1], order[-2]),
    ):
        challenge_issue(competition=ladder, challenger=challenger, defender=defender, issued_by=riverside.organiser)
    challenge_decline(competition=ladder, number=1, defender=order[0])
    assert Match.objects.filter(competition=ladder).count() == 1
    return ladder, people


@pytest.mark.parametrize("size", [6, 12])
def test_the_ladder_page_costs_the_same_queries_however_many_players(
    riverside: Club_, size: int, django_assert_num_queries: Any, django_capture_on_commit_callbacks: Any
) -> None:
    ladder, people = busy_ladder(riverside, size, django_capture_on_commit_callbacks)
    viewer = signed_in(people["p2"])  # in an open challenge: their part of the page shows it
    visitor = Client()
    with django_assert_num_queries(15):  # + the results count
        assert visitor.get(page_of(ladder)).status_code == 200
    with django_assert_num_queries(28):
        page = viewer.get(page_of(ladder))
    assert page.status_code == 200 and "You are in place" in page.text


@pytest.mark.parametrize("size", [3, 8])
def test_an_open_competition_page_costs_the_same_queries_however_many_players(
    riverside: Club_, size: int, django_assert_num_queries: Any
) -> None:
    competition = riverside.competition(format="swiss")
    for i in range(size):
        entrant_join(competition=competition, player=person(riverside.club, f"p{i}"))
    EntrantFactory(competition=competition)
    viewer = signed_in(riverside.organiser)
    with django_assert_num_queries(20):  # + the results count
        assert viewer.get(page_of(competition)).status_code == 200


def test_the_table_above_is_named_in_ladder_order_whatever_the_ids() -> None:
    """The players of a multiplayer challenge are named top first, not in the order a set of their ids keeps
    (ids 16 and 9 in a set iterate 16 first)."""
    from tournaments.ladder_selectors import ChallengeLadder, Rung, own_place

    rungs = [
        Rung(place=1, entrant_id=3, name="Ann", kind="person", challenge=None, player_id=103),
        Rung(place=2, entrant_id=9, name="Bob", kind="person", challenge=None, player_id=109),
        Rung(place=3, entrant_id=16, name="Cat", kind="person", challenge=None, player_id=116),
        Rung(place=4, entrant_id=20, name="Dan", kind="person", challenge=None, player_id=120),
    ]
    assert list(frozenset({9, 16})) == [16, 9]  # the order this test is about
    mine = own_place(ChallengeLadder(rungs=rungs, left=[]), player_id=120, reach=1, players=3)
    assert mine is not None and mine.table_above == ["Bob", "Cat"]
