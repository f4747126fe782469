"""Invariants every game keeps (issue: "Hypothesis properties for every game").

These run on whole games played by every built-in bot, through the same
runner the service uses, and then poke at the records the games produce.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.bots import seat_agents
from engine.errors import IllegalAction
from engine.games import Game, game_names, get_game
from engine.record import Record
from engine.runner import play_game
from engine.verify import replay, verify
from tests.engine.strategies import Setup, setups

DECISION_GAMES = [g for g in game_names() if g != "war"]
MAX_STEPS = 50_000
#: PROPERTY_EXAMPLES=500 for a thorough run; the suite's default keeps CI quick.
EXAMPLES = int(os.environ.get("PROPERTY_EXAMPLES", "25"))
PROPERTY_SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def play(setup: Setup) -> Record:
    agents = seat_agents(setup.game, setup.bots, setup.options, setup.seed) if setup.bots else [None, None]
    return play_game(setup.game, agents=agents, seed=setup.seed, options=setup.options)


def start(setup: Setup) -> tuple[Game, Any, dict[str, Any]]:
    game = get_game(setup.game)
    options = game.parse_options(setup.options, setup.seats)
    return game, game.new_state(options, setup.seats, setup.seed), options


@pytest.mark.parametrize("game", game_names())
@PROPERTY_SETTINGS
@given(data=st.data())
def test_same_seed_gives_byte_identical_records_that_verify(game: str, data: st.DataObject) -> None:
    setup = data.draw(setups(game))
    record = play(setup)
    assert record.to_json() == play(setup).to_json()
    assert record.forfeit is None
    verdict = verify(record)
    assert verdict.ok, str(verdict)
    assert Record.from_json(record.to_json()) == record


@pytest.mark.parametrize("game", game_names())
@PROPERTY_SETTINGS
@given(data=st.data())
def test_cards_are_conserved_and_every_game_ends(game: str, data: st.DataObject) -> None:
    setup = data.draw(setups(game))
    record = play(setup)
    game_module = get_game(game)
    deck = sorted(game_module.full_deck(record.options, record.players))  # type: ignore[attr-defined]
    steps = 0

    def check(state: Any) -> None:
        nonlocal steps
        steps += 1
        assert steps < MAX_STEPS, "game did not end"
        assert sorted(game_module.cards_in_play(state)) == deck  # type: ignore[attr-defined]

    _, final = replay(record, on_step=check)
    assert game_module.is_over(final)


@pytest.mark.parametrize("game", DECISION_GAMES)
@settings(max_examples=max(8, EXAMPLES // 3), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_bots_are_only_offered_actions_that_apply(game: str, data: st.DataObject) -> None:
    setup = data.draw(setups(game))
    record = play(setup)
    game_module = get_game(game)
    auto = game_module.auto_seats(record.options, record.players)
    seen = 0

    def check(state: Any) -> None:
        nonlocal seen
        if game_module.is_over(state) or seen > 300:
            return
        seen += 1
        seats = game_module.to_act(state)
        assert seats, "a running game must have someone to act"
        defaults = {
            s: game_module.auto_action(state.copy(), s) if s in auto else game_module.legal_actions(state, s)[0]
            for s in seats
        }
        for seat in seats:
            if seat in auto:
                continue
            legal = game_module.legal_actions(state, seat)
            assert legal and len(legal) == len(set(legal))
            json.dumps(game_module.observation(state, seat))
            for action in legal:
                trial = state.copy()
                game_module.apply(trial, {**defaults, seat: action})

    replay(record, on_step=check)


@pytest.mark.parametrize("game", DECISION_GAMES)
@PROPERTY_SETTINGS
@given(data=st.data())
def test_verify_rejects_any_single_action_made_illegal(game: str, data: st.DataObject) -> None:
    setup = data.draw(setups(game))
    record = play(setup)
    game_module = get_game(game)
    index = data.draw(st.integers(0, len(record.actions) - 1))
    truncated = Record.from_dict({**record.to_dict(), "actions": record.actions[:index], "result": None})
    _, state = replay(truncated)
    seats = game_module.to_act(state)
    position = data.draw(st.integers(0, len(seats) - 1))
    seat = seats[position]
    legal = set(game_module.legal_actions(state, seat))
    universe = {a for step in record.actions for a in step} | {"DRAW", "LOCK", "STOP", "PLAY 2C", "BIN 2C", "XX"}
    original = record.actions[index][position]
    illegal = sorted(a for a in universe if a not in legal and a != original)
    if seat in game_module.auto_seats(record.options, record.players):
        # The engine's own seat: any other card than the one its generator picks is a forgery.
        illegal = sorted(a for a in legal | universe if a != original)
    mutated_action = data.draw(st.sampled_from(illegal))
    actions = [list(step) for step in record.actions]
    actions[index][position] = mutated_action
    mutated = Record.from_dict({**record.to_dict(), "actions": actions})
    verdict = verify(mutated)
    assert not verdict.ok
    assert verdict.step == index, str(verdict)


@pytest.mark.parametrize("game", DECISION_GAMES)
@settings(max_examples=max(10, EXAMPLES // 3), deadline=None)
@given(data=st.data())
def test_an_illegal_action_raises_and_leaves_the_state_untouched(game: str, data: st.DataObject) -> None:
    setup = data.draw(setups(game))
    game_module, state, options = start(setup)
    auto = game_module.auto_seats(options, setup.seats)
    seats = game_module.to_act(state)
    seat = next(s for s in seats if s not in auto)
    before = state.copy()
    actions = {
        s: game_module.auto_action(state.copy(), s) if s in auto else game_module.legal_actions(state, s)[0]
        for s in seats
    }
    actions[seat] = "NOT AN ACTION"
    with pytest.raises(IllegalAction) as info:
        game_module.apply(state, actions)
    assert info.value.seat == seat and info.value.action == "NOT AN ACTION" and info.value.reason
    assert state == before
