"""The fifth game at the web table: two people play a live highcard match in a real browser.

High card (tests/engine/high_card.py) has no renderer in engine/games/web/play/games.js, so the
table draws it with the generic fallback (``plainObservation`` in tournaments/static/play/table.js):
its observation's fields, one term each. Each person plays from their own page by clicking the
legal-action buttons; after every move each page must show its own seat's hand (exactly the cards
the engine dealt that seat, less those played), never the other seat's hand or the undealt cards,
and at the end the match is over on the page, recorded and counted in the standings.

The set-up, sign-in, waiting and screenshot helpers are those of tests/e2e/test_web_table.py.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from engine.games import register_game, unregister_game
from engine.referee import LiveGame
from tests.e2e.conftest import SCREENSHOTS
from tests.e2e.test_web_table import (
    Seat,
    assert_match_over,
    db_version,
    label,
    live_match,
    person,
    screenshot,
    seat_for,
    wait_version,
)
from tests.factories import ClubFactory
from tests.league.test_api_support import client_for, results
from tournaments.models import Game, LiveTable, Match, Standing

playwright_sync = pytest.importorskip("playwright.sync_api")
Browser = playwright_sync.Browser

GAME = "highcard"
MODULE = "tests.engine.high_card"
HAND_SIZE = 3

pytestmark = pytest.mark.django_db(transaction=True)

#: The fallback's facts, by term: each field's text and the card codes drawn in it (if it draws cards).
FACTS_JS = """() => {
  const root = document.getElementById("table");
  const facts = {};
  for (const dt of document.querySelectorAll("#board dl.observation > dt")) {
    const dd = dt.nextElementSibling;
    facts[dt.textContent.trim()] = {
      text: dd.innerText,
      cards: [...dd.querySelectorAll("[data-card]")].map((node) => node.dataset.card),
    };
  }
  return {
    version: Number(root.dataset.version || 0),
    status: root.dataset.status || "",
    facts,
    actions: [...document.querySelectorAll("#actions button.action")].map((b) => b.dataset.action),
    html: document.documentElement.outerHTML,
    text: document.body.innerText,
  };
}"""


@pytest.fixture
def highcard() -> Iterator[None]:
    """The game in this process (the live server's), for this test only."""
    register_game(GAME, MODULE)
    yield
    unregister_game(GAME)


@pytest.fixture
def site(
    browser: Browser, live_server: Any, workers: Callable[..., Any], settings: Any, highcard: None
) -> Iterator[str]:
    # The worker records the match: it learns the game from the environment, as a club's worker would.
    workers("highcard-table", concurrency=1, extra_env={"ENGINE_GAMES": f"{GAME}={MODULE}"})
    settings.LIVE_KEEPALIVE_SECONDS = 0.25
    yield str(live_server.url)
    for context in browser.contexts:
        context.close()
    time.sleep(1)


def engine_hands(match: Match) -> list[list[str]]:
    """Each seat's hand and, last, the undealt cards: from the server's hidden state."""
    table = LiveTable.objects.filter(match=match).order_by("-number").first()
    assert table is not None
    state = LiveGame.loads(bytes(table.game)).state
    return [list(hand) for hand in state.hands] + [list(state.undealt)]


def codes_of(fact: dict[str, Any]) -> list[str]:
    """The cards a fact draws (each a card element carrying its code), in the order shown."""
    return list(fact["cards"])


def check_page(seat: Seat, number: int, match: Match) -> dict[str, Any]:
    """The page shows its own seat's observation through the fallback, and no card hidden from it."""
    for _ in range(40):
        api = seat.api_table()
        snap = dict(seat.page.evaluate(FACTS_JS))
        if snap["version"] == api["version"] and sorted(snap["actions"]) == sorted(api["legal_actions"]):
            break
        time.sleep(0.05)
    assert snap["version"] == api["version"], f"{seat.name}'s page is at {snap['version']}, the API {api['version']}"
    assert api["seat"] == number and api["game"] == GAME
    # The page has no renderer of its own for this game: every field of the observation is a fact.
    assert set(snap["facts"]) == {key.replace("_", " ") for key in api["observation"]}, snap["facts"].keys()
    hands = engine_hands(match)
    own = hands[number]
    assert sorted(codes_of(snap["facts"]["hand"])) == sorted(own), f"{seat.name}'s page shows another hand"
    assert sorted(api["observation"]["hand"]) == sorted(own)
    # Drawn as cards people read ("10♥"), not as codes or JSON.
    hand_text = snap["facts"]["hand"]["text"]
    assert all(label(card) in hand_text for card in own) and "[" not in hand_text, hand_text
    assert own or hand_text.strip() == "none", hand_text
    assert snap["facts"]["seat"]["text"].strip() == str(number)
    # Exactly the legal actions, one button each: while the seat has a card to choose, one per card of its hand.
    assert sorted(snap["actions"]) == sorted(api["legal_actions"]), f"{seat.name}: buttons are not the legal actions"
    if api["legal_actions"]:
        assert api["status"] == "live" and sorted(api["legal_actions"]) == sorted(f"PLAY {card}" for card in own)
    hidden = {card for other, hand in enumerate(hands) if other != number for card in hand}
    for code in hidden:
        assert not re.search(rf"(?<![A-Za-z0-9]){code}(?![A-Za-z0-9])", snap["html"]), f"{code} in {seat.name}'s DOM"
        assert label(code) not in snap["text"], f"{label(code)} ({code}) in {seat.name}'s page text"
    return {"api": api, "facts": snap["facts"]}


def test_two_people_play_highcard_through_the_fallback_table(browser: Browser, site: str) -> None:
    club = ClubFactory()
    people = [person(club, "hana"), person(club, "hugo")]
    match = live_match(GAME, people, club=club, options={"hand_size": HAND_SIZE}, games=1)
    seats = [seat_for(browser, site, match, p.user.username) for p in people]
    numbers = {seat.name: int(seat.api_table()["seat"]) for seat in seats}
    assert sorted(numbers.values()) == [0, 1]
    dealt = engine_hands(match)
    assert [len(hand) for hand in dealt[:2]] == [HAND_SIZE, HAND_SIZE]
    for seat in seats:
        assert seat.page.locator("#board dl.observation").is_visible()
        assert seat.page.locator("[data-zone=hand]").count() == 0  # no game renderer drew this board

    rng = random.Random(12)
    played: list[list[str]] = []
    for trick in range(HAND_SIZE):
        # A simultaneous step: each person clicks a card; the first choice stays hidden from the other.
        chosen: dict[int, str] = {}
        for seat in seats:
            for each in seats:
                wait_version(each.page, db_version(match))
            view = {each.name: check_page(each, numbers[each.name], match) for each in seats}
            api = view[seat.name]["api"]
            assert api["status"] == "live" and api["legal_actions"], api
            action = rng.choice(api["legal_actions"])
            chosen[numbers[seat.name]] = action.split(" ", 1)[1]
            seat.page.locator(f'#actions button[data-action="{action}"]').click()
            wait_version(seat.page, api["version"] + 1)
        played.append([chosen[0], chosen[1]])
        target = db_version(match)
        for seat in seats:
            wait_version(seat.page, target)
        if trick == 0:
            for seat in seats:
                view = check_page(seat, numbers[seat.name], match)
                # The trick is public now: both cards are on both pages, in seat order.
                assert codes_of(view["facts"]["tricks"]) == played[0]
                screenshot(seat.page, f"highcard-{seat.name}-mid")

    # --- the end: the page, the records and the standings --------------------------------------------
    assert_match_over(seats, match)
    match.refresh_from_db()
    assert match.status == Match.Status.DONE and match.error == ""
    game = Game.objects.get(match=match)
    tricks = game.result["tricks"]
    assert [trick["cards"] for trick in tricks] == played
    scores = game.result["scores"]
    seating = game.seating  # entrant by seat
    names = {numbers[seat.name]: seat.name.capitalize() for seat in seats}
    outcome = "a draw" if scores[0] == scores[1] else f"won by {names[scores.index(max(scores))]}"
    for seat in seats:
        view = check_page(seat, numbers[seat.name], match)
        assert view["api"]["status"] == "done"
        assert codes_of(view["facts"]["tricks"]) == [card for trick in played for card in trick]
        finished = seat.page.locator("#finished").inner_text()
        assert f"Game 1: {outcome}" in finished, finished
        assert f"{names[0]} {scores[0]}" in finished and f"{names[1]} {scores[1]}" in finished, finished
        assert seat.page.locator("#game-number", has_text="The game is played.").is_visible()
        screenshot(seat.page, f"highcard-{seat.name}-end")

    standings = {s.entrant_id: s for s in Standing.objects.filter(competition_id=match.competition_id)}
    assert set(standings) == set(seating)
    rows = results(client_for().get(f"/api/tournaments/{match.competition_id}/standings/"))
    by_entrant = {row["entrant"]["id"]: row for row in rows}
    for number, entrant in enumerate(seating):
        assert standings[entrant].played == 1 and standings[entrant].games_played == 1
        row = by_entrant[entrant]
        assert row["played"] == 1
        assert [t["field"] for t in row["tiebreaks"]] == ["match_points", "tricks"]
        assert row["tiebreaks"][1]["exact"] == str(scores[number])
    winner_units = [standings[entrant].match_units for entrant in seating]
    if scores[0] == scores[1]:
        assert winner_units == [1, 1]
    else:
        assert sorted(winner_units) == [0, 2] and winner_units[scores.index(max(scores))] == 2
    for seat in seats:
        for moment in ("mid", "end"):
            assert (SCREENSHOTS / f"highcard-{seat.name}-{moment}.png").exists()
