"""War rules (RULES.md, "War") and its check figures."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.cards import standard_deck
from engine.errors import CardError, DealError, IllegalAction, OptionError, PlayerCountError
from engine.games import war
from engine.runner import play_game
from engine.verify import verify

SUIT_MAJOR = [rank + suit for suit in "CDHS" for rank in "23456789TJQKA"]


def play_deal(deal: dict[str, object], **options: object) -> war.WarState:
    parsed = war.parse_options(options)
    state = war.new_state(parsed, 2, 0, war.parse_deal(deal, parsed))
    war.apply(state, {})
    return state


def play_order(state: war.WarState, player: int) -> list[str]:
    """A player's cards, bottom first: the hand is played before the used pile it refills from."""
    return [war._decode(c) for c in state.used[player] + state.hands[player]]


def test_suit_major_deck_is_won_by_p2_after_680_rounds_and_51_wars() -> None:
    state = play_deal({"deck": SUIT_MAJOR})
    assert (state.winner, state.rounds, state.wars) == (1, 680, 51)


def test_reversed_suit_major_deck_is_won_by_p1_after_28_rounds_and_1_war() -> None:
    state = play_deal({"deck": SUIT_MAJOR[::-1]})
    assert (state.winner, state.rounds, state.wars) == (0, 28, 1)


def test_small_hands_from_rules_p2_wins_after_5_rounds() -> None:
    state = play_deal({"hands": [["2C", "8C", "4C"], ["5D", "2D", "9D"]]})
    assert (state.winner, state.rounds, state.wars) == (1, 5, 0)


def test_deal_gives_p1_the_even_positions_with_deck_50_on_top() -> None:
    state = war.new_state(war.parse_options({}), 2, 0, {"deck": SUIT_MAJOR})
    assert war._decode(state.hands[0][-1]) == SUIT_MAJOR[50]
    assert war._decode(state.hands[1][-1]) == SUIT_MAJOR[51]
    assert len(state.hands[0]) == len(state.hands[1]) == 26


def test_winner_pushes_table_reversed_then_own_card_then_opponents() -> None:
    deal = war.parse_deal({"hands": [["5C", "2C", "3C", "KC"], ["5D", "4D", "6D", "2D", "7D"]]}, {})
    state = war.new_state(war.parse_options({}), 2, 0, deal)
    war.play_rounds(state, 1)
    # The table, bottom up, was 5C 2C 3C 5D 4D 6D; popping it onto the used pile reverses it,
    # then P1 pushes its KC and P2's 2D.
    assert play_order(state, 0) == ["6D", "4D", "5D", "3C", "2C", "5C", "KC", "2D"]
    assert play_order(state, 1) == ["7D"]
    assert (state.rounds, state.wars, state.over) == (1, 1, False)


def test_refill_turns_the_used_pile_into_the_hand_with_its_top_unchanged() -> None:
    deal = war.parse_deal({"hands": [["KC", "3C"], ["2D", "4D"]]}, {})
    state = war.new_state(war.parse_options({}), 2, 0, deal)
    war.play_rounds(state, 2)
    # Round 1: KC beats 2D (P1 used: KC 2D); round 2: 4D beats 3C (P2 used: 4D 3C).
    # Round 3 refills both: P1 plays 2D (its used top) and loses to P2's 3C.
    war.play_rounds(state, 1)
    assert play_order(state, 1) == ["3C", "2D", "4D"]
    assert play_order(state, 0) == ["KC"]


def test_war_when_one_player_has_fewer_than_three_cards_loses() -> None:
    state = play_deal({"hands": [["5C", "2C"], ["5D", "4D", "6D", "2D"]]})
    assert (state.winner, state.wars, state.rounds) == (1, 1, 1)


def test_war_when_both_players_are_short_is_a_draw() -> None:
    state = play_deal({"hands": [["5C", "2C"], ["5D", "4D"]]})
    assert state.over and state.winner is None and state.wars == 1


def test_repeated_ties_in_one_round_each_count_as_a_war() -> None:
    hands = [["5C", "2C", "3C", "9C", "4C", "4H", "KC"], ["5D", "6D", "7D", "9D", "8D", "8H", "2D"]]
    state = play_deal({"hands": hands})
    assert state.rounds == 1 and state.wars == 2 and state.winner == 0


def test_cap_makes_a_running_game_a_draw_and_records_it() -> None:
    state = play_deal({"deck": SUIT_MAJOR}, max_rounds=100)
    result = war.result(state)
    assert state.rounds == 100 and result.winner is None and result.details["capped"] is True


def test_game_ending_in_the_cap_round_is_a_win_not_a_draw() -> None:
    state = play_deal({"deck": SUIT_MAJOR}, max_rounds=680)
    assert state.winner == 1 and not state.capped


def test_empty_hand_loses_before_the_first_round() -> None:
    state = play_deal({"hands": [[], ["2C"]]})
    assert state.winner == 1 and state.rounds == 0


def test_war_rejects_actions_and_bad_input() -> None:
    state = war.new_state(war.parse_options({}), 2, 1)
    with pytest.raises(IllegalAction) as info:
        war.apply(state, {0: "DRAW"})
    assert info.value.seat == 0 and "no decisions" in info.value.reason
    with pytest.raises(OptionError, match="max_rounds"):
        war.parse_options({"max_rounds": 0})
    with pytest.raises(CardError, match="expected 52 cards"):
        war.parse_deal({"deck": SUIT_MAJOR[:51]}, {})
    with pytest.raises(CardError, match="duplicated 2C"):
        war.parse_deal({"deck": ["2C", *SUIT_MAJOR[1:51], "2C"]}, {})
    with pytest.raises(DealError):
        war.parse_deal({"cards": []}, {})
    with pytest.raises(PlayerCountError):
        war.parse_options({}, 3)


@given(st.permutations(standard_deck()))
def test_any_deck_conserves_cards_and_ends(deck: list[str]) -> None:
    state = play_deal({"deck": deck})
    assert state.over
    assert sorted(state.cards()) == sorted(standard_deck())


@given(st.integers(min_value=0, max_value=2**64))
def test_seeded_games_replay_and_verify(seed: int) -> None:
    record = play_game("war", agents=[None, None], seed=seed)
    again = play_game("war", agents=[None, None], seed=seed)
    assert record.to_json() == again.to_json()
    assert verify(record).ok


def test_two_empty_hands_are_a_draw() -> None:
    state = play_deal({"hands": [[], []]})
    assert state.over and state.winner is None and state.rounds == 0
