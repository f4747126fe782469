"""A person's page without a browser (issue 23): their clubs, results, ratings chart and head to head, open to
anyone; nothing private on it; the site's 404 for an unknown name; its query count.

The page in a real browser, chart drawn, is in tests/e2e/test_site_front.py.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from league.models import Membership
from league.ratings import DEFAULT_MU
from tests.factories import UserFactory
from tests.tournaments.front_support import club, live_match, person, played_1923_table, played_war, seat_names
from tournaments.models import Match, Standing

pytestmark = pytest.mark.django_db


def page_of(username: str, client: Client | None = None) -> str:
    response = (client or Client()).get(reverse("site:person", args=[username]))
    assert response.status_code == 200
    return response.content.decode()


def section(html: str, element_id: str) -> str:
    found = re.search(rf'<(ul|p|table)[^>]* id="{element_id}".*?</\1>', html, re.S)
    assert found is not None, f"no #{element_id} on the page"
    return found.group(0)


def head_to_head_rows(html: str) -> list[tuple[str, ...]]:
    rows = re.findall(
        r'<th scope="row">(?:<a href="[^"]+">)?([^<]+)(?:</a>)?.*?</th>\s*'
        r'<td class="number">(\d+)</td><td class="number">(\d+)</td><td class="number">(\d+)</td>'
        r'<td class="number">(\d+)</td>',
        section(html, "head-to-head"),
        re.S,
    )
    return [tuple(part.strip() for part in row) for row in rows]


def test_anyone_reads_a_persons_clubs_results_ratings_and_head_to_head() -> None:
    river = club("Riverside")
    hill = club("Hill club")
    ann = person("ann", river)
    Membership.objects.create(club=hill, player=ann, role=Membership.Role.ORGANISER)
    ben, cat = person("ben", river), person("cat", river)
    competition = played_war(river, [ann, ben, cat], [[1, 2], [1, 2], [1, 1]], "Spring war")
    seats = [seat_names(m) for m in Match.objects.filter(competition=competition).order_by("round__number", "id")]
    html = page_of("ann")

    clubs = section(html, "clubs")
    assert re.findall(r'href="/clubs/([^/]+)/">', clubs) == ["hill-club", "riverside"]
    assert "Organiser" in clubs

    # Each match's seat 0 won its first two matches; the third was drawn.
    expected: dict[str, tuple[int, int, int]] = {}
    for names, outcome in zip(seats, ("first", "first", "level"), strict=True):
        if "Ann" not in names:
            continue
        other = next(n for n in names if n != "Ann")
        won = outcome == "first" and names[0] == "Ann"
        lost = outcome == "first" and names[0] != "Ann"
        expected[other] = (int(won), int(outcome == "level"), int(lost))
    rows = head_to_head_rows(html)
    assert sorted(rows) == sorted((name, "1", *map(str, wdl)) for name, wdl in expected.items())
    assert 'href="/players/ben/">Ben</a>' in section(html, "head-to-head")

    results = section(html, "results")
    assert results.count("<li ") == 2
    words = re.findall(r'class="pill[^"]*">(Won|Drew|Lost)</span>', results)
    assert sorted(words) == sorted(
        {(1, 0, 0): "Won", (0, 1, 0): "Drew", (0, 0, 1): "Lost"}[wdl] for wdl in expected.values()
    )
    assert f'href="{reverse("site:competition", args=[competition.pk])}">Spring war</a>' in results

    standing = Standing.objects.get(entrant__player=ann)
    assert f"{standing.mu:.1f}" in section(html, "ratings")
    chart = json.loads(re.search(r'id="rating-chart-data" type="application/json">(.*?)</script>', html, re.S)[1])  # type: ignore[index]
    assert [line["name"] for line in chart] == ["Spring war"]
    points = chart[0]["points"]
    assert points[0][1] == DEFAULT_MU and len(points) == 3
    assert points[-1][1] == pytest.approx(standing.mu, abs=1e-3)
    assert [x for x, _ in points] == sorted(x for x, _ in points)


def test_a_table_of_three_reads_as_a_place_and_counts_once_against_each_other_player() -> None:
    river = club("Riverside")
    ann, ben, cat = person("ann", river), person("ben", river), person("cat", river)
    competition = played_1923_table(river, [ann, ben, cat], [1, 2, 2], "Three at a table")
    names = seat_names(competition.matches.get())
    first = names[0]
    html = page_of(first.lower())
    assert re.search(r'class="pill">1st of 3</span>', section(html, "results"))
    assert sorted(row[2] for row in head_to_head_rows(html)) == ["1", "1"]  # won against both
    second = names[1]
    html = page_of(second.lower())
    assert re.search(r'class="pill">2nd= of 3</span>', section(html, "results"))
    assert sorted((row[0], row[2:]) for row in head_to_head_rows(html)) == sorted(
        [(names[0], ("0", "0", "1")), (names[2], ("0", "1", "0"))]
    )


def test_nothing_private_is_shown_and_a_match_still_being_played_is_not_a_result() -> None:
    river = club("Riverside")
    ann, ben = person("ann", river), person("ben", river)
    match = live_match(river, [ann, ben])
    html = page_of("ann")
    assert "ann@example.org" not in html and "@example.org" not in html
    assert str(match.seed) not in html
    assert "No finished matches yet" in html and "No opponents met yet" in html and "No ratings yet" in html
    assert 'id="rating-chart"' not in html


def test_the_persons_own_page_says_it_is_what_everyone_sees() -> None:
    ann = person("ann")
    client = Client()
    client.force_login(ann.user)
    assert "this is your page, as everyone sees it" in page_of("ann", client)
    assert "this is your page" not in page_of("ann")


def test_an_unknown_name_is_the_sites_own_404() -> None:
    response = Client().get(reverse("site:person", args=["nobody"]))
    assert response.status_code == 404
    assert b"We could not find that page" in response.content


def test_an_account_without_a_player_profile_has_a_plain_page() -> None:
    UserFactory(username="admin")
    html = page_of("admin")
    assert "<h1>admin</h1>" in html and "not in a club yet" in html


def test_the_page_costs_the_same_queries_however_much_was_played(django_assert_num_queries: Any) -> None:
    river = club("Riverside")
    ann = person("ann", river)

    def scene(n: int) -> None:
        others = [person(f"p{n}x{i}", river) for i in range(3)]
        for i, other in enumerate(others):
            played_war(river, [ann, other], [[1, 2]], f"War {n}-{i}")
        played_1923_table(river, [ann, *others[:2]], [1, 2, 3], f"Table {n}")

    # The user, the player; clubs; results and their tables; ratings; the chart's points and entrants;
    # head to head's matches and the other seats at them.
    scene(1)
    with django_assert_num_queries(10):
        html = page_of("ann")
    assert section(html, "results").count("<li ") == 4
    scene(2)
    with django_assert_num_queries(10):
        html = page_of("ann")
    assert section(html, "results").count("<li ") == 8
    assert len(head_to_head_rows(html)) == 6


def test_a_user_name_with_every_allowed_sign_has_a_page_and_a_link_to_it() -> None:
    river = club("Riverside")
    odd, ben = person("m.e+x@mple-1_a", river, display_name="Odd"), person("ben", river)
    played_war(river, [odd, ben], [[1, 1]], "Spring war")
    html = page_of("m.e+x@mple-1_a")
    assert "<h1>Odd</h1>" in html
    assert f'href="{reverse("site:person", args=["m.e+x@mple-1_a"])}">Odd</a>' in page_of("ben")
