"""A knockout's bracket on its admin competition page and its public page (templates/formats/knockout.html):
one column per round with its tables by side, byes and who went out below, and the places; checked against
the read model, bracket_view. Played through the services and the real engine; tests/e2e/test_knockout_pages.py
draws the same pages in chromium."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from html.parser import HTMLParser
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from league.models import Player
from tests.factories import BotFactory, BotVersionFactory, ClubFactory, UserFactory
from tests.tournaments.test_admin import change_url, organiser_of
from tournaments.knockout_selectors import BracketView, EntrantRef, SeatView, bracket_view
from tournaments.models import Competition, Match
from tournaments.services.competitions import competition_create, competition_start, entrant_join

pytestmark = pytest.mark.django_db

Committed = Callable[[], AbstractContextManager[Any]]

#: The bots' names, so that a page's text reads as the bracket does.
BOT_NAMES = ("Ace", "Bolt", "Cog", "Dart", "Echo", "Flint", "Gear", "Hex")


# --- Knockouts of bots (also built by tests/e2e/test_knockout_pages.py) ---------------------------------


def knockout_of_bots(
    bots: int, committed: Committed, *, format: str = "single_elimination", game: str = "war", **settings: Any
) -> Competition:
    """A knockout of ``bots`` built-in bots, created, entered and started through the services; ``committed``
    runs the start so that its matches (every round, each paired when the one before is over) are played."""
    club = ClubFactory()
    organiser = organiser_of(club)
    competition = competition_create(
        club=club, created_by=organiser, name="Cup", game=game, format=format, settings=settings
    )
    for name in bot_names(bots):
        version = BotVersionFactory(bot=BotFactory(owner=organiser, name=name, game=game), number=1)
        entrant_join(competition=competition, bot_version=version)
    with committed():
        competition_start(competition=competition)
    competition.refresh_from_db()
    return competition


def bot_names(count: int) -> list[str]:
    """BOT_NAMES first, then numbered ones for a big bracket."""
    return [*BOT_NAMES[:count], *(f"Bot {n}" for n in range(len(BOT_NAMES) + 1, count + 1))]


def organiser(competition: Competition) -> Player:
    return competition.organisers.get()


@pytest.fixture
def committed(django_capture_on_commit_callbacks: Callable[..., AbstractContextManager[Any]]) -> Committed:
    return lambda: django_capture_on_commit_callbacks(execute=True)


# --- Reading the bracket off a page ----------------------------------------------------------------------

#: Elements that never have an end tag.
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class _TextByClass(HTMLParser):
    """The text, spaces squeezed, of every element with a given class, in the order the elements close."""

    def __init__(self, css_class: str) -> None:
        super().__init__()
        self.css_class = css_class
        self.depth = 0
        #: Elements with the class still open: their depth and their text so far.
        self.open: list[tuple[int, list[str]]] = []
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            return
        self.depth += 1
        if self.css_class in (dict(attrs).get("class") or "").split():
            self.open.append((self.depth, []))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if self.open and self.open[-1][0] == self.depth:
            self.found.append(" ".join("".join(self.open.pop()[1]).split()))
        self.depth -= 1

    def handle_data(self, data: str) -> None:
        for _, parts in self.open:
            parts.append(data)


def texts(html: str, css_class: str) -> list[str]:
    parser = _TextByClass(css_class)
    parser.feed(html)
    return parser.found


def ref(entrant: EntrantRef) -> str:
    return f"({entrant.seed}) {entrant.name}"


def seat_text(seat: SeatView) -> str:
    """A seat as the bracket prints it: seed and name, where it finished once played, ✓ if it went on."""
    finish = "" if seat.finish is None else f" {seat.finish}"
    return f"{ref(seat.entrant)}{finish}{' ✓' if seat.advanced else ''}"


def refs(entrants: list[EntrantRef]) -> str:
    return ", ".join(ref(e) for e in entrants)


def assert_draws(html: str, view: BracketView) -> None:
    """The page draws every round of ``view``: headings, seats table by table, byes, who went out, places."""
    columns = texts(html, "bracket-round")
    assert [column.split(" ", 2)[:2] for column in columns] == [["Round", str(r.number)] for r in view.rounds]
    expected_seats = [seat_text(seat) for r in view.rounds for table in r.tables for seat in table.seats]
    assert texts(html, "bracket-seat") == expected_seats
    for column, round_ in zip(columns, view.rounds, strict=True):
        for side_name, entrants in round_.byes:
            label = f"Bye ({side_name.lower()}):" if view.double else "Bye:"
            assert f"{label} {refs(entrants)}" in column
        if round_.eliminated:
            assert f"Knocked out: {refs(round_.eliminated)}" in column
        if round_.dropped:
            assert f"Dropped to the lower bracket: {refs(round_.dropped)}" in column
        if round_.wildcards:
            assert f"Wildcards: {refs(round_.wildcards)}" in column
    places = [" ".join(f"{place}. {ref(e)}" for place, e in view.places)] if view.places else []
    assert texts(html, "bracket-places") == places


def champion_of(view: BracketView) -> EntrantRef:
    """The first seat of the last round's first table: its winner, once played."""
    final = view.rounds[-1].tables[0]
    assert final.seats[0].finish == 1 and final.seats[0].advanced
    return final.seats[0].entrant


# --- Single elimination ----------------------------------------------------------------------------------


@pytest.mark.parametrize("who", ["superuser", "organiser"])
def test_a_single_elimination_s_admin_page_draws_its_bracket(client: Client, committed: Committed, who: str) -> None:
    competition = knockout_of_bots(6, committed)
    assert competition.status == Competition.Status.FINISHED
    if who == "superuser":
        client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    else:
        client.force_login(organiser(competition).user)
    response = client.get(change_url(competition))
    assert response.status_code == 200
    html = response.text
    view = bracket_view(competition)

    assert_draws(html, view)
    assert [r.number for r in view.rounds] == [1, 2, 3]
    # Six at tables of two: seeds 1 and 2 sit round 1 out, and only there.
    byes = texts(html, "byes")
    assert byes == [f"Bye: {refs(view.seeds[:2])}"]
    assert byes[0] in texts(html, "bracket-round")[0]
    assert [side for side in texts(html, "bracket-side") if side.startswith("Final")] != []
    # Everyone is on the page by seed, and the champion is place 1.
    first_round = texts(html, "bracket-round")[0]
    for entrant in view.seeds:
        assert ref(entrant) in first_round
    places = texts(html, "bracket-places")[0]
    assert places.startswith(f"1. {ref(champion_of(view))} 2. ")
    assert view.places[0] == (1, champion_of(view))
    # Each match links to its admin page.
    for round_ in view.rounds:
        for table in round_.tables:
            assert table.match_id is not None
            assert reverse("admin:tournaments_match_change", args=[table.match_id]) in html


def test_a_single_elimination_s_public_page_draws_the_same_bracket_without_admin_links(
    client: Client, committed: Committed
) -> None:
    competition = knockout_of_bots(6, committed)
    response = client.get(reverse("site:competition", args=[competition.pk]))
    assert response.status_code == 200
    html = response.text
    view = bracket_view(competition)

    assert_draws(html, view)
    assert texts(html, "byes") == [f"Bye: {refs(view.seeds[:2])}"]
    assert texts(html, "bracket-places")[0].startswith(f"1. {ref(champion_of(view))} ")
    assert "/admin/" not in html
    # Each played table leads to its match's replay.
    played = [table for round_ in view.rounds for table in round_.tables if table.status == "done"]
    assert played
    for table in played:
        assert reverse("site:match-replay", args=[table.match_id, 1]) in html
    # The standings under it rank by the bracket's places, and say so.
    assert "Ordered by the place in the bracket" in html


def test_a_third_place_match_is_drawn_next_to_the_final(client: Client, committed: Committed) -> None:
    competition = knockout_of_bots(4, committed, third_place=True)
    html = client.get(reverse("site:competition", args=[competition.pk])).text
    view = bracket_view(competition)

    assert_draws(html, view)
    last = texts(html, "bracket-round")[-1]
    assert last.index("Final") < last.index("Third place")
    third = view.rounds[-1].tables[1]
    assert (3, third.seats[0].entrant) in view.places


# --- Double elimination ------------------------------------------------------------------------------------


def test_a_double_elimination_shows_its_lower_bracket_and_its_grand_final(client: Client, committed: Committed) -> None:
    competition = knockout_of_bots(4, committed, format="double_elimination")
    assert competition.status == Competition.Status.FINISHED
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    admin_html = client.get(change_url(competition)).text
    public_html = client.get(reverse("site:competition", args=[competition.pk])).text
    view = bracket_view(competition)

    for html in (admin_html, public_html):
        assert_draws(html, view)
        sides = [side.split(" (")[0] for side in texts(html, "bracket-side")]
        assert "Lower bracket" in " ".join(sides) and "Grand final" in " ".join(sides)
        assert any(r.dropped for r in view.rounds)
        assert texts(html, "dropped") != []
        assert texts(html, "bracket-places")[0].startswith(f"1. {ref(champion_of(view))} ")
    # Four entrants: two to the lower bracket in round 1, so the upper champion meets the lower one in the end.
    assert [t.side_name for t in view.rounds[0].tables] == ["Upper bracket", "Upper bracket"]
    assert view.rounds[-1].tables[0].side_name in ("Grand final", "Grand final (reset)")


# --- Tables of four ------------------------------------------------------------------------------------------


def test_a_four_player_punk_knockout_marks_the_two_going_on_from_each_table(
    client: Client, committed: Committed
) -> None:
    competition = knockout_of_bots(8, committed, game="punk", players_per_match=4, advance_count=2)
    assert competition.status == Competition.Status.FINISHED
    html = client.get(reverse("site:competition", args=[competition.pk])).text
    view = bracket_view(competition)

    assert_draws(html, view)
    first, final = view.rounds
    assert [len(t.seats) for t in first.tables] == [4, 4] and len(final.tables[0].seats) == 4
    tables = texts(html, "bracket-table")
    assert [table.count("✓") for table in tables] == [2, 2, 1]
    assert [place for place, _ in view.places] == [1, 2, 3, 4, 5, 5, 5, 5]
    assert f"Knocked out: {refs(first.eliminated)}" in texts(html, "bracket-round")[0]


# --- A round still to play ----------------------------------------------------------------------------------


def test_a_round_being_played_shows_its_tables_by_seed_with_their_matches_status(client: Client) -> None:
    competition = knockout_of_bots(6, nullcontext)  # its matches are never run: nothing commits here
    assert competition.status == Competition.Status.RUNNING
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    admin_html = client.get(change_url(competition)).text
    public_html = client.get(reverse("site:competition", args=[competition.pk])).text
    view = bracket_view(competition)

    (round_,) = view.rounds
    assert not round_.played and [t.status for t in round_.tables] == ["pending", "pending"]
    for html in (admin_html, public_html):
        assert_draws(html, view)
        assert texts(html, "bracket-round")[0].startswith("Round 1 (to play)")
        assert all(seat.finish is None for t in round_.tables for seat in t.seats)
        assert texts(html, "byes") == [f"Bye: {refs(view.seeds[:2])}"]
    assert texts(admin_html, "match") == [f"match {t.match_id} · pending" for t in round_.tables]
    assert texts(public_html, "match") == ["pending", "pending"]


def test_a_live_table_links_to_its_watch_page_on_the_public_page(client: Client) -> None:
    competition = knockout_of_bots(6, nullcontext)
    first = competition.matches.order_by("number").first()
    assert first is not None
    # As a match with a person in it stands while it is played at a live table.
    Match.objects.filter(pk=first.pk).update(status=Match.Status.LIVE)
    public_html = client.get(reverse("site:competition", args=[competition.pk])).text
    assert texts(public_html, "match") == ["live: watch", "pending"]
    assert reverse("site:table", args=[first.pk]) in public_html


# --- Not a knockout, or not started --------------------------------------------------------------------------


def test_a_round_robin_s_pages_have_no_bracket(client: Client, committed: Committed) -> None:
    competition = knockout_of_bots(4, committed, format="round_robin")
    assert competition.status == Competition.Status.FINISHED
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    admin = client.get(change_url(competition))
    public = client.get(reverse("site:competition", args=[competition.pk]))
    for response in (admin, public):
        assert response.status_code == 200
        assert "knockout" not in response.context and "bracket-section" not in response.text
        assert texts(response.text, "bracket-round") == [] and 'id="standings"' in response.text


def test_a_knockout_not_started_yet_says_when_its_bracket_is_drawn(client: Client) -> None:
    club = ClubFactory()
    competition = competition_create(
        club=club, created_by=organiser_of(club), name="Cup", game="war", format="single_elimination"
    )
    public = client.get(reverse("site:competition", args=[competition.pk]))
    client.force_login(organiser(competition).user)
    admin = client.get(change_url(competition))
    for response in (public, admin):
        assert response.status_code == 200
        assert "The bracket is drawn when the knockout starts" in response.text
        assert texts(response.text, "bracket-round") == []
