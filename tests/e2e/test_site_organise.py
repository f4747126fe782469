"""An organiser without staff rights runs competitions in chromium, through pages only, at a desktop's width and a
phone's (issue 23): a competition of every registered format made from its form, players added, started in an
order set by hand with Up and Down; a refusal on the form; a failed match tried again; a competition
cancelled after a confirmation; a disputed game settled. The effect is checked through the API.
"""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from config import background
from league.models import Club, Membership, Player
from tests.e2e.site_checks import WIDTHS, check_page, viewport
from tests.factories import (
    BotFactory,
    BotVersionFactory,
    ClubFactory,
    CompetitionFactory,
    EntrantFactory,
    MembershipFactory,
    PlayerFactory,
    UserFactory,
)
from tests.tournaments.transcript_support import table_record, transcript_match
from tournaments.formats.registry import all_formats
from tournaments.models import Competition, Match, Transcript
from tournaments.services.competitions import competition_start
from tournaments.services.transcripts import transcript_dispute

playwright_sync = pytest.importorskip("playwright.sync_api")
Browser = playwright_sync.Browser
Page = playwright_sync.Page

pytestmark = pytest.mark.django_db(transaction=True)


def person(club: Club, username: str, role: str = Membership.Role.MEMBER) -> Player:
    player = PlayerFactory(user=UserFactory(username=username), display_name=username.capitalize())
    MembershipFactory(club=club, player=player, role=role)
    return player


def sign_in(page: Page, url: str, username: str) -> None:
    page.goto(f"{url}/accounts/login/")
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill("pw")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_load_state()


def api(player: Player) -> APIClient:
    client = APIClient()
    client.force_authenticate(player.user)
    return client


def width(page: Page) -> int:
    return int(page.viewport_size["width"])  # type: ignore[index]


@pytest.fixture
def club() -> Club:
    return ClubFactory(name="Riverside Card Club", slug="riverside")


@pytest.fixture
def secretary(club: Club) -> Player:
    sam = person(club, "sam", Membership.Role.ORGANISER)
    assert not sam.user.is_staff  # no staff rights: everything here is the site, never /admin/
    return sam


def test_an_organiser_creates_each_format_adds_players_and_starts_it_in_an_order_of_her_own(
    page: Page, live_server: Any, club: Club, secretary: Player
) -> None:
    ann, ben = person(club, "ann"), person(club, "ben")
    for owner, name in ((ann, "Alpha"), (ben, "Bravo")):
        BotVersionFactory(bot=BotFactory(owner=owner, game="war", name=name), number=1)
    sign_in(page, live_server.url, "sam")
    # The pages a format changes (its form, its manage page) are checked for each format; the first step, the
    # order and the start are the same page whatever the format: checked the first time only.
    checked: set[str] = set()
    for format in all_formats():
        page.goto(f"{live_server.url}/clubs/{club.slug}/competitions/new/")
        if "choose" not in checked:
            check_page(page, "organise-new-choose")
            checked.add("choose")
        page.get_by_label("War").check()
        page.get_by_text(format.label, exact=True).click()
        page.get_by_role("button", name="Next: name and settings").click()
        page.get_by_role("heading", name="A new competition").wait_for()
        check_page(page, f"organise-new-{format.key}")
        name = f"{format.label} night"
        page.get_by_label("Name", exact=True).fill(name)
        page.get_by_label("Games in a match").fill("2")
        page.get_by_role("button", name="Create the competition").click()
        page.get_by_role("heading", name=f"Manage {name}").wait_for()
        competition = Competition.objects.get(name=name)

        # People where the format takes them (a rating ladder is for bots), so nothing plays in the request.
        people = not format.entrant_refusal(competition, person=True)
        for label in ("Ann", "Ben") if people else ("Alpha v1 (Ann's)", "Bravo v1 (Ben's)"):
            field = "A member" if people else "A member's bot"
            page.get_by_label(field, exact=True).select_option(label=label)
            page.get_by_role("button", name="Add this member" if people else "Add this bot").click()
            page.get_by_text(f"Added {label.split(' (')[0]}.").wait_for()
        check_page(page, f"organise-manage-{format.key}")
        first, second = list(competition.entrants.order_by("id"))
        if format.start_order:
            page.get_by_role("button", name=f"Move {first.name} down").click()
            page.get_by_role("button", name=f"Move {second.name} down").wait_for()
            assert page.locator("ol.order .order-name").all_inner_texts() == [second.name, first.name]
            if "order" not in checked:
                check_page(page, f"organise-order-{format.key}")
                checked.add("order")
            page.get_by_role("button", name="Start in this order").click()
        else:
            page.get_by_role("button", name="Start now").click()
        page.get_by_text("Started. Good luck to all!").wait_for()
        if "started" not in checked:
            check_page(page, f"organise-started-{format.key}")
            checked.add("started")

        shown = api(secretary).get(f"/api/tournaments/{competition.pk}/").json()
        # Started: in the tests' eager mode a clock's deadline task runs at once, so a short match may be over.
        assert shown["format"] == format.key and shown["status"] in ("running", "finished") and shown["started_at"]
        assert shown["games_per_match"] == 2 and shown["entrant_count"] == 2
        assert {s.name for s in format.settings} <= set(shown)
        entrants = api(secretary).get(f"/api/tournaments/{competition.pk}/entrants/").json()["results"]
        assert sorted(e["name"] for e in entrants) == sorted([first.name, second.name])
        if format.start_order:
            # The second entrant was put first: the top place or the best seed, whichever the format starts from.
            by_id = {e["id"]: e for e in entrants}
            ranks = [
                by_id[second.pk]["position"] or by_id[second.pk]["seed"],
                by_id[first.pk]["position"] or by_id[first.pk]["seed"],
            ]
            assert ranks == [1, 2], entrants
    assert "Admin" not in page.content()


def test_a_refusal_shows_on_the_form_and_keeps_what_was_typed(
    page: Page, live_server: Any, club: Club, secretary: Player
) -> None:
    sign_in(page, live_server.url, "sam")
    page.goto(f"{live_server.url}/clubs/{club.slug}/competitions/new/?game=war&format=swiss")
    page.get_by_label("Name", exact=True).fill("Thursday Swiss")
    page.get_by_label("Going on to a knockout").fill("4")
    page.get_by_role("button", name="Create the competition").click()
    page.get_by_text("Please correct what is marked below.").wait_for()
    check_page(page, "organise-new-refused")
    assert page.get_by_label("Name", exact=True).input_value() == "Thursday Swiss"
    assert "Choose the knockout to cut to" in page.locator(".field.invalid").inner_text()
    page.get_by_label("Single elimination").check()
    page.get_by_role("button", name="Create the competition").click()
    page.get_by_role("heading", name="Manage Thursday Swiss").wait_for()
    shown = api(secretary).get(f"/api/tournaments/{Competition.objects.get().pk}/").json()
    assert (shown["cut_to"], shown["cut_format"]) == (4, "single_elimination")


def test_a_failed_match_is_tried_again_and_a_competition_cancelled_after_asking(
    page: Page, live_server: Any, club: Club, secretary: Player, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Matches go to workers nobody runs here (not played inline, as the tests' eager mode would): a match
    # tried again waits as pending, and the competition stays running to be cancelled.
    monkeypatch.setattr(background, "send_now", lambda *args, **kwargs: None)
    competition = CompetitionFactory(club=club, name="Bots cup", created_by=secretary)
    for _ in range(2):
        EntrantFactory(competition=competition)
    competition_start(competition=competition)
    match = Match.objects.get(competition=competition)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.ERROR, error="bot crashed: ZeroDivisionError")
    sign_in(page, live_server.url, "sam")
    page.goto(f"{live_server.url}/competitions/{competition.pk}/manage/")
    page.get_by_role("heading", name="Matches that could not be played").wait_for()
    check_page(page, "organise-failed")
    page.get_by_role("button", name="Try this match again").click()
    page.get_by_text("1 match will be played again.").wait_for()
    check_page(page, "organise-retried")
    assert api(secretary).get(f"/api/matches/{match.pk}/").json()["status"] == "pending"

    page.get_by_role("link", name="Cancel the competition…").click()
    page.get_by_role("heading", name="Cancel Bots cup?").wait_for()
    check_page(page, "organise-cancel-confirm")
    page.get_by_role("button", name="Yes, cancel the competition").click()
    page.get_by_text("Bots cup is cancelled.").wait_for()
    check_page(page, "organise-cancelled")
    assert api(secretary).get(f"/api/tournaments/{competition.pk}/").json()["status"] == "cancelled"


def test_an_organiser_settles_a_disputed_game(page: Page, live_server: Any, club: Club, secretary: Player) -> None:
    ann, ben = person(club, "ann"), person(club, "ben")
    match, _ = transcript_match("war", players=[ann, ben])
    Competition.objects.filter(pk=match.competition_id).update(club=club, name="Card table league")
    disputed = Transcript.objects.create(
        match=match, number=1, submitted_by=ann, record=table_record(match), status=Transcript.Status.VERIFIED
    )
    transcript_dispute(transcript=disputed, player=ben, note="The last trick was mine")
    other = Transcript.objects.create(
        match=match, number=2, submitted_by=ben, record=table_record(match, seed=9), status=Transcript.Status.VERIFIED
    )
    sign_in(page, live_server.url, "sam")
    page.goto(f"{live_server.url}/competitions/{match.competition_id}/manage/")
    page.get_by_role("heading", name="Disputed games to settle").wait_for()
    check_page(page, "organise-dispute")
    page.get_by_label("Note for the players (optional)").nth(1).fill("Both agree on Ben's")
    page.get_by_role("button", name="Accept this version").nth(1).click()
    page.get_by_text("Accepted Ben's version of game 1.").wait_for()
    check_page(page, "organise-dispute-settled")
    listed = api(secretary).get(f"/api/matches/{match.pk}/transcripts/").json()
    assert {t["number"]: t["status"] for t in listed} == {disputed.number: "voided", other.number: "accepted"}


@pytest.mark.parametrize("size", WIDTHS, ids=lambda w: f"{w}px")
def test_up_and_down_work_without_javascript(
    browser: Browser, live_server: Any, club: Club, secretary: Player, size: int
) -> None:
    context = browser.new_context(viewport=viewport(size), java_script_enabled=False)
    page = context.new_page()
    cup = CompetitionFactory(club=club, name="Cup", format="single_elimination", created_by=secretary)
    entrants = [EntrantFactory(competition=cup) for _ in range(3)]
    sign_in(page, live_server.url, "sam")
    page.goto(f"{live_server.url}/competitions/{cup.pk}/manage/")
    page.get_by_role("button", name=f"Move {entrants[2].name} up").click()
    page.get_by_role("button", name=f"Move {entrants[2].name} up").click()
    assert page.locator("ol.order .order-name").all_inner_texts() == [
        entrants[2].name,
        entrants[0].name,
        entrants[1].name,
    ]
    # No check_page here: axe-core needs scripts; the same page with scripts is checked in the journey above.
    page.get_by_role("button", name="Start in this order").click()
    page.get_by_text("Started. Good luck to all!").wait_for()
    context.close()
    listed = api(secretary).get(f"/api/tournaments/{cup.pk}/entrants/").json()["results"]
    assert {e["id"]: e["seed"] for e in listed} == {entrants[2].pk: 1, entrants[0].pk: 2, entrants[1].pk: 3}
