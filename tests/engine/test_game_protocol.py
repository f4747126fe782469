"""Every game module provides the whole protocol, and a state's copy is derived from its fields (issue 12)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from engine.games import Game, game_names, get_game, seats_for
from engine.rng import Rng
from engine.state import GameState


def started(game: Game, steps: int) -> Any:
    """A state a few steps in, every seat playing its first legal action (engine seats their own)."""
    players = game.MIN_PLAYERS
    options = game.parse_options({}, players)
    state = game.new_state(options, players, seed=11)
    auto = game.auto_seats(options, players)
    for _ in range(steps):
        if game.is_over(state):
            break
        seats = game.to_act(state)
        game.apply(
            state, {s: game.auto_action(state, s) if s in auto else game.legal_actions(state, s)[0] for s in seats}
        )
    return state


@pytest.mark.parametrize("name", game_names())
def test_each_game_module_has_every_part_of_the_protocol(name: str) -> None:
    game = get_game(name)
    assert isinstance(game.DECISIONS, bool)
    assert seats_for(game, game.MIN_PLAYERS, {}) == game.MIN_PLAYERS + game.extra_seats({})
    options = game.parse_options({}, game.MIN_PLAYERS)
    assert sorted(game.cards_in_play(started(game, 0))) == sorted(game.full_deck(options, game.MIN_PLAYERS))


@pytest.mark.parametrize("name", game_names())
def test_a_copy_equals_the_state_and_shares_nothing_mutable_with_it(name: str) -> None:
    game = get_game(name)
    state = started(game, 3)
    copy = state.copy()
    assert copy == state and copy is not state
    for field in dataclasses.fields(state):
        value = getattr(state, field.name)
        if isinstance(value, list | dict | set | Rng):
            assert getattr(copy, field.name) is not value, field.name
    # Playing on in the copy leaves the original where it was.
    before = dataclasses.replace(state)
    if not game.is_over(copy):
        seats = game.to_act(copy)
        auto = game.auto_seats(game.parse_options({}, game.MIN_PLAYERS), game.MIN_PLAYERS)
        game.apply(copy, {s: game.auto_action(copy, s) if s in auto else game.legal_actions(copy, s)[0] for s in seats})
    assert state == before


def test_a_field_added_to_a_state_is_copied_without_writing_a_copy() -> None:
    @dataclasses.dataclass
    class Grown(GameState):
        piles: list[list[int]]
        added_later: dict[str, list[int]] = dataclasses.field(default_factory=dict)

    state = Grown(piles=[[1, 2]], added_later={"x": [3]})
    copy = state.copy()
    copy.piles[0].append(9)
    copy.added_later["x"].append(9)
    assert state == Grown(piles=[[1, 2]], added_later={"x": [3]})
