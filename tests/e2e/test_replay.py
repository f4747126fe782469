"""The replay viewer in chromium (issue 24), at a desktop's width and a phone's: one short finished game of each of
the four games, stepped through from the first step to the last.

At every step the cards drawn are exactly the cards of the public record's view at that step (as
``GET /api/games/{id}/record/`` gives it, expanded by engine.verify.expand_views), so no card of a hand is drawn
before play revealed it; after the last step "Show every hand" draws each seat's own view, as the revealed seed
allows, at every step (offered only once the end was reached). The address, the keyboard and the slider move
through the same steps. Each page passes check_page.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from engine.games import get_game
from engine.record import Record
from engine.verify import expand_views, replay
from tests.e2e.site_checks import check_page
from tests.e2e.test_web_table import UNSHOWN_KEYS, codes_in
from tests.tournaments.live_support import live_match
from tests.tournaments.replay_support import SHORT_GAMES, finished_bots_game, finished_people_game
from tournaments.models import Game

playwright_sync = pytest.importorskip("playwright.sync_api")
Page = playwright_sync.Page

pytestmark = pytest.mark.django_db(transaction=True)

#: What the page draws: the cards face up on the board and in the step's moves, by their data-card codes.
DRAWN_JS = """() => {
  const root = document.getElementById("replay");
  const codes = (selector) => [...root.querySelectorAll(selector)].map((node) => node.dataset.card);
  return {
    step: Number(root.dataset.step),
    steps: Number(root.dataset.steps),
    board: codes("#board [data-card]"),
    moves: codes("#moves [data-card]"),
    hands: Object.fromEntries([...root.querySelectorAll("#hands-boards > section")].map((section) =>
      [section.dataset.seat, [...section.querySelectorAll("[data-card]")].map((node) => node.dataset.card)])),
    everyHandOffered: !document.getElementById("every-choice").hidden,
  };
}"""


def public_views(game: Game) -> list[dict[str, Any]]:
    response = Client().get(f"/api/games/{game.pk}/record/")
    assert response.status_code == 200
    body = response.json()
    assert "seed" not in body["record"] and "deal" not in body["record"]
    return expand_views(body["record"]["views"])


def seat_views(game: Game) -> list[list[dict[str, Any]]]:
    """Every seat's own view after the start and every step, replayed from the stored record: the hidden cards."""
    record = Record.from_dict(game.record)
    engine_game = get_game(record.game)
    views: list[list[dict[str, Any]]] = []
    replay(
        record, on_step=lambda state: views.append([engine_game.observation(state, s) for s in range(record.players)])
    )
    return views


def drawn(page: Page) -> dict[str, Any]:
    return dict(page.evaluate(DRAWN_JS))


def check_step(
    page: Page, step: int, public: dict[str, Any], private: list[dict[str, Any]], *, end_seen: bool = False
) -> None:
    """The page at ``step`` draws the public view's cards and no other; every hand is offered once the end was seen."""
    shown = drawn(page)
    assert shown["step"] == step
    on_board = set(shown["board"])
    expected = codes_in(public)
    assert on_board == expected, f"step {step}: drawn {sorted(on_board)}, the public view holds {sorted(expected)}"
    # The moves name only cards the step revealed.
    assert set(shown["moves"]) <= expected, f"step {step}: the moves show {sorted(set(shown['moves']) - expected)}"
    hidden = set().union(*(codes_in(view) for view in private)) - expected
    assert not (on_board | set(shown["moves"])) & hidden
    assert not shown["hands"]
    assert shown["everyHandOffered"] is (end_seen or step == shown["steps"])
    assert page.url.endswith(f"?step={step}")


def check_every_hand(page: Page, step: int, private: list[dict[str, Any]]) -> None:
    """Each seat's section draws that seat's own view at ``step``: its hand, which the public view hides."""
    hands = drawn(page)["hands"]
    assert sorted(hands) == [str(seat) for seat in range(len(private))]
    for seat, codes in hands.items():
        own = private[int(seat)]
        assert set(codes) <= codes_in(own), f"step {step}, seat {seat}"
        assert codes_in(own, UNSHOWN_KEYS) <= set(codes), f"step {step}, seat {seat}"


def test_every_step_of_a_game_of_each_game_draws_the_public_view_and_no_hidden_card(
    page: Page, live_server: Any, width: int
) -> None:
    games = [finished_people_game(name, seats, options)[0] for name, seats, options in SHORT_GAMES]
    for game in games:
        name = game.match.competition.game
        public, private = public_views(game), seat_views(game)
        last = len(public) - 1
        assert last == len(game.record["actions"]) and len(private) == last + 1
        page.goto(f"{live_server.url}/games/{game.pk}/")
        page.wait_for_selector("#replay[data-step='0']")
        check_step(page, 0, public[0], private[0])
        check_page(page, f"replay-{name}")
        for step in range(1, last + 1):
            page.get_by_role("button", name="Next").click()
            check_step(page, step, public[step], private[step])
        assert page.get_by_role("button", name="Next").is_disabled()

        # After the last step, every hand: each seat's own view at each step, drawn by the same renderer.
        page.get_by_label("Show every hand").check()
        check_every_hand(page, last, private[last])
        page.get_by_role("button", name="First").click()
        check_every_hand(page, 0, private[0])
        if name != "war":  # War's seats see no card: its views are counts
            assert any(drawn(page)["hands"].values()), "the dealt hands are drawn"
        check_page(page, f"replay-{name}-every-hand")
        page.get_by_label("Show every hand").uncheck()
        check_step(page, 0, public[0], private[0], end_seen=True)

        # The keyboard, the slider and a shared address reach the same steps.
        page.locator("#board").focus()
        page.keyboard.press("Home")
        check_step(page, 0, public[0], private[0], end_seen=True)
        page.keyboard.press("ArrowRight")
        check_step(page, 1, public[1], private[1], end_seen=True)
        page.keyboard.press("End")
        check_step(page, last, public[last], private[last], end_seen=True)
        middle = last // 2
        page.locator("#slider").fill(str(middle))
        check_step(page, middle, public[middle], private[middle], end_seen=True)
        page.goto(f"{live_server.url}/games/{game.pk}/?step={middle}")
        page.wait_for_selector(f"#replay[data-step='{middle}']")
        check_step(page, middle, public[middle], private[middle])


def test_a_bot_s_owner_steps_through_what_their_bot_saw(page: Page, live_server: Any, width: int) -> None:
    game, owners = finished_bots_game("1923", {"mode": "set"})
    public, private = public_views(game), seat_views(game)
    client = Client()
    client.force_login(owners[1].user)
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    page.goto(f"{live_server.url}/games/{game.pk}/")
    page.wait_for_selector("#replay[data-step='0']")
    # A bots' match reveals no seed: no hand but the owner's own bot's.
    assert page.locator("#every-choice").is_hidden()
    page.get_by_label("Whose view").select_option("1")
    for step in range(len(public)):
        if step:
            page.get_by_role("button", name="Next").click()
        shown = drawn(page)
        assert shown["step"] == step
        own = private[step][1]
        assert set(shown["board"]) <= codes_in(own) | codes_in(public[step])
        assert codes_in(own, UNSHOWN_KEYS) <= set(shown["board"])
        assert not set(shown["board"]) & (codes_in(private[step][0]) - codes_in(public[step]) - codes_in(own))
        if step == 1:
            check_page(page, "replay-own-seat")
    assert page.locator("#every-choice").is_hidden()


def test_a_game_still_being_played_has_a_plain_page(page: Page, live_server: Any, width: int) -> None:
    match, _ = live_match("banter")
    page.goto(f"{live_server.url}/play/matches/{match.pk}/games/1/")
    page.get_by_text("This game is still being played; its replay opens when it ends.").wait_for()
    assert page.locator("[data-card]").count() == 0
    check_page(page, "replay-unfinished")
