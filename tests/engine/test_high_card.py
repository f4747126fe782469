"""A fifth game registered from outside the engine plays, verifies and conserves its cards (issue 12).

The game is tests/engine/high_card.py; it is registered for one test at a time, so tests that
iterate ``game_names()`` elsewhere still see the engine's four games only.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from types import ModuleType

import pytest

from engine.bots import bot_names, seat_agents
from engine.cards import standard_deck
from engine.errors import CardError, DealError, IllegalAction, OptionError, PlayerCountError
from engine.games import (
    Game,
    GameRegistrationError,
    UnknownGame,
    game_names,
    get_game,
    missing_members,
    parse_engine_games,
    register_game,
    unregister_game,
)
from engine.record import Record
from engine.runner import play_game
from engine.verify import replay, verify
from tests.engine import high_card

MODULE = "tests.engine.high_card"


@pytest.fixture
def highcard() -> Iterator[Game]:
    """The game, registered for this test only."""
    game = register_game("highcard", MODULE)
    yield game
    unregister_game("highcard")
    assert "highcard" not in game_names()


def play(seed: int, players: int, options: dict[str, object] | None = None) -> Record:
    agents = seat_agents("highcard", ["random"] * players, options or {}, seed)
    return play_game("highcard", agents=agents, seed=seed, options=options)


def test_registering_adds_the_game_after_the_engine_s_four_and_unregistering_removes_it(highcard: Game) -> None:
    assert game_names()[:4] == ("war", "1923", "banter", "punk")
    assert game_names()[4:] == ("highcard",)
    assert get_game("HighCard ") is highcard is high_card  # type: ignore[comparison-overlap]
    assert missing_members(high_card) == []
    assert bot_names("highcard") == ["random"]
    # Registering the same module again is harmless; to another module it is refused.
    assert register_game("highcard", MODULE) is highcard
    with pytest.raises(GameRegistrationError, match=re.escape("already registered, to tests.engine.high_card")):
        register_game("highcard", "engine.games.war")


def test_the_checks_every_registered_game_gets_hold_for_it(highcard: Game) -> None:
    """tests/engine/test_game_protocol.py's checks, run on the fifth game while it is registered."""
    from tests.engine import test_game_protocol as protocol

    protocol.test_each_game_module_has_every_part_of_the_protocol("highcard")
    protocol.test_a_copy_equals_the_state_and_shares_nothing_mutable_with_it("highcard")


def test_without_registration_the_game_is_unknown() -> None:
    assert "highcard" not in game_names()
    with pytest.raises(UnknownGame, match="choose one of war, 1923, banter, punk"):
        get_game("highcard")


def test_engine_games_variable_names_the_game_and_its_module() -> None:
    assert parse_engine_games(f" highcard={MODULE} ") == [("highcard", MODULE, None)]
    assert parse_engine_games(f"highcard={MODULE}:engine.bots.punk_bots,x=y") == [
        ("highcard", MODULE, "engine.bots.punk_bots"),
        ("x", "y", None),
    ]
    with pytest.raises(GameRegistrationError, match=re.escape("is not name=rules.module")):
        parse_engine_games("highcard")


@pytest.mark.parametrize("name", ["High", "highcard-xl", "", "-x", "high card", "hé"])
def test_a_bad_name_is_refused_clearly(name: str) -> None:
    with pytest.raises(GameRegistrationError, match="use 1 to 10 lower-case letters, digits"):
        register_game(name, MODULE)
    assert name not in game_names()


def test_a_module_missing_members_is_refused_naming_them(monkeypatch: pytest.MonkeyPatch) -> None:
    broken = ModuleType("tests.engine.broken_high_card")
    # Every member of the real module but two (not its dunders: the copy keeps a name of its own).
    kept = {k: v for k, v in vars(high_card).items() if k[:2] != "__" and k not in {"apply", "PROFILE"}}
    broken.__dict__.update(kept)
    monkeypatch.setitem(sys.modules, broken.__name__, broken)
    with pytest.raises(GameRegistrationError) as refused:
        register_game("highcard", broken.__name__)
    assert str(refused.value) == (
        "game 'highcard': tests.engine.broken_high_card lacks PROFILE, apply (docs/engine-interface.md)"
    )
    assert "highcard" not in game_names()


def test_a_module_that_cannot_be_imported_or_names_itself_otherwise_is_refused() -> None:
    with pytest.raises(GameRegistrationError, match=re.escape("game 'hc': cannot import tests.engine.no_such_game")):
        register_game("hc", "tests.engine.no_such_game")
    with pytest.raises(
        GameRegistrationError, match=re.escape("game 'hc': tests.engine.high_card names itself 'highcard'")
    ):
        register_game("hc", MODULE)
    with pytest.raises(GameRegistrationError, match="one of the engine's own"):
        unregister_game("war")
    assert "hc" not in game_names()


@pytest.mark.parametrize(("players", "hand_size"), [(2, 3), (3, 1), (3, 13), (4, 13)])
def test_random_bots_play_to_the_end_and_the_record_verifies(highcard: Game, players: int, hand_size: int) -> None:
    options = {"hand_size": hand_size}
    record = play(seed=players * 100 + hand_size, players=players, options=options)
    assert record.game == "highcard" and record.forfeit is None
    assert record.options == {"hand_size": hand_size}
    assert len(record.actions) == hand_size and all(len(step) == players for step in record.actions)
    verdict = verify(record)
    assert verdict.ok, str(verdict)
    result = record.result
    assert result is not None
    assert len(result["tricks"]) == hand_size
    assert sum(result["scores"]) == sum(trick["taken_by"] is not None for trick in result["tricks"])
    # The stated result survives a JSON round trip, as the service stores it.
    assert Record.from_json(record.to_json()) == record
    # Same seed, same bots: the same bytes.
    assert play(seed=players * 100 + hand_size, players=players, options=options).to_json() == record.to_json()


def test_a_changed_action_fails_verification_at_its_step(highcard: Game) -> None:
    record = play(seed=5, players=2)
    hand = highcard.observation(highcard.new_state(record.options, 2, 5), 0)["hand"]
    other = next(card for card in standard_deck() if card not in hand)
    record.actions[1][0] = f"PLAY {other}"
    verdict = verify(record)
    assert not verdict.ok and verdict.step == 1


def test_cards_are_conserved_at_every_step(highcard: Game) -> None:
    options = highcard.parse_options({"hand_size": 13}, 4)
    full = sorted(highcard.full_deck(options, 4))
    assert full == sorted(standard_deck())
    states = []
    replay(play(seed=9, players=4, options={"hand_size": 13}), on_step=lambda state: states.append(state.copy()))
    assert len(states) == 14
    assert all(sorted(highcard.cards_in_play(state)) == full for state in states)
    assert highcard.is_over(states[-1]) and highcard.to_act(states[-1]) == ()


def test_an_explicit_deck_deals_one_card_at_a_time_and_the_highest_rank_takes_the_trick(highcard: Game) -> None:
    top = ["AS", "KS", "7C", "7D", "2H", "9H"]  # seat 0 gets AS 7C 2H, seat 1 KS 7D 9H
    deck = [*top, *(card for card in standard_deck() if card not in top)]
    options = highcard.parse_options({}, 2)
    deal = highcard.parse_deal({"deck": [c.lower() for c in deck]}, options, 2)
    assert deal == {"deck": deck}
    state = highcard.new_state(options, 2, seed=0, deal=deal)
    assert highcard.observation(state, 0)["hand"] == ["2H", "7C", "AS"]
    assert highcard.observation(state, 1)["hand"] == ["7D", "9H", "KS"]
    assert highcard.legal_actions(state, 0) == ["PLAY 2H", "PLAY 7C", "PLAY AS"]
    highcard.apply(state, {0: "PLAY AS", 1: "PLAY KS"})
    highcard.apply(state, {0: "PLAY 7C", 1: "PLAY 7D"})  # a tie in the top rank: nobody takes it
    assert highcard.result(state).scores == (1, 0)  # callable on a running game
    highcard.apply(state, {0: "PLAY 2H", 1: "PLAY 9H"})
    result = highcard.result(state)
    assert highcard.is_over(state)
    assert (result.ranks, result.scores) == ((1, 1), (1, 1))
    assert [trick["taken_by"] for trick in result.to_json()["tricks"]] == [0, None, 1]
    rows = highcard.PROFILE.breakdown.rows(result.to_json())  # type: ignore[union-attr]
    assert [row.cells for row in rows] == [
        [{"rank": 14, "took": 1}, {"rank": 13, "took": 0}],
        [{"rank": 7, "took": 0}, {"rank": 7, "took": 0}],
        [{"rank": 2, "took": 0}, {"rank": 9, "took": 1}],
    ]
    assert [f.of_game(result.to_json(), seat) for f in highcard.PROFILE.own_figures for seat in (0, 1)] == [1, 1]


@pytest.mark.parametrize(
    "actions",
    [
        {0: "PLAY 2S"},  # a seat is missing
        {0: "PLAY 2S", 1: "PLAY 2S"},  # seat 1 does not hold the 2S
        {0: "PLAY 2S", 1: "DRAW"},
        {0: "2S", 1: "PLAY 3S"},
        {0: "PLAY 2S", 1: "PLAY 3S", 2: "PLAY 4S"},  # no seat 2
    ],
)
def test_an_illegal_action_is_refused_without_changing_anything(highcard: Game, actions: dict[int, str]) -> None:
    deck = ["2S", "3S", *(c for c in standard_deck() if c not in {"2S", "3S"})]
    options = highcard.parse_options({"hand_size": 1}, 2)
    state = highcard.new_state(options, 2, seed=0, deal=highcard.parse_deal({"deck": deck}, options, 2))
    before = state.copy()
    with pytest.raises(IllegalAction):
        highcard.apply(state, actions)
    assert state == before
    highcard.apply(state, {0: "PLAY 2S", 1: "PLAY 3S"})
    over = state.copy()
    with pytest.raises(IllegalAction, match="the game is over"):
        highcard.apply(state, {0: "PLAY 2S"})
    highcard.apply(state, {})  # the only step of a finished game changes nothing
    assert state == over


def test_a_seat_sees_its_own_hand_and_never_another_s(highcard: Game) -> None:
    options = highcard.parse_options({"hand_size": 5}, 3)
    state = highcard.new_state(options, 3, seed=21)
    highcard.apply(state, {seat: highcard.legal_actions(state, seat)[0] for seat in highcard.to_act(state)})
    for seat in (None, 0, 1, 2):
        seen = highcard.observation(state, seat)
        shown = json.dumps(seen)  # plain JSON
        others = [card for s, hand in enumerate(state.hands) if s != seat for card in hand]
        assert not [card for card in others if card in shown], seat
        assert seen["hand"] == (None if seat is None else state.hands[seat])
        assert seen["hand_sizes"] == [4, 4, 4] and len(seen["tricks"]) == 1
    # Changing an observation leaves the state alone.
    highcard.observation(state, 0)["hand"].clear()
    assert len(state.hands[0]) == 4


def test_bad_options_players_and_deals_are_refused(highcard: Game) -> None:
    with pytest.raises(OptionError, match="option 'hand_size'"):
        highcard.parse_options({"hand_size": 14}, 2)
    with pytest.raises(OptionError, match="option 'hand_size'"):
        highcard.parse_options({"hand_size": 0}, 2)
    with pytest.raises(PlayerCountError, match="2 to 4 seats, not 5"):
        highcard.parse_options({}, 5)
    options = highcard.parse_options({}, 2)
    with pytest.raises(DealError):
        highcard.parse_deal({"hands": [["AS"], ["KS"]]}, options, 2)
    with pytest.raises(CardError, match="expected 52 cards"):
        highcard.parse_deal({"deck": standard_deck()[:51]}, options, 2)
    with pytest.raises(CardError, match="duplicated"):
        highcard.parse_deal({"deck": ["AS", *standard_deck()[:51]]}, options, 2)
    assert highcard.extra_seats({}) == 0 and highcard.auto_seats(options, 2) == frozenset()
    with pytest.raises(IllegalAction):
        highcard.auto_action(highcard.new_state(options, 2, 0), 0)
