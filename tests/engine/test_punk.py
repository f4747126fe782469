"""Punk's own rules (RULES.md, "Punk"): deck table, tricks, the cache, winning, the dummy, privacy."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.bots import make_bot
from engine.cards import ALL_SUITS, RANKS
from engine.errors import CardError, DealError, IllegalAction, OptionError, PlayerCountError
from engine.games import punk
from engine.record import Record
from engine.rng import Rng
from engine.runner import play_game
from engine.verify import verify

# --- helpers ---------------------------------------------------------------


def deal_from_tricks(tricks: list[str]) -> dict[str, Any]:
    """A deal whose seats play, trick by trick, the ranks listed ("5 A A 6" is one trick).

    Suits are handed out in deck order per rank, so the listed tricks must use
    every card of the deck exactly once.
    """
    players = len(tricks[0].split())
    next_suit: Counter[str] = Counter()
    hands: list[list[str]] = [[] for _ in range(players)]
    for trick in tricks:
        for seat, rank in enumerate(trick.split()):
            hands[seat].append(rank + ALL_SUITS[next_suit[rank]])
            next_suit[rank] += 1
    return {"hands": hands}


def start(deal: dict[str, Any], **raw_options: object) -> tuple[punk.PunkState, list[list[str]]]:
    players = len(deal["hands"])
    options = punk.parse_options(raw_options, players)
    parsed = punk.parse_deal(deal, options, players)
    return punk.new_state(options, players, 0, parsed), parsed["hands"]


def play_trick(state: punk.PunkState, hands: list[list[str]], trick: int) -> None:
    punk.apply(state, {seat: hand[trick] for seat, hand in enumerate(hands)})


def play_all(deal: dict[str, Any], **raw_options: object) -> punk.PunkState:
    state, hands = start(deal, **raw_options)
    for trick in range(len(hands[0])):
        play_trick(state, hands, trick)
    assert punk.is_over(state)
    return state


def deal_starting_with(first: str, players: int) -> dict[str, Any]:
    """A deal whose first trick is ``first`` (ranks, one per seat); the rest of the deck follows in order."""
    deck = punk.deck_for(players)
    ranks = first.split()
    opening = []
    for rank in ranks:
        card = next(c for c in deck if c[0] == rank and c not in opening)
        opening.append(card)
    rest = [c for c in deck if c not in opening]
    size = len(deck) // players
    hands = [[opening[seat], *rest[seat * (size - 1) : (seat + 1) * (size - 1)]] for seat in range(players)]
    return {"hands": hands}


#: RULES.md "Winning" examples, 4 players: seat 0 reaches 5 first on trick 1, seat 1 ends higher.
FIRST_TO_FIVE = [
    "5 A A 6",  # the 5 wins: seat 0 has 5
    "2 6 2 7",  # the 6 wins: seat 1 has 6
    "3 7 3 3",  # the 7 wins: seat 1 has 13
    "A A 4 4",  # nobody: the cache
    "5 5 2 2",  # nobody
    "6 6 4 4",  # nobody
    "3 5 7 7",  # the 3 wins: seat 0 has 8
]

#: Seats 0 and 1 score 3 each; every later trick goes to the cache.
EQUAL_LEADERS = ["3 A A 4", "A 3 A 4", "2 2 5 5", "2 2 6 6", "3 3 7 7", "4 4 5 5", "6 6 7 7"]

#: Dummy game (seat 2 is the dummy), target 5: the dummy reaches it first, seat 0 is the first person.
DUMMY_FIRST = ["A A 5", "6 2 2", "3 7 3", "4 7 4", "5 5 A", "6 6 2", "3 4 7"]

#: Dummy game, default target: the dummy reaches 21 but no person reaches it.
DUMMY_RUNS_AWAY = ["A A 7", "2 2 7", "3 3 7", "A 4 4", "2 5 5", "4 3 6", "5 6 6"]


# --- deck and deal ---------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "suits", "top", "size"),
    [
        (3, "CDH", "7", 21),
        (4, "CDHS", "7", 28),
        (5, "CDHSU", "8", 40),
        (6, "CDHSUV", "9", 54),
        (7, "CDHSUVW", "T", 70),
        (8, "CDHSUVWX", "J", 88),
        (9, "CDHSUVWXY", "Q", 108),
        (10, "CDHSUVWXYZ", "K", 130),
    ],
)
def test_deck_follows_the_rules_table_for_every_table_size(players: int, suits: str, top: str, size: int) -> None:
    deck = punk.full_deck(punk.parse_options({}, players), players)
    assert len(deck) == size == players * max(7, players + 3)
    assert {card[1] for card in deck} == set(suits)
    assert {card[0] for card in deck} == set(RANKS[: RANKS.index(top) + 1])
    assert len(set(deck)) == len(deck)


@pytest.mark.parametrize("players", range(3, 11))
def test_seeded_deal_gives_cards_one_at_a_time_seat_zero_first(players: int) -> None:
    deck = punk.deck_for(players)
    Rng(7).shuffle(deck)
    state = punk.new_state(punk.parse_options({}, players), players, 7)
    for seat in range(players):
        assert sorted(state.hands[seat]) == sorted(deck[seat::players])
        assert len(state.hands[seat]) == len(deck) // players


def test_hand_and_legal_actions_are_sorted_by_rank_then_suit() -> None:
    state = punk.new_state(punk.parse_options({}, 5), 5, 3)
    for seat in range(5):
        legal = punk.legal_actions(state, seat)
        assert legal == sorted(legal, key=lambda c: (RANKS.index(c[0]), ALL_SUITS.index(c[1])))


def test_explicit_deal_is_normalised_to_upper_case_and_accepts_10_for_ten() -> None:
    deal = deal_from_tricks(EQUAL_LEADERS)
    deal["hands"][0] = [card.lower() for card in deal["hands"][0]]
    options = punk.parse_options({}, 4)
    parsed = punk.parse_deal(deal, options, 4)
    assert parsed["hands"][0] == [card.upper() for card in deal["hands"][0]]
    seven = punk.deck_for(7)
    hands = [seven[seat::7] for seat in range(7)]
    hands[0] = ["10" + card[1] if card[0] == "T" else card for card in hands[0]]
    assert punk.parse_deal({"hands": hands}, punk.parse_options({}, 7), 7)["hands"][0] == seven[0::7]


@pytest.mark.parametrize(
    ("deal", "error"),
    [
        ({"deck": []}, DealError),
        ([["AC"]], DealError),
        ({"hands": [["AC"]] * 3}, DealError),
        ({"hands": "AC"}, DealError),
        ({"hands": [1, 2, 3, 4]}, DealError),
    ],
)
def test_malformed_deal_is_rejected(deal: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        punk.parse_deal(deal, punk.parse_options({}, 4), 4)


def test_deal_with_unequal_hands_is_rejected() -> None:
    hands = deal_from_tricks(EQUAL_LEADERS)["hands"]
    hands[1].append(hands[0].pop())
    with pytest.raises(CardError, match="hand 0: expected 7 cards"):
        punk.parse_deal({"hands": hands}, punk.parse_options({}, 4), 4)


def test_deal_with_a_duplicated_card_or_a_card_outside_the_deck_is_rejected() -> None:
    options = punk.parse_options({}, 4)
    hands = deal_from_tricks(EQUAL_LEADERS)["hands"]
    hands[0][0] = hands[1][0]
    with pytest.raises(CardError, match="duplicated"):
        punk.parse_deal({"hands": hands}, options, 4)
    hands = deal_from_tricks(EQUAL_LEADERS)["hands"]
    hands[0][0] = "8C"
    with pytest.raises(CardError, match="8C"):
        punk.parse_deal({"hands": hands}, options, 4)


def test_seeded_game_equals_the_game_started_from_its_own_deal_dummy_moves_included() -> None:
    options = {"dummy": True}
    agents = [make_bot("random", game="punk", seat=s, players=3, options=options, seed=11) for s in (0, 1)]
    seeded = play_game("punk", agents=[*agents, None], seed=11, options=options)
    state = punk.new_state(punk.parse_options(options, 3), 3, 11)
    deal = {"hands": [list(hand) for hand in state.hands]}
    agents = [make_bot("random", game="punk", seat=s, players=3, options=options, seed=11) for s in (0, 1)]
    dealt = play_game("punk", agents=[*agents, None], seed=11, options=options, deal=deal)
    assert dealt.actions == seeded.actions
    assert dealt.result == seeded.result


# --- options ---------------------------------------------------------------


@pytest.mark.parametrize(("players", "target"), [(3, 21), (4, 21), (5, 28), (6, 28), (10, 28)])
def test_default_target_is_21_or_28_with_five_or_more_players(players: int, target: int) -> None:
    assert punk.parse_options({}, players) == {"dummy": False, "target": target}


def test_dummy_table_has_the_target_for_two_people() -> None:
    assert punk.parse_options({"dummy": True}, 3) == {"dummy": True, "target": 21}


@pytest.mark.parametrize("players", [3, 5, 10])
def test_target_option_overrides_the_default(players: int) -> None:
    assert punk.parse_options({"target": "40"}, players)["target"] == 40


@pytest.mark.parametrize(
    ("raw", "name"), [({"target": 0}, "target"), ({"target": "x"}, "target"), ({"dummy": "maybe"}, "dummy")]
)
def test_bad_option_value_is_rejected_naming_the_option(raw: dict[str, object], name: str) -> None:
    with pytest.raises(OptionError) as caught:
        punk.parse_options(raw, 4)
    assert caught.value.name == name


def test_unknown_option_is_rejected() -> None:
    with pytest.raises(OptionError, match="colour"):
        punk.parse_options({"colour": "red"}, 4)


@pytest.mark.parametrize("players", [1, 2, 11])
def test_seat_count_outside_three_to_ten_is_rejected(players: int) -> None:
    with pytest.raises(PlayerCountError):
        punk.parse_options({}, players)


@pytest.mark.parametrize("players", [4, 5, 10])
def test_dummy_needs_exactly_two_people_and_the_dummy(players: int) -> None:
    with pytest.raises(PlayerCountError, match="dummy"):
        punk.parse_options({"dummy": True}, players)


# --- a trick ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "winner", "points"),
    [
        ("2 3 5 6", 0, 2),  # the 2 wins, +2
        ("A A 4 6", 2, 4),  # the 4 wins, +4
        ("3 3 3 7", 3, 7),  # the 7 wins, +7
        ("A A A A", None, 0),  # nobody
        ("2 2 5 5", None, 0),  # nobody
    ],
)
def test_rules_examples_of_a_trick(first: str, winner: int | None, points: int) -> None:
    state, hands = start(deal_starting_with(first, 4))
    play_trick(state, hands, 0)
    assert state.winners == (winner,)
    expected = [0, 0, 0, 0]
    if winner is not None:
        expected[winner] = points
    assert list(state.scores) == expected
    played = tuple(hand[0] for hand in hands)
    assert state.cache == (() if winner is not None else played)
    assert punk.trick_winner(played) == winner


def test_ranks_score_their_value_from_ace_one_to_king_thirteen() -> None:
    assert [punk.POINTS[rank + "C"] for rank in RANKS] == list(range(1, 14))
    state, hands = start(deal_starting_with("A A A 2 2 3 3 4 4 K", 10))
    play_trick(state, hands, 0)
    assert state.scores == (0,) * 9 + (13,)


def test_cache_keeps_every_unwon_trick_and_is_public() -> None:
    state = play_all(deal_from_tricks(EQUAL_LEADERS))
    assert len(state.cache) == 20
    spectator = punk.observation(state, None)
    assert list(spectator["cache"]) == [card for trick in state.tricks[2:] for card in trick]
    assert punk.result(state).details["cache_size"] == 20


def test_won_cards_and_cache_conserve_the_deck() -> None:
    state = play_all(deal_from_tricks(FIRST_TO_FIVE))
    assert sorted(punk.cards_in_play(state)) == sorted(punk.full_deck(punk.parse_options({}, 4), 4))


# --- winning ---------------------------------------------------------------


def test_first_to_reach_the_target_wins_though_another_ends_with_more() -> None:
    state = play_all(deal_from_tricks(FIRST_TO_FIVE), target=5)
    result = punk.result(state)
    assert result.scores == (8, 13, 0, 0)
    assert result.ranks == (1, 2, 3, 3)
    assert result.details["first_to_target"] == {"seat": 0, "trick": 1}
    assert result.details["reached_target"] == [{"seat": 0, "trick": 1}, {"seat": 1, "trick": 2}]


def test_without_anyone_at_the_target_the_highest_score_wins() -> None:
    result = punk.result(play_all(deal_from_tricks(FIRST_TO_FIVE)))
    assert result.ranks == (2, 1, 3, 3)
    assert result.details["first_to_target"] is None
    assert result.details["reached_target"] == []


def test_equal_highest_scores_share_the_win_when_nobody_reaches_the_target() -> None:
    result = punk.result(play_all(deal_from_tricks(EQUAL_LEADERS)))
    assert result.scores == (3, 3, 0, 0)
    assert result.ranks == (1, 1, 3, 3)
    assert result.winners == (0, 1)


def test_all_cards_are_played_after_the_target_is_reached() -> None:
    state, hands = start(deal_from_tricks(FIRST_TO_FIVE), target=5)
    play_trick(state, hands, 0)
    assert state.scores[0] == 5
    assert not punk.is_over(state)
    assert punk.to_act(state) == (0, 1, 2, 3)


def test_result_details_list_each_trick_with_its_winner_and_card() -> None:
    details = punk.result(play_all(deal_from_tricks(FIRST_TO_FIVE), target=5)).details
    assert details["tricks"][:4] == [
        {"winner": 0, "card": "5C", "points": 5},
        {"winner": 1, "card": "6D", "points": 6},
        {"winner": 1, "card": "7D", "points": 7},
        {"winner": None, "card": None, "points": 0},
    ]
    assert details["tricks_played"] == 7
    assert details["target"] == 5
    assert details["dummy"] is None
    assert json.loads(json.dumps(details)) == details


def test_result_of_a_running_game_ranks_the_scores_so_far() -> None:
    state, hands = start(deal_from_tricks(FIRST_TO_FIVE))
    assert punk.result(state).ranks == (1, 1, 1, 1)
    for trick in range(2):
        play_trick(state, hands, trick)
    assert punk.result(state).ranks == (2, 1, 3, 3)


def test_running_game_with_a_seat_at_the_target_already_has_its_winner() -> None:
    state, hands = start(deal_from_tricks(FIRST_TO_FIVE), target=5)
    for trick in range(3):
        play_trick(state, hands, trick)
    assert state.scores == (5, 13, 0, 0)
    assert punk.result(state).ranks == (1, 2, 3, 3)


# --- the dummy -------------------------------------------------------------


def test_dummy_is_the_engines_seat_two() -> None:
    assert punk.auto_seats(punk.parse_options({"dummy": True}, 3), 3) == frozenset({2})
    assert punk.auto_seats(punk.parse_options({}, 3), 3) == frozenset()


def test_dummy_plays_a_uniform_card_from_its_hand_with_the_engine_generator() -> None:
    state = punk.new_state(punk.parse_options({"dummy": True}, 3), 3, 5)
    generator = state.rng.copy()
    hand = state.hands[2]
    assert punk.auto_action(state, 2) == hand[generator.below(len(hand))]
    assert state.rng == generator
    drawn = Counter(punk.auto_action(state, 2) for _ in range(7000))
    assert set(drawn) == set(hand)
    assert all(800 < count < 1200 for count in drawn.values())


def test_only_the_dummy_is_played_by_the_engine() -> None:
    state = punk.new_state(punk.parse_options({"dummy": True}, 3), 3, 5)
    with pytest.raises(IllegalAction):
        punk.auto_action(state, 0)
    plain = punk.new_state(punk.parse_options({}, 3), 3, 5)
    with pytest.raises(IllegalAction):
        punk.auto_action(plain, 2)


def test_dummy_moves_are_recorded_and_verified_like_any_action() -> None:
    options = {"dummy": True}
    agents = [make_bot("random", game="punk", seat=s, players=3, options=options, seed=4) for s in (0, 1)]
    record = play_game("punk", agents=[*agents, None], seed=4, options=options)
    assert len(record.actions) == 7
    assert all(len(step) == 3 for step in record.actions)
    assert verify(Record.from_json(record.to_json())).ok
    tampered = Record.from_json(record.to_json())
    step = tampered.actions[0]
    state = punk.new_state(punk.parse_options(options, 3), 3, 4)
    step[2] = next(card for card in state.hands[2] if card != step[2])
    verdict = verify(tampered)
    assert not verdict.ok
    assert verdict.step == 0


def test_dummy_can_win_tricks_but_the_first_person_to_the_target_wins() -> None:
    result = punk.result(play_all(deal_from_tricks(DUMMY_FIRST), dummy=True, target=5))
    assert result.scores == (9, 14, 8)
    assert result.details["reached_target"][0] == {"seat": 2, "trick": 1}
    assert result.details["first_to_target"] == {"seat": 0, "trick": 2}
    assert result.ranks == (1, 2, 3)


def test_dummy_reaching_the_target_alone_leaves_the_win_to_the_highest_person() -> None:
    result = punk.result(play_all(deal_from_tricks(DUMMY_RUNS_AWAY), dummy=True))
    assert result.scores == (8, 3, 21)
    assert result.details["reached_target"] == [{"seat": 2, "trick": 3}]
    assert result.details["first_to_target"] is None
    assert result.ranks == (1, 2, 3)
    assert result.winner == 0


def test_people_share_the_win_and_the_dummy_ranks_last_whatever_its_score() -> None:
    tricks = ["A A 7", "2 2 7", "3 3 7", "4 5 5", "6 4 6", "5 6 A", "4 3 2"]
    result = punk.result(play_all(deal_from_tricks(tricks), dummy=True))
    assert result.scores == (4, 4, 24)
    assert result.ranks == (1, 1, 3)


# --- illegal actions -------------------------------------------------------


def illegal_steps(state: punk.PunkState) -> list[dict[int, Any]]:
    hands = state.hands
    good = {seat: hand[0] for seat, hand in enumerate(hands)}
    return [
        {**good, 0: hands[1][0]},  # another seat's card
        {**good, 1: "KZ"},  # not in the deck at all
        {**good, 2: 7},  # not a card
        {seat: card for seat, card in good.items() if seat != 3},  # a seat missing
        {**good, 4: hands[0][1]},  # no such seat
    ]


def test_illegal_actions_raise_and_leave_the_state_unchanged() -> None:
    state, hands = start(deal_from_tricks(FIRST_TO_FIVE))
    play_trick(state, hands, 0)
    before = state.copy()
    for step in illegal_steps(state):
        with pytest.raises(IllegalAction) as caught:
            punk.apply(state, step)
        assert caught.value.reason
        assert state == before


def test_card_already_played_is_no_longer_legal() -> None:
    state, hands = start(deal_from_tricks(FIRST_TO_FIVE))
    play_trick(state, hands, 0)
    assert hands[0][0] not in punk.legal_actions(state, 0)
    with pytest.raises(IllegalAction, match="not in the seat's hand"):
        punk.apply(state, {seat: hand[0] if seat == 0 else hand[1] for seat, hand in enumerate(hands)})


def test_no_action_is_legal_once_the_game_is_over() -> None:
    state = play_all(deal_from_tricks(EQUAL_LEADERS))
    assert punk.to_act(state) == ()
    assert punk.legal_actions(state, 0) == []
    before = state.copy()
    with pytest.raises(IllegalAction, match="over"):
        punk.apply(state, {0: "AC"})
    punk.apply(state, {})
    assert state == before


# --- what a seat sees ------------------------------------------------------


def test_observation_shows_own_hand_tricks_cache_scores_and_sizes() -> None:
    state, hands = start(deal_from_tricks(FIRST_TO_FIVE), target=5)
    for trick in range(4):
        play_trick(state, hands, trick)
    seen = punk.observation(state, 1)
    assert sorted(seen["hand"]) == sorted(hands[1][4:])
    assert [list(t) for t in seen["tricks"]] == [[hand[t] for hand in hands] for t in range(4)]
    assert list(seen["trick_winners"]) == [0, 1, 1, None]
    assert list(seen["cache"]) == [hand[3] for hand in hands]
    assert list(seen["scores"]) == [5, 13, 0, 0]
    assert list(seen["hand_sizes"]) == [3, 3, 3, 3]
    assert (seen["seat"], seen["players"], seen["dummy"], seen["target"], seen["tricks_played"]) == (1, 4, None, 5, 4)
    spectator = punk.observation(state, None)
    assert spectator["hand"] is None
    assert {k: v for k, v in spectator.items() if k not in ("hand", "seat")} == {
        k: v for k, v in seen.items() if k not in ("hand", "seat")
    }


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list | tuple):
        return [s for item in value for s in _strings(item)]
    return []


@settings(max_examples=60, deadline=None)
@given(
    players=st.integers(min_value=3, max_value=10),
    seed=st.integers(min_value=0, max_value=2**32),
    dummy=st.booleans(),
    choices=st.lists(st.integers(min_value=0, max_value=12), min_size=13, max_size=13),
)
def test_no_observation_shows_another_seats_unplayed_cards(
    players: int, seed: int, dummy: bool, choices: list[int]
) -> None:
    dummy = dummy and players == 3
    options = punk.parse_options({"dummy": dummy}, players)
    state = punk.new_state(options, players, seed)
    trick = 0
    while True:
        for seat in [None, *range(players)]:
            seen = punk.observation(state, seat)
            assert json.loads(json.dumps(seen)) is not None
            hidden = {card for other, hand in enumerate(state.hands) if other != seat for card in hand}
            assert not hidden & set(_strings(seen))
        if punk.is_over(state):
            break
        step = {}
        for seat in punk.to_act(state):
            legal = punk.legal_actions(state, seat)
            step[seat] = punk.auto_action(state, seat) if seat == state.dummy else legal[choices[trick] % len(legal)]
        punk.apply(state, step)
        trick += 1


# --- whole games at every table size ----------------------------------------


@pytest.mark.parametrize("players", range(3, 11))
def test_a_game_lasts_one_trick_per_card_in_hand_and_scores_every_won_trick(players: int) -> None:
    agents = [
        make_bot("random", game="punk", seat=s, players=players, options={}, seed=players) for s in range(players)
    ]
    record = play_game("punk", agents=agents, seed=players)
    size = len(punk.deck_for(players)) // players
    assert len(record.actions) == size
    assert record.result is not None
    scores = [0] * players
    for step, trick in zip(record.actions, record.result["tricks"], strict=True):
        winner = punk.trick_winner(step)
        assert trick["winner"] == winner
        if winner is not None:
            scores[winner] += punk.POINTS[step[winner]]
    assert record.result["scores"] == scores
    assert record.result["cache_size"] == sum(players for t in record.result["tricks"] if t["winner"] is None)
    assert verify(Record.from_json(record.to_json())).ok
