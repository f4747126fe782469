"""The front page without a browser (issue 23): what a visitor sees, a member's dashboard of what needs them,
who sees an organiser's work, the empty states, where signing in and up lands, and the pages' query counts.

The journeys in a real browser are in tests/e2e/test_site_front.py.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from league.models import Club, Membership, Player
from tests.factories import UserFactory
from tests.league.test_signup import GOOD_PASSWORD
from tests.tournaments.front_support import (
    asks_to_join,
    challenge_awaiting,
    club,
    disputed,
    live_match,
    person,
    played_war,
    whose_turn,
)
from tournaments.live_selectors import my_matches
from tournaments.models import Competition
from tournaments.services.competitions import competition_cancel

pytestmark = pytest.mark.django_db


def page_of(client: Client) -> str:
    response = client.get(reverse("site:home"))
    assert response.status_code == 200
    return response.content.decode()


def signed_in(player: Player) -> Client:
    client = Client()
    client.force_login(player.user)
    return client


def section(html: str, element_id: str) -> str:
    """The element with this id, up to the end of its list or paragraph: what one part of the page says."""
    found = re.search(rf'<(ul|p|table)[^>]* id="{element_id}".*?</\1>', html, re.S)
    assert found is not None, f"no #{element_id} on the page"
    return found.group(0)


# --- A visitor ---------------------------------------------------------------------------------------


def test_a_visitor_sees_what_the_site_is_the_clubs_and_how_each_admits_and_where_to_sign_up() -> None:
    club("Riverside", Club.Joining.OPEN)
    club("Hill club", Club.Joining.REQUEST)
    club("Quiet corner", Club.Joining.INVITATION)
    html = page_of(Client())
    assert "ladders and tournaments of War, 1923, Banter and Punk" in html
    assert "against each other and against bots" in html
    clubs = section(html, "clubs")
    assert re.findall(r'href="/clubs/([^/]+)/">([^<]+)</a>\s*<span class="meta">([^·]+?) ·', clubs) == [
        ("hill-club", "Hill club", "Ask to join"),
        ("quiet-corner", "Quiet corner", "By invitation only"),
        ("riverside", "Riverside", "Anyone can join"),
    ]
    assert f'href="{reverse("account_signup")}"' in html and f'href="{reverse("site:login")}"' in html


def test_a_visitor_sees_competitions_open_for_entry_first_then_running_and_not_finished_or_cancelled() -> None:
    where = club("Riverside")
    ann, ben, cat = (person(name, where) for name in ("ann", "ben", "cat"))
    running = live_match(where, [ann, ben], name="Running 1923")
    finished = played_war(where, [ann, ben], [[1, 2]], "Finished war")
    assert finished.status == Competition.Status.FINISHED
    cancelled = Competition.objects.create(
        club=where, name="Called off", game="war", seed=1, created_by=cat, status=Competition.Status.OPEN
    )
    competition_cancel(competition=cancelled)
    open_one = Competition.objects.create(club=where, name="Spring war", game="war", seed=2, created_by=cat)
    listed = section(page_of(Client()), "competitions")
    assert re.findall(r'href="/competitions/(\d+)/">([^<]+)</a>', listed) == [
        (str(open_one.pk), "Spring war"),
        (str(running.competition_id), "Running 1923"),
    ]
    assert "Open for entry" in listed and "Being played" in listed


def test_the_front_door_lists_a_dozen_clubs_and_links_to_all() -> None:
    for n in range(15):
        club(f"Club {n:02}")
    html = page_of(Client())
    assert section(html, "clubs").count("<li>") == 12
    assert 'href="/clubs/">See all 15 clubs</a>' in html


def test_the_visitors_page_costs_the_same_queries_however_many_clubs_and_competitions(
    django_assert_num_queries: Any,
) -> None:
    def scene(n: int) -> None:
        for i in range(n):
            where = club(f"Club {n}-{i}", Club.Joining.REQUEST)
            first, second = person(f"p{n}x{i}", where), person(f"q{n}x{i}", where)
            live_match(where, [first, second], name=f"Live {n}-{i}")

    scene(2)
    with django_assert_num_queries(3):  # clubs, how many, competitions
        html = page_of(Client())
    assert section(html, "competitions").count("<li>") == 2
    scene(5)
    with django_assert_num_queries(3):
        html = page_of(Client())
    assert section(html, "competitions").count("<li>") == 7


# --- A member's dashboard ------------------------------------------------------------------------------


def test_the_table_waiting_for_a_member_comes_first_linked_to_the_table_and_the_other_sees_it_as_next() -> None:
    where = club("Riverside")
    ann, ben = person("ann", where), person("ben", where)
    match = live_match(where, [ann, ben])
    mover = whose_turn(match, [ann, ben])
    waiting = ben if mover == ann else ann
    needs = section(page_of(signed_in(mover)), "needs-you")
    assert f'href="{reverse("site:table", args=[match.pk])}">Play your move: Thursday banter, round 1</a>' in needs
    assert f"against {waiting.display_name}" in needs
    other = page_of(signed_in(waiting))
    assert "Nothing needs you just now" in section(other, "needs-you")
    upcoming = section(other, "next-matches")
    assert f'href="{reverse("site:table", args=[match.pk])}">Thursday banter, round 1</a>' in upcoming
    assert "waiting for another player to move" in upcoming


def test_a_challenge_awaiting_the_defender_shows_its_deadline_and_links_to_the_ladder() -> None:
    where = club("Riverside")
    olga = person("olga", where, role=Membership.Role.ORGANISER)
    ann, ben = person("ann", where), person("ben", where)
    challenge = challenge_awaiting(where, olga, challenger=ben, defender=ann)
    needs = section(page_of(signed_in(ann)), "needs-you")
    ladder = reverse("site:competition", args=[challenge.competition_id])
    assert f'href="{ladder}">Ben challenged you in Club ladder</a>' in needs
    assert f'Accept and play it by <time datetime="{challenge.deadline.isoformat()}">' in needs
    assert challenge.deadline.strftime("%a %-d %b, %H:%M UTC") in needs
    # The challenger has already said yes: nothing waits for them.
    assert "Nothing needs you just now" in section(page_of(signed_in(ben)), "needs-you")


def test_only_the_clubs_organisers_see_its_join_requests_and_disputes() -> None:
    hill = club("Hill club", Club.Joining.REQUEST)
    river = club("Riverside")
    olga = person("olga", hill, river, role=Membership.Role.ORGANISER)
    rita = person("rita", river, role=Membership.Role.ORGANISER)  # organises Riverside only
    ann, ben = person("ann", hill, river), person("ben", hill, river)
    asks_to_join(hill, person("dan"), person("eve"))
    match = live_match(hill, [ann, ben])
    disputed(match, ann)
    needs = section(page_of(signed_in(olga)), "needs-you")
    assert f'href="{reverse("site:club-requests", args=["hill-club"])}">2 people ask to join Hill club</a>' in needs
    manage = reverse("site:competition-manage", args=[match.competition_id])
    assert f'href="{manage}">1 disputed game record in Thursday banter</a>' in needs
    for outsider in (rita, ann):
        html = page_of(signed_in(outsider))
        assert "ask to join" not in html and "disputed" not in html


def test_a_member_named_to_run_a_competition_sees_its_disputes_only_while_in_its_club() -> None:
    hill = club("Hill club")
    ann, ben, cat = person("ann", hill), person("ben", hill), person("cat", hill)
    match = live_match(hill, [ann, ben])
    match.competition.organisers.add(cat)
    disputed(match, ann)
    assert "1 disputed game record" in page_of(signed_in(cat))
    Membership.objects.filter(player=cat).delete()
    assert "disputed" not in page_of(signed_in(cat))


def test_a_member_sees_their_clubs_latest_results_and_ratings() -> None:
    where = club("Riverside")
    olga = person("olga", where, role=Membership.Role.ORGANISER)
    ann, ben = person("ann", where), person("ben", where)
    played_war(where, [ann, ben], [[1, 2]], "Spring war")
    html = page_of(signed_in(olga))
    assert 'href="/clubs/riverside/">Riverside</a>' in section(html, "my-clubs")
    assert "Organiser" in section(html, "my-clubs")
    html = page_of(signed_in(ann))
    results = section(html, "latest-results")
    assert "Spring war" in results and 'href="/players/ben/">Ben</a>' in results
    assert re.search(r'class="pill (good|bad|)">(Won|Lost)</span>', results)
    assert "Spring war" in section(html, "my-ratings")


def test_a_newcomer_is_told_what_to_do_next() -> None:
    html = page_of(signed_in(person("nell")))
    assert "You are not in a club yet." in section(html, "my-clubs")
    assert '<a class="button primary" href="/clubs/">Find a club</a>' in html
    assert "Nothing needs you just now" in html
    assert "No matches coming up" in html and "No results yet" in html


def test_an_account_without_a_player_profile_gets_an_empty_dashboard() -> None:
    client = Client()
    client.force_login(UserFactory(username="admin"))
    html = page_of(client)
    assert "Hello, admin" in html and "You are not in a club yet" in html


def test_the_dashboard_costs_the_same_queries_however_much_needs_the_member(django_assert_num_queries: Any) -> None:
    hill = club("Hill club", Club.Joining.REQUEST)
    ann = person("ann", hill, role=Membership.Role.ORGANISER)
    client = signed_in(ann)

    def scene(n: int) -> None:
        for i in range(n):
            where = club(f"Club {n}-{i}", Club.Joining.REQUEST)
            Membership.objects.create(club=where, player=ann, role=Membership.Role.ORGANISER)
            other, third = person(f"p{n}x{i}", where), person(f"q{n}x{i}", where)
            match = live_match(where, [ann, other], name=f"Live {n}-{i}")
            disputed(match, other)
            asks_to_join(where, person(f"r{n}x{i}"))
            challenge_awaiting(where, ann, challenger=third, defender=ann)
            played_war(where, [ann, other], [[1, 2]], f"War {n}-{i}")

    # The session, its user and their player; the live selector's matches, their seats, entrants and
    # tables; the challenges; join requests; disputes; clubs; results and their tables; ratings.
    def urgent(rows: int) -> int:
        # Each row adds a challenge, a club's requests and a competition's dispute; the tables where it is
        # ann's turn are as the deals fell.
        return sum(1 for m in my_matches(player=ann) if m["my_turn"]) + 3 * rows

    scene(2)
    with django_assert_num_queries(15):
        html = page_of(client)
    assert section(html, "needs-you").count('class="urgent"') == urgent(2)
    scene(4)
    with django_assert_num_queries(15):
        html = page_of(client)
    assert section(html, "needs-you").count('class="urgent"') == urgent(6)
    assert section(html, "my-clubs").count("<li>") == 7


# --- Where signing in and up lands ---------------------------------------------------------------------


def test_signing_in_without_a_next_lands_on_the_dashboard() -> None:
    person("ann")
    client = Client()
    response = client.post(reverse("site:login"), {"username": "ann", "password": "pw"})
    assert response.status_code == 302 and response["Location"] == reverse("site:home")
    assert "Hello, Ann" in page_of(client)


def test_signing_up_lands_on_the_dashboard() -> None:
    client = Client()
    response = client.post(reverse("account_signup"), {"username": "Webby", "password1": GOOD_PASSWORD})
    assert response.status_code == 302 and response["Location"] == reverse("site:home")
    assert "You are not in a club yet" in page_of(client)
