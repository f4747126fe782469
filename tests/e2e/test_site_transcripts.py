"""A game played with real cards, written down step by step in chromium, checked by the engine, confirmed by the
other player and recorded (issue 23), at a desktop's width and a phone's. The effect is read back through the API.

The game is Punk with the dummy: two people and the engine's seat, seven tricks of one card each, so the journey
walks every part of the builder (a deal of several hands, steps where two seats decide at once, the engine's own
seat, undo) in a few clicks. The other games are built through the same pages in
tests/tournaments/test_web_transcripts.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from rest_framework.test import APIClient

from engine.games import get_game
from league.models import Player
from tests.e2e.conftest import BROKER
from tests.e2e.site_checks import check_page, viewport
from tests.tournaments.transcript_support import shuffled, table_record, transcript_match
from tournaments.models import Match

playwright_sync = pytest.importorskip("playwright.sync_api")
Browser = playwright_sync.Browser
Page = playwright_sync.Page
expect = playwright_sync.expect

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def verifier(request: pytest.FixtureRequest) -> None:
    """A real `celery worker` checks the transcript where PostgreSQL and Redis are at hand (as in CI), so the page
    shows it being checked and updates by itself; elsewhere the check runs in the server after the commit."""
    if connection.vendor == "postgresql" and BROKER.startswith("redis://"):
        request.getfixturevalue("workers")("web-transcripts")


@pytest.fixture
def pages(browser: Browser, width: int) -> Iterator[list[Page]]:
    """One browser context per player: each signs in on their own."""
    contexts = [browser.new_context(viewport=viewport(width)) for _ in range(2)]
    yield [context.new_page() for context in contexts]
    for context in contexts:
        context.close()


def open_signed_in(page: Page, address: str, player: Player) -> None:
    """Go to ``address``; the site sends a visitor to sign in and back."""
    page.goto(address)
    page.get_by_label("User name").fill(player.user.username)
    page.get_by_label("Password").fill("pw")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(address)


def api(player: Player) -> APIClient:
    client = APIClient()
    client.force_authenticate(user=player.user)
    return client


def play_a_trick(page: Page, names: list[str]) -> None:
    for name in names:
        page.get_by_role("group", name=f"{name}'s move").get_by_role("radio").first.check()
    page.get_by_role("button", name="Add this step").click()


def test_a_game_written_down_step_by_step_is_verified_confirmed_and_recorded(
    verifier: None, pages: list[Page], live_server: Any, width: int
) -> None:
    match, players = transcript_match("punk", people=2, options={"dummy": True})
    names = [player.display_name for player in players]
    writer, other = pages
    address = f"{live_server.url}/play/matches/{match.pk}/transcripts/"

    open_signed_in(writer, address, players[0])
    expect(writer.get_by_role("heading", name="Enter a game step by step")).to_be_visible()
    check_page(writer, "transcripts-start")

    # A file that stops before the game is over: the engine rejects it, naming where, in the players' words.
    broken = table_record(match, 0, seed=3)
    last = len(broken["actions"])
    broken["actions"].pop()
    writer.get_by_label("Record file", exact=True).set_input_files(
        files=[{"name": "game.json", "mimeType": "application/json", "buffer": json.dumps(broken).encode()}]
    )
    writer.get_by_role("button", name="Send the file").click()
    expect(writer.get_by_text("Rejected by the engine")).to_be_visible(timeout=30_000)
    expect(
        writer.get_by_text(f"move {last}: the record ends after move {last - 1} but the game is not over")
    ).to_be_visible()
    check_page(writer, "transcripts-rejected")

    writer.get_by_role("button", name="Start writing down the game").click()
    expect(writer.get_by_role("heading", name="1. The deal")).to_be_visible()
    check_page(writer, "transcripts-deal")

    deck = shuffled(get_game("punk").full_deck({}, 3), 11)
    hands = [deck[seat::3] for seat in range(3)]
    labels = [f"{who}: hand, in any order" for who in (*names, "The dummy")]
    typo = ["QX", *hands[0][1:]]
    writer.get_by_label(labels[0]).fill(" ".join(typo))
    for label, hand in zip(labels[1:], hands[1:], strict=True):
        writer.get_by_label(label).fill(" ".join(hand))
    writer.get_by_role("button", name="Check the deal").click()
    expect(writer.get_by_text("Card 1, QX, is not a card of this game's deck.")).to_be_visible()
    check_page(writer, "transcripts-deal-error")

    writer.get_by_label(labels[0]).fill(" ".join(hands[0]).lower())
    writer.get_by_role("button", name="Check the deal").click()
    expect(writer.get_by_role("heading", name="Next move")).to_be_visible()
    check_page(writer, "transcripts-step")

    play_a_trick(writer, names)
    expect(writer.get_by_role("list", name="Moves so far").get_by_role("listitem")).to_have_count(1)
    writer.get_by_role("button", name="Undo last step").click()
    expect(writer.get_by_text("The deal is in; no move yet.")).to_be_visible()
    writer.reload()  # the draft waits in the session: nothing is lost
    expect(writer.get_by_role("heading", name="Next move")).to_be_visible()
    for trick in range(1, 8):
        play_a_trick(writer, names)
        expect(writer.get_by_role("list", name="Moves so far").get_by_role("listitem")).to_have_count(trick)
        if trick == 3:
            check_page(writer, "transcripts-steps")
    expect(writer.get_by_role("heading", name="The game is over")).to_be_visible()
    check_page(writer, "transcripts-over")

    writer.get_by_role("button", name="Send game 1 for checking").click()
    expect(writer.get_by_text("Game 1 sent: the engine is checking it.")).to_be_visible()
    if writer.get_by_text("Being checked by the engine").is_visible():
        check_page(writer, "transcripts-checking")
    expect(writer.get_by_text("Checked: the moves are valid")).to_be_visible(timeout=30_000)
    expect(writer.get_by_text(f"Waiting for {names[1]} to confirm it.")).to_be_visible()
    check_page(writer, "transcripts-sent")

    open_signed_in(other, address, players[1])
    expect(other.get_by_text("Checked: the moves are valid")).to_be_visible()
    other.get_by_text("Every move (7)").click()
    expect(other.get_by_role("button", name="Confirm: this is the game we played")).to_have_count(1)
    other.get_by_text("Something is wrong: dispute it").click()
    expect(other.get_by_label("What is wrong with it")).to_be_visible()
    check_page(other, "transcripts-to-confirm")
    other.get_by_role("button", name="Confirm: this is the game we played").click()
    expect(other.get_by_text("You confirmed game 1's transcript.")).to_be_visible()
    expect(other.get_by_text("Accepted")).to_be_visible()
    check_page(other, "transcripts-confirmed")

    shown = api(players[0]).get(f"/api/matches/{match.pk}/transcripts/").json()
    assert [(t["number"], t["status"], t["game_number"]) for t in shown] == [(1, "rejected", 0), (2, "accepted", 0)]
    assert [e["action"] for e in shown[1]["events"]] == ["submit", "verify", "confirm"]
    assert len(shown[1]["record"]["actions"]) == 7
    recorded = api(players[1]).get(f"/api/matches/{match.pk}/").json()
    assert recorded["status"] == Match.Status.DONE


def test_a_game_where_one_seat_moves_at_a_time_offers_a_button_per_move(
    pages: list[Page], live_server: Any, width: int
) -> None:
    match, players = transcript_match("banter")
    writer = pages[0]
    open_signed_in(writer, f"{live_server.url}/play/matches/{match.pk}/transcripts/", players[0])
    writer.get_by_role("button", name="Start writing down the game").click()
    for seat, player in enumerate(players):
        deck = shuffled(get_game("banter").full_deck({}, 2)[:52], seat)
        writer.get_by_label(f"{player.display_name}: draw pile (the Active 13), top card first").fill(
            " ".join(deck[:13])
        )
        writer.get_by_label(f"{player.display_name}: deck (the other 39 cards), top card first").fill(
            " ".join(deck[13:])
        )
    writer.get_by_role("button", name="Check the deal").click()
    moves = writer.get_by_role("group", name="s move").get_by_role("button")
    expect(moves.first).to_be_visible()
    check_page(writer, "transcripts-one-seat")
    for number in range(1, 4):
        moves.last.click()  # STOP, or the last card: each a legal move the engine offered
        expect(writer.get_by_role("list", name="Moves so far").get_by_role("listitem")).to_have_count(number)
    check_page(writer, "transcripts-one-seat-moves")
