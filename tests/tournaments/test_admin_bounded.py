"""The admin's pages stay bounded on a big ladder (issue 23): the competition list and a ladder's page take as many
queries for 10 times the entrants, matches and competitions, a ladder's page lists its latest matches and first
entrants with links to the rest; and games, seats, scores and ratings are written as people write them."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from league.models import Player
from tests.factories import CompetitionFactory, EntrantFactory, PlayerFactory, UserFactory
from tests.tournaments.helpers import started
from tournaments.admin.pages import ENTRANTS_ON_PAGE, MATCHES_ON_PAGE, STANDINGS_ON_PAGE
from tournaments.bench_admin import BenchScene, build_scene
from tournaments.competition_sheets import CHART_LINES
from tournaments.models import Competition, Game, Match, MatchParticipant, MatchSet, Standing
from tournaments.services.play import competition_play_pending

pytestmark = pytest.mark.django_db

LIST = reverse("admin:tournaments_competition_changelist")


def change_url(obj: Any) -> str:
    return reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_change", args=[obj.pk])


def scene(entrants: int, matches: int, small: int, token: str) -> BenchScene:
    return build_scene(entrants=entrants, matches=matches, token=token, small=small)


def signed_in(client: Client, player: Player) -> Client:
    client.force_login(player.user)
    return client


def queries(client: Client, url: str) -> tuple[int, str]:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(captured), response.text


# --- Bounded pages -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("who", ["superuser", "organiser"])
def test_the_competition_list_takes_as_many_queries_for_ten_times_the_rows(client: Client, who: str) -> None:
    small = scene(entrants=8, matches=20, small=3, token="a")
    you = signed_in(client, getattr(small, who))
    you.get(LIST)  # the first page of a session fills per-process caches
    few, _ = queries(you, LIST)
    big = scene(entrants=80, matches=200, small=30, token="b")
    # The organiser of the second scene's club is another person: sign in as the same kind of user there.
    you = signed_in(client, getattr(big, who))
    many, page = queries(you, LIST)
    assert many == few
    # The counts are each competition's own, from their subqueries.
    row = re.search(rf"{big.ladder.name}.*?</tr>", page, re.S)
    assert row is not None
    cells = re.findall(r'<td class="field-(entrant_count|progress)">([^<]*)</td>', row.group(0))
    assert dict(cells) == {"entrant_count": "80", "progress": "200 / 200"}


@pytest.mark.parametrize("who", ["superuser", "organiser"])
def test_a_ladder_s_page_takes_as_many_queries_and_shows_as_many_rows_for_ten_times_the_rows(
    client: Client, who: str
) -> None:
    # More than every part of the page shows (entrants, standings, chart lines, a head-to-head matrix), ten times over.
    small = scene(entrants=STANDINGS_ON_PAGE + 5, matches=MATCHES_ON_PAGE + 5, small=0, token="a")
    you = signed_in(client, getattr(small, who))
    you.get(change_url(small.ladder))
    few, _ = queries(you, change_url(small.ladder))
    big = scene(entrants=10 * STANDINGS_ON_PAGE, matches=10 * MATCHES_ON_PAGE, small=0, token="b")
    you = signed_in(client, getattr(big, who))
    many, page = queries(you, change_url(big.ladder))
    assert many == few
    # The latest matches only, the newest last, with the way to the rest.
    summaries = re.findall(r"Round (\d+), match (\d+):", page)
    assert len(summaries) == MATCHES_ON_PAGE
    latest = big.ladder.matches.order_by("-round__number", "-id")[:MATCHES_ON_PAGE]
    assert [(str(m.round.number), str(m.number)) for m in reversed(latest)] == summaries
    matches_link = f"{reverse('admin:tournaments_match_changelist')}?competition__id__exact={big.ladder.pk}"
    assert f'<a href="{matches_link}">All {10 * MATCHES_ON_PAGE} matches</a>' in page
    # The first entrants, and the way to all of them.
    assert page.count('name="entrants-') >= ENTRANTS_ON_PAGE  # their formset's hidden ids
    assert f'id="id_entrants-{ENTRANTS_ON_PAGE - 1}-id"' in page
    assert f'id="id_entrants-{ENTRANTS_ON_PAGE}-id"' not in page
    entrants_link = f"{reverse('admin:tournaments_entrant_changelist')}?competition__id__exact={big.ladder.pk}"
    assert f'<a href="{entrants_link}">All {10 * STANDINGS_ON_PAGE} entrants</a>' in page
    # The top of the standings, and the way to all of them; the chart draws the top few.
    standings_link = f"{reverse('admin:tournaments_standing_changelist')}?competition__id__exact={big.ladder.pk}"
    assert f'<a href="{standings_link}">All {10 * STANDINGS_ON_PAGE} standings</a>' in page
    standings = page[page.index('id="standings"') :]
    standings = standings[: standings.index("</table>")]
    assert standings.count("<tr>") == 1 + STANDINGS_ON_PAGE  # the heading's row, then the top rows
    assert f"The chart draws the top {CHART_LINES} of the standings." in page
    # The linked lists answer, filtered to the ladder.
    assert you.get(matches_link).context["cl"].result_count == 10 * MATCHES_ON_PAGE
    assert you.get(entrants_link).context["cl"].result_count == 10 * STANDINGS_ON_PAGE
    assert you.get(standings_link).context["cl"].result_count == 10 * STANDINGS_ON_PAGE
    # The public page's chart draws the same top of the table.
    public = Client().get(reverse("site:competition", args=[big.ladder.pk]))
    assert len(public.context["rating_chart"]) == CHART_LINES
    assert f"The chart draws the top {CHART_LINES} of the table." in public.text


def test_a_small_competition_s_page_lists_every_match_and_entrant_with_no_note(client: Client) -> None:
    small = scene(entrants=6, matches=MATCHES_ON_PAGE, small=0, token="a")
    page = signed_in(client, small.superuser).get(change_url(small.ladder)).text
    assert len(re.findall(r"Round \d+, match \d+:", page)) == MATCHES_ON_PAGE
    assert "All " not in page and "The latest" not in page and "The first" not in page


def test_the_organiser_of_one_club_does_not_see_the_other_s_competitions(client: Client) -> None:
    both = scene(entrants=6, matches=4, small=4, token="a")
    you = signed_in(client, both.organiser)
    listed = {c.pk for c in you.get(LIST).context["cl"].result_list}
    assert listed == set(Competition.objects.filter(club=both.ladder.club).values_list("pk", flat=True))
    assert len(listed) == 3  # the ladder and the two small competitions of its club
    other = Competition.objects.exclude(club=both.ladder.club).first()
    assert other is not None and you.get(change_url(other)).status_code in (302, 404)


# --- Numbers as people write them ----------------------------------------------------------------------


@pytest.fixture
def boss(client: Client) -> Client:
    root = PlayerFactory(user=UserFactory(username="root", is_staff=True, is_superuser=True))
    return signed_in(client, root)


def played(game: str = "banter", entrants: int = 2) -> Competition:
    competition = CompetitionFactory(game=game)
    for _ in range(entrants):
        EntrantFactory(competition=competition)
    started(competition)
    competition_play_pending(competition=competition)
    return competition


def cell_texts(page: str, css_class: str) -> list[str]:
    """The text of each cell of a list's column or an inline's read-only field (which wraps it in a paragraph)."""
    cells = re.findall(rf'<td class="field-{css_class}">(.*?)</td>', page, re.S)
    return [" ".join(re.sub(r"<[^>]+>", "", cell).split()) for cell in cells]


def test_a_match_page_counts_seats_from_1_and_writes_scores_and_points_plainly(boss: Client) -> None:
    match = played().matches.get()
    page = boss.get(change_url(match)).text
    assert cell_texts(page, "seat_shown") == ["1", "2"]
    assert sorted(cell_texts(page, "score_shown")) == ["0", "1"]
    assert sorted(cell_texts(page, "points_shown")) == ["0", "1"]
    assert "1.000000" not in page and "0.000000" not in page
    # A half is written as one: 0.5, and 2.5 for two and a half.
    MatchParticipant.objects.filter(match=match).update(score=Decimal("0.5"), match_units=1)
    page = boss.get(change_url(match)).text
    assert cell_texts(page, "score_shown") == ["0.5", "0.5"] and cell_texts(page, "points_shown") == ["0.5", "0.5"]
    MatchParticipant.objects.filter(match=match).update(score=Decimal("2.5"))
    assert cell_texts(boss.get(change_url(match)).text, "score_shown") == ["2.5", "2.5"]


def test_games_are_numbered_from_1_in_lists_headings_and_breadcrumbs(boss: Client) -> None:
    match = played().matches.get()
    game = Game.objects.get(match=match)
    assert game.number == 0  # stored from 0, as the engine numbers games
    listed = boss.get(reverse("admin:tournaments_game_changelist")).text
    assert f"game 1 of match {match.pk}" in listed and f"game 0 of match {match.pk}" not in listed
    assert cell_texts(listed, "game_number") == ["1"]
    page = boss.get(change_url(game)).text
    assert f"<h2>game 1 of match {match.pk}</h2>" in page
    assert re.search(rf"&rsaquo; game 1 of match {match.pk}\s*</div>", page)
    row = MatchSet.objects.filter(match=match).order_by("number").first()
    assert row is not None
    sets = boss.get(reverse("admin:tournaments_matchset_changelist")).text
    assert f"set 1 of game 1 of match {match.pk}" in sets and "1" in cell_texts(sets, "game_number")
    assert f"set 1 of game 1 of match {match.pk}" in boss.get(change_url(row)).text
    # The competition page's race table and the match page's chart say game 1 too.
    sheet = boss.get(change_url(match.competition)).text
    assert re.search(r"<td>1</td><td>1</td>", sheet) and "<td>0</td><td>1</td>" not in sheet
    assert 'data-game="1"' in boss.get(change_url(match)).text


def test_ratings_in_the_standing_list_have_two_places(boss: Client) -> None:
    competition = played()
    Standing.objects.filter(competition=competition).update(mu=29.47918472838506, sigma=7.341358364397955)
    page = boss.get(reverse("admin:tournaments_standing_changelist")).text
    assert "29.48" in cell_texts(page, "mu_shown") and "7.34" in cell_texts(page, "sigma_shown")
    assert "29.479" not in page


def test_a_match_page_keeps_the_workers_fields_folded_away(boss: Client) -> None:
    match = played().matches.get()
    page = boss.get(change_url(match)).text
    # The workers' bookkeeping comes after what an organiser reads, folded (a <details> the admin opens on a click).
    folded = re.search(r"<details><summary>\s*<h2[^>]*>Workers and live tables</h2>", page)
    assert folded is not None
    assert page.index("Competition:") < folded.start() < page.index("Heartbeat at:")
    assert match.status == Match.Status.DONE
