"""The web table's pages without a browser: sign-in, who may open what, the assets, the admin's link.

The pages' behaviour in a real browser is in tests/e2e/test_web_table.py.
"""

from __future__ import annotations

import pytest
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import reverse

from league.models import Player
from tests.factories import ClubFactory, CompetitionFactory, MembershipFactory, PlayerFactory, UserFactory, full_options
from tournaments.models import Match
from tournaments.services.competitions import competition_start, entrant_join

pytestmark = pytest.mark.django_db


def member(club: object, username: str, **user: object) -> Player:
    player = PlayerFactory(user=UserFactory(username=username, **user), display_name=username.capitalize())
    MembershipFactory(club=club, player=player)
    return player


def live_1923_match() -> tuple[Match, list[Player]]:
    club = ClubFactory()
    people = [member(club, "ann"), member(club, "ben")]
    competition = CompetitionFactory(club=club, game="1923", options=full_options("1923", 2, {"mode": "set"}))
    for player in people:
        entrant_join(competition=competition, player=player)
    competition_start(competition=competition)
    return Match.objects.get(competition=competition), people


def test_signing_in_leads_to_the_dashboard_or_where_next_says(client: Client) -> None:
    UserFactory(username="ann")
    page = client.get(reverse("site:login"))
    assert page.status_code == 200 and b'name="username"' in page.content
    response = client.post(reverse("site:login"), {"username": "ann", "password": "pw"})
    assert response.status_code == 302 and response.headers["Location"] == reverse("site:home")
    assert client.get(reverse("site:matches")).status_code == 200
    client.logout()
    response = client.post(
        f"{reverse('site:login')}?next={reverse('site:matches')}", {"username": "ann", "password": "pw"}
    )
    assert response.status_code == 302 and response.headers["Location"] == reverse("site:matches")


def test_a_wrong_password_is_refused_with_a_message(client: Client) -> None:
    UserFactory(username="ann")
    response = client.post(reverse("site:login"), {"username": "ann", "password": "nope"})
    assert response.status_code == 200 and b"do not match" in response.content


def test_my_matches_needs_a_sign_in(client: Client) -> None:
    response = client.get(reverse("site:matches"))
    assert response.status_code == 302 and response.headers["Location"].startswith(reverse("site:login"))


def test_signing_out_takes_a_post(client: Client) -> None:
    client.force_login(UserFactory(username="ann"))
    assert client.post(reverse("site:logout")).status_code == 302
    assert client.get(reverse("site:matches")).status_code == 302


def test_the_table_page_is_a_shell_that_names_its_api_and_sets_the_csrf_cookie(client: Client) -> None:
    match, people = live_1923_match()
    client.force_login(people[0].user)
    page = client.get(reverse("site:table", args=[match.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert f'data-table-url="/api/matches/{match.pk}/table/"' in html
    assert f'data-events-url="/api/matches/{match.pk}/events/"' in html
    assert "csrftoken" in page.cookies
    # The cards come only from the seat's API view, in the browser: the page itself carries none.
    assert "data-card" not in html


def test_a_missing_match_has_no_table(client: Client) -> None:
    assert client.get(reverse("site:table", args=[999_999])).status_code == 404


def test_the_scripts_and_styles_are_served_from_the_project(client: Client) -> None:
    for name in ("play/cards.js", "play/games.js", "play/table.js", "play/matches.js", "site/site.css"):
        assert finders.find(name), name
    for name in ("vendor/htmx/htmx.min.js", "vendor/axe-core/axe.min.js"):  # .ci/vendor-js, by make setup
        assert finders.find(name), name


def test_the_admin_match_page_links_a_live_match_to_its_table(client: Client) -> None:
    match, _ = live_1923_match()
    assert match.status == Match.Status.LIVE
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    page = client.get(reverse("admin:tournaments_match_change", args=[match.pk]))
    assert page.status_code == 200
    assert f'href="{reverse("site:table", args=[match.pk])}">open the table' in page.content.decode()
