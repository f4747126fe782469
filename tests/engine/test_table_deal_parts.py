"""How each game's deal is written down list by list (LeagueProfile.table_deal_parts / unlisted_deal_part): the
parts make a deal the game takes, and a deck shuffled during play is asked for when it is shuffled, with the
cards it must hold, so that listing it replays the very game the seed played."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from engine.games import game_names, get_game
from engine.games.profile import DealPart


def _put(deal: dict[str, Any], path: tuple[str | int, ...], cards: list[str]) -> None:
    container: Any = deal
    for key, following in itertools.pairwise(path):
        if isinstance(key, int):
            while len(container) <= key:
                container.append([] if isinstance(following, int) else {})
            container = container[key]
        else:
            container = container.setdefault(key, [] if isinstance(following, int) else {})
    last = path[-1]
    if isinstance(last, int):
        while len(container) <= last:
            container.append(None)
    container[last] = cards


def _cards_for(parts: tuple[DealPart, ...], deck: list[str], rng: random.Random) -> list[list[str]]:
    """The deck dealt into the parts in order; a part that needs a whole deck of its own gets one."""
    lists, rest = [], []
    for part in parts:
        if len(rest) < part.count:
            rest = rng.sample(deck, len(deck))
        lists.append(rest[: part.count])
        rest = rest[part.count :]
    return lists


@pytest.mark.parametrize("name", game_names()[:4])
def test_the_start_parts_make_a_deal_the_game_takes_from_a_table(name: str) -> None:
    game = get_game(name)
    players = game.MIN_PLAYERS + 1 if name == "punk" else game.MIN_PLAYERS
    options = game.parse_options({}, players)
    parts = game.PROFILE.table_deal_parts(options, players)
    assert parts and all(part.count > 0 and part.label for part in parts)
    one_deck = sorted(set(game.full_deck(options, players)), key=game.full_deck(options, players).index)
    deck = game.full_deck(options, players) if name != "banter" else one_deck
    deal: dict[str, Any] = {}
    for part, cards in zip(parts, _cards_for(parts, deck, random.Random(1)), strict=True):
        _put(deal, part.path, cards)
    parsed = game.parse_deal(deal, options, players)
    assert game.PROFILE.table_deal_problem(parsed, options, players) == ""


@pytest.mark.parametrize(("name", "expected_path"), [("1923", ("sets", 1)), ("banter", ("reshuffles", "0", 0))])
def test_a_deck_shuffled_in_play_is_asked_for_when_it_is_shuffled_and_listing_it_replays_the_same_game(
    name: str, expected_path: tuple[str | int, ...]
) -> None:
    game = get_game(name)
    options = game.parse_options({}, 2)
    rng = random.Random(5)
    # The start as the seed dealt it, written down: a table deal of the seeded game's own first decks.
    deal = _seeded_start(name, game.new_state(options, 2, 9))
    state = game.new_state(options, 2, 9, game.parse_deal(deal, options, 2))
    steps: list[dict[int, str]] = []
    while game.PROFILE.unlisted_deal_part(state) is None:
        assert not game.is_over(state), "the game ended before it shuffled again"
        steps.append({seat: rng.choice(game.legal_actions(state, seat)) for seat in game.to_act(state)})
        game.apply(state, steps[-1])
    part = game.PROFILE.unlisted_deal_part(state)
    assert part is not None and part.path == expected_path
    relisted = state
    # Both seats may shuffle in one step: each is asked for in turn, as the game shuffled them.
    while part is not None:
        shuffled_now = list(state.deck) if name == "1923" else list(state.reshuffled[part.seat or 0][-1])
        assert len(shuffled_now) == part.count
        if part.cards:
            assert sorted(part.cards) == sorted(shuffled_now)
        _put(deal, part.path, shuffled_now)
        relisted = game.new_state(options, 2, 9, game.parse_deal(deal, options, 2))
        for step in steps:
            game.apply(relisted, step)
        part = game.PROFILE.unlisted_deal_part(relisted)
    assert game.observation(relisted, 0) == game.observation(state, 0)


def _seeded_start(name: str, state: Any) -> dict[str, Any]:
    if name == "1923":
        return {"sets": [list(state.deck)]}
    # Banter's first hand is drawn from the draw pile's top already.
    return {"piles": [{"draw": [*state.hands[s], *state.draw[s]], "deck": list(state.deck[s])} for s in (0, 1)]}
