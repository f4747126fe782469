"""Banter rules (RULES.md, "Banter"; seed 002) on hand-built deals, and what each seat may see."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.agents import Agent
from engine.bots import make_bot
from engine.cards import standard_deck
from engine.errors import CardError, DealError, IllegalAction, OptionError, PlayerCountError
from engine.games import banter
from engine.games.banter import BanterState
from engine.record import Record
from engine.rng import Rng
from engine.runner import play_game
from engine.verify import replay, verify

CANONICAL = standard_deck()
FIXED_ACTIVE = ["2C", "2D", "2H", "2S", "3H"]


# --- helpers -------------------------------------------------------------------------------------


def piles(draw: str, deck: str = "") -> dict[str, list[str]]:
    """One seat's piles: ``draw`` on top of the draw pile and ``deck`` on top of the deck (top first).

    The rest of the seat's 52 cards fill the draw pile to 13, then the deck, in the canonical order.
    """
    draw_top, deck_top = draw.split(), deck.split()
    rest = [card for card in CANONICAL if card not in draw_top and card not in deck_top]
    fill = 13 - len(draw_top)
    return {"draw": draw_top + rest[:fill], "deck": deck_top + rest[fill:]}


def start(draw0: str, draw1: str, *, deck0: str = "", deck1: str = "", seed: int = 0, **options: object) -> BanterState:
    """A game from an explicit deal; seat 0 leads first unless ``first_lead`` says otherwise."""
    parsed = banter.parse_options({"first_lead": "0", **options})
    deal = banter.parse_deal({"piles": [piles(draw0, deck0), piles(draw1, deck1)]}, parsed)
    return banter.new_state(parsed, 2, seed, deal)


def act(state: BanterState, seat: int, action: str) -> None:
    assert banter.to_act(state) == (seat,)
    assert action in banter.legal_actions(state, seat)
    banter.apply(state, {seat: action})


def stop_both(state: BanterState) -> None:
    act(state, state.leader, "STOP")
    act(state, 1 - state.leader, "STOP")


def trick(state: BanterState, lead: str, follow: str) -> None:
    leader = state.actor
    act(state, leader, f"PLAY {lead}")
    act(state, 1 - leader, f"PLAY {follow}")


def refused(state: BanterState, seat: int, action: str) -> str:
    """Apply an illegal action: it must raise, name the seat and action, and change nothing."""
    before = state.copy()
    with pytest.raises(IllegalAction) as info:
        banter.apply(state, {seat: action})
    assert (info.value.seat, info.value.action) == (seat, action)
    assert state == before
    return info.value.reason


def three_two_round(state: BanterState) -> None:
    """Play the round dealt by ``THREE_TWO``: seat 0 wins three tricks, seat 1 two."""
    stop_both(state)
    trick(state, "AH", "4D")
    trick(state, "KH", "5D")
    trick(state, "QH", "6D")
    trick(state, "2C", "AC")
    trick(state, "KC", "3C")


#: Round-one hands for :func:`three_two_round` (seat 0 leads).
THREE_TWO = ("AH KH QH 2C 3C", "4D 5D 6D AC KC")


def json_only(value: object) -> bool:
    """Plain JSON data: dicts with text keys, lists or tuples, text, whole numbers, booleans, null."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and json_only(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return all(json_only(v) for v in value)
    return value is None or isinstance(value, str | int | bool)


# --- options, deals and set-up -------------------------------------------------------------------


def test_options_default_to_a_seeded_first_lead_and_200_rounds() -> None:
    assert banter.parse_options({}) == {"first_lead": "seed", "max_rounds": 200}


@pytest.mark.parametrize(("raw", "normalised"), [(0, "0"), (1, "1"), ("1", "1"), (" SEED ", "seed")])
def test_first_lead_accepts_json_numbers_and_any_case_and_normalises_to_text(raw: object, normalised: str) -> None:
    assert banter.parse_options({"first_lead": raw})["first_lead"] == normalised


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ({"first_lead": "2"}, "first_lead"),
        ({"first_lead": 2}, "first_lead"),
        ({"first_lead": True}, "first_lead"),
        ({"first_lead": None}, "first_lead"),
        ({"max_rounds": 0}, "max_rounds"),
        ({"max_rounds": "many"}, "max_rounds"),
        ({"target": 30}, "target"),
    ],
)
def test_bad_options_are_rejected_naming_the_option(raw: dict[str, object], name: str) -> None:
    with pytest.raises(OptionError) as info:
        banter.parse_options(raw)
    assert info.value.name == name


@pytest.mark.parametrize("players", [1, 3])
def test_banter_takes_exactly_two_players(players: int) -> None:
    with pytest.raises(PlayerCountError):
        banter.parse_options({}, players)
    with pytest.raises(PlayerCountError):
        play_game("banter", agents=[None] * players, seed=1)


def test_first_lead_option_names_the_first_leader_and_the_lead_alternates_every_round() -> None:
    for first in (0, 1):
        state = start(*THREE_TWO, first_lead=str(first))
        assert (state.leader, banter.to_act(state)) == (first, (first,))
        stop_both(state)
        while state.round == 1:
            act(state, state.actor, banter.legal_actions(state, state.actor)[0])
        assert (state.leader, banter.to_act(state)) == (1 - first, (1 - first,))


def seeded_setup(seed: int) -> tuple[list[tuple[list[str], list[str]]], int]:
    """The documented set-up, step by step: seat 0, seat 1, then the first leader."""
    rng = Rng(seed)
    seats = []
    for _ in range(2):
        rest = [card for card in CANONICAL if card not in FIXED_ACTIVE]
        rng.shuffle(rest)
        active = FIXED_ACTIVE + rest[:8]
        rng.shuffle(active)
        seats.append((active, rest[8:]))
    return seats, rng.below(2)


@pytest.mark.parametrize("seed", [0, 1, 7, 2**40 + 3])
def test_seeded_setup_shuffles_seat_0_then_seat_1_then_draws_the_first_leader(seed: int) -> None:
    state = banter.new_state(banter.parse_options({}), 2, seed)
    seats, first_lead = seeded_setup(seed)
    for seat, (active, deck) in enumerate(seats):
        assert state.hands[seat] + state.draw[seat] == active
        assert state.deck[seat] == deck
    assert state.leader == state.first_lead == first_lead


def test_seeded_setup_puts_the_2s_and_3h_in_every_active_13_and_both_first_leaders_occur() -> None:
    leaders = set()
    for seed in range(40):
        state = banter.new_state(banter.parse_options({}), 2, seed)
        leaders.add(state.leader)
        for seat in (0, 1):
            active = state.hands[seat] + state.draw[seat]
            assert len(active) == 13 and set(FIXED_ACTIVE) <= set(active)
            assert len(state.deck[seat]) == 39
            assert sorted(active + state.deck[seat]) == sorted(CANONICAL)
    assert leaders == {0, 1}


def test_a_round_starts_with_five_cards_from_the_top_of_each_draw_pile() -> None:
    state = start("AS KS QS JS TS 9S", "2D 3D 4D 5D 6D 7D")
    assert state.hands == [["AS", "KS", "QS", "JS", "TS"], ["2D", "3D", "4D", "5D", "6D"]]
    assert state.draw[0][0] == "9S" and len(state.draw[0]) == 8
    assert (state.round, state.phase, state.scores) == (1, "upgrade", (0, 0))


def test_explicit_deal_is_normalised_to_upper_case() -> None:
    raw = {"piles": [piles("AS KS"), piles("2D")]}
    raw["piles"][0]["draw"] = [card.lower() for card in raw["piles"][0]["draw"]]
    deal = banter.parse_deal(raw, banter.parse_options({}))
    assert deal["piles"][0]["draw"][:2] == ["AS", "KS"]
    assert deal == banter.parse_deal(deal, banter.parse_options({}))


def test_explicit_deal_accepts_10_for_t() -> None:
    seat = piles("TS")
    seat["draw"][0] = "10s"
    deal = banter.parse_deal({"piles": [seat, piles("")]}, banter.parse_options({}))
    assert deal["piles"][0]["draw"][0] == "TS"


@pytest.mark.parametrize(
    ("raw", "error"),
    [
        ([], DealError),
        ({"hands": []}, DealError),
        ({"piles": [piles("")]}, DealError),
        ({"piles": [piles(""), {"draw": piles("")["draw"]}]}, DealError),
        ({"piles": [piles(""), {**piles(""), "extra": []}]}, DealError),
        ({"piles": [piles(""), {"draw": 5, "deck": []}]}, DealError),
        ({"piles": [piles(""), {"draw": piles("")["draw"][:12], "deck": piles("")["deck"]}]}, CardError),
        ({"piles": [piles(""), {"draw": piles("")["draw"], "deck": [*piles("")["deck"][:-1], "AC"]}]}, CardError),
        ({"piles": [piles(""), {"draw": ["ZZ"] * 13, "deck": piles("")["deck"]}]}, CardError),
        ({"piles": [piles(""), {"draw": ["AU", *piles("")["draw"][1:]], "deck": piles("")["deck"]}]}, CardError),
    ],
)
def test_bad_deals_are_rejected_with_a_clear_error(raw: object, error: type[Exception]) -> None:
    with pytest.raises(error) as info:
        banter.parse_deal(raw, banter.parse_options({}))
    assert str(info.value)


def test_a_deal_without_reshuffles_normalises_without_the_key() -> None:
    # Records of such deals stay byte for byte what they were before the key existed.
    deal = banter.parse_deal({"piles": [piles(""), piles("")]}, banter.parse_options({}))
    assert set(deal) == {"piles"}


def test_listed_reshuffles_are_normalised_with_both_seats() -> None:
    order = ["10h", "as", "2c"]
    raw = {"piles": [piles(""), piles("")], "reshuffles": {0: [order, "KD qd"]}}
    deal = banter.parse_deal(raw, banter.parse_options({}))
    assert deal["reshuffles"] == {"0": [["TH", "AS", "2C"], ["KD", "QD"]], "1": []}
    assert deal == banter.parse_deal(deal, banter.parse_options({}))
    assert json.loads(json.dumps(deal)) == deal


@pytest.mark.parametrize(
    "reshuffles",
    [
        [],
        "0",
        {"2": []},
        {True: []},
        {"seat 0": []},
        {0: [], "0": []},
        {"0": "AS KS"},
        {"0": [5]},
        {"0": [["ZZ"]]},
        {"0": [["AU"]]},
        {"1": [[]]},
        {"1": [["AS", "KS", "as"]]},
    ],
)
def test_badly_listed_reshuffles_are_a_deal_error(reshuffles: object) -> None:
    with pytest.raises(DealError) as info:
        banter.parse_deal({"piles": [piles(""), piles("")], "reshuffles": reshuffles}, banter.parse_options({}))
    assert "reshuffle" in str(info.value)


def test_a_deal_carries_its_seed_for_the_first_leader() -> None:
    parsed = banter.parse_options({})
    deal = banter.parse_deal({"piles": [piles(""), piles("")]}, parsed)
    for seed in range(10):
        assert banter.new_state(parsed, 2, seed, deal).leader == Rng(seed).below(2)


# --- upgrades ------------------------------------------------------------------------------------


def test_spend_reveals_the_heart_into_the_discard_pile_and_buys_the_top_deck_card() -> None:
    state = start("7H 2C 5S 9C QD", "AS KS QS JS TS", deck0="KD QC")
    assert banter.legal_actions(state, 0) == ["SPEND 7H", "STOP"]
    act(state, 0, "SPEND 7H")
    assert state.hands[0] == ["2C", "5S", "9C", "QD", "KD"]
    assert state.discard[0] == ["7H"] and state.deck[0][0] == "QC" and len(state.deck[0]) == 38
    assert state.phase == "bin" and banter.to_act(state) == (0,)
    assert banter.legal_actions(state, 0) == ["BIN 2C", "BIN 5S", "BIN 9C", "BIN QD", "BIN KD"]
    act(state, 0, "BIN 2C")
    assert state.hands[0] == ["5S", "9C", "QD", "KD"] and state.bins[0] == ("2C",)
    assert state.phase == "upgrade" and banter.to_act(state) == (0,)


def test_the_card_just_bought_may_itself_be_binned() -> None:
    state = start("7H 2C 5S 9C QD", "AS KS QS JS TS", deck0="3C")
    act(state, 0, "SPEND 7H")
    act(state, 0, "BIN 3C")
    assert state.hands[0] == ["2C", "5S", "9C", "QD"] and state.bins == (("3C",), ())


def test_a_player_may_upgrade_as_often_as_hearts_allow_then_leader_stops_and_follower_upgrades() -> None:
    state = start("7H 8H 2C 3C 4C", "9H 2D 3D 4D 5D", deck0="AH KC", deck1="AC")
    act(state, 0, "SPEND 7H")
    act(state, 0, "BIN 2C")
    # The bought AH is a Heart: it can be spent at once.
    assert banter.legal_actions(state, 0) == ["SPEND 8H", "SPEND AH", "STOP"]
    act(state, 0, "SPEND AH")
    act(state, 0, "BIN 3C")
    act(state, 0, "STOP")
    assert state.phase == "upgrade" and banter.to_act(state) == (1,)
    act(state, 1, "SPEND 9H")
    act(state, 1, "BIN 2D")
    act(state, 1, "STOP")
    # RULES.md "Round" 3: the leader leads the first trick.
    assert state.phase == "trick" and banter.to_act(state) == (0,)
    assert state.hands == [["8H", "4C", "KC"], ["3D", "4D", "5D", "AC"]]
    assert state.spent == (("7H", "AH"), ("9H",)) and state.upgrades == [2, 1]


def test_spend_is_refused_without_a_heart_in_hand() -> None:
    state = start("2C 3C 4C 5C 6C", "AS KS QS JS TS")
    assert banter.legal_actions(state, 0) == ["STOP"]
    assert "not in your hand" in refused(state, 0, "SPEND 3H")


def test_only_a_heart_can_be_spent() -> None:
    state = start("7H 2C 5S 9C QD", "AS KS QS JS TS")
    assert "Heart" in refused(state, 0, "SPEND 2C")


def test_spend_is_refused_once_the_deck_is_empty() -> None:
    hearts = " ".join(card for card in CANONICAL if card[1] == "H")
    state = start(hearts, "AS KS QS JS TS")
    # Seat 0 holds only Hearts: it spends every one, binning each non-Heart it buys, so its
    # Active 13 stays all Hearts until the 39 cards of its deck are bought.
    for _ in range(2000):
        seat = state.actor
        if seat == 0 and state.phase == "upgrade" and not state.deck[0]:
            break
        legal = banter.legal_actions(state, seat)
        if seat == 1:
            action = "STOP" if "STOP" in legal else legal[0]
        elif state.phase == "bin":
            action = f"BIN {state.bought}"
        else:
            action = legal[0]
        act(state, seat, action)
    assert not state.over and not state.deck[0] and len(state.bins[0]) == 39
    heart = state.hands[0][0]
    assert heart[1] == "H"
    assert banter.legal_actions(state, 0) == ["STOP"]
    assert "deck is empty" in refused(state, 0, f"SPEND {heart}")


@pytest.mark.parametrize(
    ("phase_setup", "action", "reason"),
    [
        ("upgrade", "BIN 2C", "SPEND"),
        ("upgrade", "PLAY 2C", "SPEND"),
        ("bin", "STOP", "BIN"),
        ("bin", "SPEND 7H", "BIN"),
        ("bin", "PLAY 2C", "BIN"),
        ("bin", "BIN AS", "not in your hand"),
        ("trick", "SPEND 7H", "PLAY"),
        ("trick", "STOP", "PLAY"),
        ("trick", "BIN 2C", "PLAY"),
        ("trick", "PLAY AS", "not in your hand"),
        ("trick", "play 2C", "not a banter action"),
        ("trick", "NOT AN ACTION", "not a banter action"),
    ],
)
def test_actions_of_the_wrong_phase_are_refused_and_change_nothing(phase_setup: str, action: str, reason: str) -> None:
    state = start("7H 8H 2C 5S 9C", "AD KD QD JD TD", deck0="KC")
    if phase_setup == "bin":
        act(state, 0, "SPEND 8H")
    if phase_setup == "trick":
        stop_both(state)
    assert state.phase == phase_setup
    assert reason in refused(state, 0, action)


def test_a_step_must_hold_exactly_the_acting_seats_action() -> None:
    state = start(*THREE_TWO)
    before = state.copy()
    with pytest.raises(IllegalAction) as info:
        banter.apply(state, {1: "STOP"})
    assert info.value.seat == 1 and "seat 0's turn" in info.value.reason
    with pytest.raises(IllegalAction) as info:
        banter.apply(state, {0: "STOP", 1: "STOP"})
    assert info.value.seat == 1
    with pytest.raises(IllegalAction) as info:
        banter.apply(state, {})
    assert info.value.seat == 0
    assert state == before
    assert banter.legal_actions(state, 1) == []


# --- tricks --------------------------------------------------------------------------------------


def test_the_follower_must_follow_suit_when_able() -> None:
    state = start("AC 2D 3D 4D 5D", "KC 2H 3S 4S 5S")
    stop_both(state)
    act(state, 0, "PLAY AC")
    assert banter.legal_actions(state, 1) == ["PLAY KC"]
    assert "follow suit" in refused(state, 1, "PLAY 2H")
    assert "follow suit" in refused(state, 1, "PLAY 3S")


def test_a_follower_void_in_the_suit_led_may_play_any_card() -> None:
    state = start("AC 2D 3D 4D 5D", "2H 3S 4S 5S 6D")
    stop_both(state)
    act(state, 0, "PLAY AC")
    assert banter.legal_actions(state, 1) == ["PLAY 2H", "PLAY 3S", "PLAY 4S", "PLAY 5S", "PLAY 6D"]


@pytest.mark.parametrize(
    ("lead", "follow", "winner"),
    [
        ("KC", "AC", 1),  # Ace is high.
        ("AC", "2C", 0),
        ("9C", "TC", 1),
        ("AC", "2H", 1),  # A Heart on another suit wins.
        ("AC", "KS", 0),  # Off suit, not a Heart: the card led wins.
        ("2C", "AD", 0),
        ("5H", "9H", 1),  # Hearts led: the higher Heart wins.
        ("9H", "AS", 0),
    ],
)
def test_trick_goes_to_the_higher_card_of_the_suit_led_unless_a_heart_trumps_it(
    lead: str, follow: str, winner: int
) -> None:
    assert banter.trick_winner(0, lead, follow) == winner
    assert banter.trick_winner(1, lead, follow) == 1 - winner


def test_the_trick_winner_scores_and_leads_the_next_trick() -> None:
    state = start("AC 2D 3D 4D 5D", "2H 3S 4S 5S 6S")
    stop_both(state)
    trick(state, "AC", "2H")
    assert state.round_points == (0, 1) and banter.to_act(state) == (1,)
    assert state.tricks == ((0, "AC", "2H", 1),)
    trick(state, "3S", "2D")
    assert state.round_points == (0, 2) and banter.to_act(state) == (1,)
    assert state.tricks[-1] == (1, "2D", "3S", 1)


def test_identical_cards_draw_the_trick_both_score_and_the_same_leader_leads_again() -> None:
    state = start("AD 2C 3C 4C 5C", "AD KS QS JS TS", first_lead="1")
    stop_both(state)
    act(state, 1, "PLAY AD")
    act(state, 0, "PLAY AD")
    assert state.round_points == (1, 1)
    assert state.tricks == ((1, "AD", "AD", None),)
    assert banter.to_act(state) == (1,) and state.drawn_tricks == 1


def test_the_player_still_holding_cards_scores_one_trick_per_card_left() -> None:
    state = start("5H 6H 8D 9D 2C", "3C 4C 5C 6C 7C", deck0="2S 3S")
    act(state, 0, "SPEND 5H")
    act(state, 0, "BIN 2S")
    act(state, 0, "SPEND 6H")
    act(state, 0, "BIN 3S")
    stop_both(state)
    trick(state, "9D", "3C")
    trick(state, "8D", "4C")
    trick(state, "2C", "7C")
    # Seat 0's hand ran out after three tricks; seat 1 still holds two cards.
    assert state.round == 2 and state.scores == (2, 1 + 2)
    assert state.race == [(2, 3)] and state.last_tricks[-1] == (0, "2C", "7C", 1)


def test_an_empty_hand_after_upgrades_means_no_tricks_and_the_other_scores_its_whole_hand() -> None:
    state = start("5H 6H 7H 8H 9H", "3C 4C 5C 6C 7C", deck0="2S 3S 4S 5S 6S")
    for card in ("5H", "6H", "7H", "8H", "9H"):
        act(state, 0, f"SPEND {card}")
        act(state, 0, f"BIN {state.bought}")
    assert state.hands[0] == []
    stop_both(state)
    assert state.round == 2 and state.scores == (0, 5)


def test_suggested_layout_example_from_the_seed_text() -> None:
    # Red (seat 0) leads and upgrades once. Both play the Ace of Diamonds: a draw, and red leads
    # again and loses; blue then leads. Red runs out first, so blue's last card wins a trick alone.
    state = start("AD 2C 5S 7H 9C", "AD KS TC QD 6D", deck0="4D")
    act(state, 0, "SPEND 7H")
    act(state, 0, "BIN 2C")
    stop_both(state)
    trick(state, "AD", "AD")
    assert banter.to_act(state) == (0,)
    trick(state, "5S", "KS")
    assert banter.to_act(state) == (1,)
    trick(state, "TC", "9C")
    trick(state, "QD", "4D")
    assert state.scores == (1, 1 + 3 + 1)
    assert state.last_tricks == (
        (0, "AD", "AD", None),
        (0, "5S", "KS", 1),
        (1, "9C", "TC", 1),
        (1, "4D", "QD", 1),
    )


# --- the end of a round, discards and reshuffles -------------------------------------------------


def test_round_end_discards_spent_hearts_then_played_cards_in_order_then_the_hand_in_arrival_order() -> None:
    state = start("5H 6H 7H 8D 9D", "2C 3C 4H 5C 6C", deck0="2S 3S 4S", deck1="KS")
    for card in ("5H", "6H", "7H"):
        act(state, 0, f"SPEND {card}")
        act(state, 0, f"BIN {state.bought}")
    act(state, 0, "STOP")
    act(state, 1, "SPEND 4H")
    act(state, 1, "BIN 2C")
    act(state, 1, "STOP")
    assert state.hands == [["8D", "9D"], ["3C", "5C", "6C", "KS"]]
    trick(state, "9D", "6C")
    trick(state, "8D", "3C")
    assert state.scores == (2, 2)
    assert state.discard == [["5H", "6H", "7H", "9D", "8D"], ["4H", "6C", "3C", "5C", "KS"]]
    assert state.bins == (("2S", "3S", "4S"), ("2C",))


CLUBS = "AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C"
DIAMONDS = "AD KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D"


def play_round_in_hand_order(state: BanterState, *, all_but_the_last_card: bool = False) -> None:
    """Both stop, then each trick pairs the seats' hand cards in order (clubs against diamonds)."""
    stop_both(state)
    pairs = list(zip(state.hands[0][:], state.hands[1][:], strict=True))
    for card0, card1 in pairs[:-1] if all_but_the_last_card else pairs:
        leader = state.actor
        trick(state, card0 if leader == 0 else card1, card1 if leader == 0 else card0)


def test_a_short_draw_pile_is_drawn_then_the_discard_pile_is_shuffled_in_discard_order() -> None:
    clubs, diamonds = CLUBS, DIAMONDS
    state = start(clubs, diamonds, seed=99)
    for _ in range(2):
        play_round_in_hand_order(state)
    # Round three: each seat draws its last 3 cards, then shuffles its 10 discards for 2 more.
    assert state.round == 3 and state.reshuffles == [1, 1]
    rng = Rng(99)  # first_lead "0" drew nothing from the generator.
    for seat, cards in enumerate((clubs.split(), diamonds.split())):
        discarded = cards[:10]
        rng.shuffle(discarded)
        assert state.hands[seat] == cards[10:] + discarded[:2]
        assert state.draw[seat] == discarded[2:]
        assert state.discard[seat] == []


def start_with_reshuffles(reshuffles: dict[str, list[list[str]]], seed: int = 99) -> BanterState:
    parsed = banter.parse_options({"first_lead": "0"})
    raw = {"piles": [piles(CLUBS), piles(DIAMONDS)], "reshuffles": reshuffles}
    return banter.new_state(parsed, 2, seed, banter.parse_deal(raw, parsed))


def test_a_listed_reshuffle_gives_the_new_draw_pile_and_draws_nothing_from_the_generator() -> None:
    # Round three: each seat has 3 cards left to draw and 10 discards to reshuffle (see above).
    listed = ["5C", "JC", "AC", "6C", "KC", "QC", "TC", "9C", "8C", "7C"]
    state = start_with_reshuffles({"0": [listed]})
    for _ in range(2):
        play_round_in_hand_order(state)
    assert state.round == 3 and state.reshuffles == [1, 1]
    assert state.hands[0] == ["4C", "3C", "2C", "5C", "JC"]
    assert state.draw[0] == listed[2:] and state.discard[0] == []
    # Seat 1's reshuffle is not listed: it is the generator's first shuffle, as if seat 0's had
    # not happened (first_lead "0" drew nothing from the generator either).
    discarded = DIAMONDS.split()[:10]
    Rng(99).shuffle(discarded)
    assert state.hands[1] == DIAMONDS.split()[10:] + discarded[:2]
    assert state.draw[1] == discarded[2:]


@pytest.mark.parametrize(
    "order",
    [
        ["5C", "JC", "AC", "6C", "KC", "QC", "TC", "9C", "8C", "4C"],  # 4C is still to be drawn, 7C missing
        ["5C", "JC", "AC", "6C", "KC", "QC", "TC", "9C", "8C"],  # 7C missing
        ["5C", "JC", "AC", "6C", "KC", "QC", "TC", "9C", "8C", "7C", "2C"],  # 2C extra
    ],
)
def test_a_listed_reshuffle_that_is_not_an_order_of_the_discard_pile_is_a_deal_error(order: list[str]) -> None:
    state = start_with_reshuffles({"1": [[card.replace("C", "D") for card in order]]})
    play_round_in_hand_order(state)
    play_round_in_hand_order(state, all_but_the_last_card=True)
    # The last trick of round two ends the round, and round three starts with the reshuffles.
    leader = state.actor
    act(state, leader, f"PLAY {state.hands[leader][0]}")
    with pytest.raises(DealError) as info:
        banter.apply(state, {1 - leader: f"PLAY {state.hands[1 - leader][0]}"})
    assert "seat 1's reshuffle 1" in str(info.value)


def reshuffle_orders(record: Record) -> tuple[list[dict[str, list[str]]], dict[str, list[list[str]]]]:
    """Replay a seeded record: each seat's starting piles, and the draw pile every reshuffle made."""
    start_piles: list[dict[str, list[str]]] = []
    orders: dict[str, list[list[str]]] = {"0": [], "1": []}
    before: dict[str, list[int]] = {}

    def watch(state: BanterState) -> None:
        if not start_piles:
            start_piles.extend({"draw": state.hands[s] + state.draw[s], "deck": state.deck[s][:]} for s in (0, 1))
        for seat in (0, 1):
            if before and state.reshuffles[seat] > before["reshuffles"][seat]:
                # The hand holds what was left of the old pile, then the top of the new one.
                orders[str(seat)].append(state.hands[seat][before["draw"][seat] :] + state.draw[seat])
        before.update(reshuffles=state.reshuffles[:], draw=[len(pile) for pile in state.draw])

    replay(record, on_step=watch)
    return start_piles, orders


@pytest.mark.parametrize("seed", [3, 17, 2**40 + 5])
def test_a_seeded_game_and_its_explicit_deal_listing_its_reshuffles_play_identically(seed: int) -> None:
    def bots(options: Mapping[str, object]) -> list[Agent | None]:
        return [make_bot("random", game="banter", seat=s, players=2, options=options, seed=seed) for s in (0, 1)]

    seeded = play_game("banter", agents=bots({}), seed=seed)
    start_piles, orders = reshuffle_orders(seeded)
    assert seeded.result is not None and orders["0"] and orders["1"]
    # The seed's first leader is drawn after the set-up shuffles: an explicit deal names it instead.
    options = {"first_lead": str(seeded.result["first_lead"])}
    deal = {"piles": start_piles, "reshuffles": orders}
    dealt = play_game("banter", agents=bots(options), seed=seed, options=options, deal=deal)
    assert dealt.actions == seeded.actions and dealt.result == seeded.result
    assert dealt.deal == deal and verify(dealt).ok


# --- winning -------------------------------------------------------------------------------------


def test_a_player_reaching_40_after_a_round_wins() -> None:
    state = start(*THREE_TWO)
    state.scores = (37, 30)
    three_two_round(state)
    assert state.over and state.winner == 0 and state.scores == (40, 32)
    assert banter.result(state).ranks == (1, 2) and banter.to_act(state) == ()
    assert banter.observation(state, 0)["phase"] == "over"


@pytest.mark.parametrize(("before", "after", "winner"), [((39, 38), (42, 40), 0), ((37, 39), (40, 41), 1)])
def test_both_past_40_the_higher_score_wins(before: tuple[int, int], after: tuple[int, int], winner: int) -> None:
    state = start(*THREE_TWO)
    state.scores = before
    three_two_round(state)
    assert state.over and state.winner == winner and state.scores == after
    assert not state.capped and state.play_on_rounds == []


def test_level_scores_past_40_play_on_until_they_differ() -> None:
    state = start("AH KH QH 2C 3C 2S 3S 4S 5S 6S", "4D 5D 6D AC KC AH KH QH JH TH")
    state.scores = (38, 39)
    three_two_round(state)
    assert state.scores == (41, 41) and not state.over and state.round == 2
    # Round two is a play-on round: seat 1 leads its Hearts and takes all five tricks.
    stop_both(state)
    for lead, follow in (("AH", "2S"), ("KH", "3S"), ("QH", "4S"), ("JH", "5S"), ("TH", "6S")):
        trick(state, lead, follow)
    assert state.over and state.winner == 1 and state.scores == (41, 46)
    assert state.play_on_rounds == [2]
    assert banter.result(state).details["play_on_rounds"] == [2]


def test_max_rounds_reached_gives_the_win_to_the_higher_score() -> None:
    state = start(*THREE_TWO, max_rounds=1)
    three_two_round(state)
    assert state.over and state.capped and state.winner == 0
    assert banter.result(state).ranks == (1, 2)


def test_max_rounds_reached_with_level_scores_is_a_draw_even_past_40() -> None:
    state = start("AS KS QS JS TS", "AS KS QS JS TS", max_rounds=1)
    state.scores = (38, 38)
    stop_both(state)
    for card in ("AS", "KS", "QS", "JS", "TS"):
        trick(state, card, card)
    assert state.over and state.capped and state.winner is None and state.scores == (43, 43)
    outcome = banter.result(state)
    assert outcome.ranks == (1, 1) and outcome.winner is None and outcome.details["capped"] is True


def test_result_of_a_running_game_ranks_by_points_so_far() -> None:
    state = start(*THREE_TWO)
    assert banter.result(state).ranks == (1, 1)
    three_two_round(state)
    outcome = banter.result(state)
    assert not state.over and outcome.ranks == (1, 2) and outcome.scores == (3, 2)
    assert outcome.details["race"] == [[3, 2]] and outcome.details["points_per_round"] == [[3], [2]]
    assert outcome.details["rounds"] == 1


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**63), first_lead=st.sampled_from(["seed", "0", "1"]))
def test_a_whole_game_keeps_the_race_the_rules_and_the_cards_consistent(seed: int, first_lead: str) -> None:
    options = {"first_lead": first_lead}
    agents = [make_bot("random", game="banter", seat=s, players=2, options=options, seed=seed) for s in (0, 1)]
    record = play_game("banter", agents=agents, seed=seed, options=options)
    assert verify(record).ok
    details = record.result
    assert details is not None
    race, per_round = details["race"], details["points_per_round"]
    assert details["rounds"] == len(race) and race[-1] == details["scores"]
    for seat in (0, 1):
        totals = [sum(per_round[seat][: r + 1]) for r in range(len(race))]
        assert totals == [pair[seat] for pair in race]
    # RULES.md "Winning": the game ends after the first round with 40+ and different scores.
    decided = [max(pair) >= 40 and pair[0] != pair[1] for pair in race]
    assert decided[-1] or details["capped"]
    assert not any(decided[:-1])
    level = [r + 2 for r, pair in enumerate(race[:-1]) if pair[0] == pair[1] >= 40]
    assert details["play_on_rounds"] == level
    full = Counter(banter.full_deck(record.options, 2))

    def check(state: BanterState) -> None:
        assert Counter(banter.cards_in_play(state)) == full
        if state.phase == "upgrade" and state.actor == state.leader and not state.over:
            assert state.leader == (details["first_lead"] + state.round - 1) % 2

    replay(record, on_step=check)


def test_full_deck_is_both_players_decks() -> None:
    deck = banter.full_deck(banter.parse_options({}), 2)
    assert len(deck) == 104 and Counter(deck) == Counter(CANONICAL * 2)


# --- what a seat sees ----------------------------------------------------------------------------


def test_observation_lists_own_pile_contents_in_canonical_order_and_hides_the_rest() -> None:
    state = start("7H 2C 5S 9C QD KS 3D AC", "AS KS QS JS TS", deck0="KD QC")
    view = banter.observation(state, 0)
    assert view["hand"] == ("7H", "2C", "5S", "9C", "QD")
    assert list(view["draw_pile"]) == sorted(state.draw[0], key=CANONICAL.index)
    assert list(view["deck"]) == sorted(state.deck[0], key=CANONICAL.index)
    assert view["draw_sizes"] == (8, 8) and view["deck_sizes"] == (39, 39) and view["hand_sizes"] == (5, 5)
    spectator = banter.observation(state, None)
    for key in ("hand", "draw_pile", "deck", "discard", "bought"):
        assert spectator[key] is None
    assert json_only(view) and json_only(spectator)
    json.dumps(view)


def test_the_bought_card_is_shown_only_to_its_buyer_but_the_spent_heart_and_bin_to_all() -> None:
    state = start("7H 2C 5S 9C QD", "AS KS QS JS TS", deck0="KD")
    act(state, 0, "SPEND 7H")
    mine, theirs, public = (banter.observation(state, seat) for seat in (0, 1, None))
    assert mine["bought"] == "KD" and mine["phase"] == "bin" and mine["discard"] == ("7H",)
    assert theirs["bought"] is None and public["bought"] is None
    assert theirs["spent"] == public["spent"] == (("7H",), ())
    # Seat 1's own deck holds a KD of its own, so only the spectator's view can be searched for it.
    assert "KD" not in json.dumps(public)
    act(state, 0, "BIN KD")
    assert banter.observation(state, 1)["bins"] == (("KD",), ())


def test_the_leader_sees_the_followers_spent_hearts_after_a_round_with_no_tricks() -> None:
    state = start("2C 3C 4C 5C 6C", "2H 4H 5H 6H 7H", deck1="2S 3S 4S 5S 6S")
    act(state, 0, "STOP")
    for heart in ("2H", "4H", "5H", "6H", "7H"):
        act(state, 1, f"SPEND {heart}")
        act(state, 1, f"BIN {state.bought}")
    act(state, 1, "STOP")
    # Seat 1 emptied its hand: the round ends with no tricks, and seat 0 acts next in round two.
    assert state.round == 2 and state.scores == (5, 0) and banter.to_act(state) == (1,)
    act(state, 1, "STOP")
    for viewer in (0, None):
        view = banter.observation(state, viewer)
        assert view["spent"] == ((), ()) and view["last_tricks"] == ()
        assert view["last_spent"] == ((), ("2H", "4H", "5H", "6H", "7H"))


def test_the_last_rounds_spent_hearts_stay_on_view_when_the_game_is_over() -> None:
    state = start("5H AH KH QH 2C", THREE_TWO[1], deck0="3C", max_rounds=1)
    act(state, 0, "SPEND 5H")
    act(state, 0, "BIN 3C")
    stop_both(state)
    for lead, follow in (("AH", "4D"), ("KH", "5D"), ("QH", "6D"), ("2C", "AC")):
        trick(state, lead, follow)
    assert state.over and state.scores == (3, 2)
    for viewer in (0, 1, None):
        assert banter.observation(state, viewer)["last_spent"] == (("5H",), ())


def shuffle_hidden(state: BanterState, viewer: int | None, rng: Rng) -> BanterState:
    """A state the viewer cannot tell apart: every deck and draw pile reordered, and every hidden
    card of the others swapped with other hidden cards (their hands against their piles)."""
    other = state.copy()
    for seat in (0, 1):
        rng.shuffle(other.draw[seat])
        rng.shuffle(other.deck[seat])
        if seat == viewer:
            continue
        rng.shuffle(other.discard[seat])
        hidden = other.draw[seat] + other.deck[seat]
        hand = other.hands[seat]
        for index in range(min(len(hand), len(hidden))):
            hand[index], hidden[index] = hidden[index], hand[index]
        draw_size = len(other.draw[seat])
        other.draw[seat], other.deck[seat] = hidden[:draw_size], hidden[draw_size:]
        if other.bought is not None and other.actor == seat:
            other.bought = hand[-1]
    return other


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**63),
    steps=st.integers(0, 400),
    viewer=st.sampled_from([0, 1, None]),
    mix=st.integers(0, 2**32),
)
def test_no_observation_reveals_the_opponents_hidden_cards_or_any_pile_order(
    seed: int, steps: int, viewer: int | None, mix: int
) -> None:
    state = banter.new_state(banter.parse_options({}), 2, seed)
    chooser = Rng(seed ^ 0x5EED)
    for _ in range(steps):
        if banter.is_over(state):
            break
        seat = state.actor
        banter.apply(state, {seat: chooser.choice(banter.legal_actions(state, seat))})
    view = banter.observation(state, viewer)
    assert json_only(view)
    assert banter.observation(shuffle_hidden(state, viewer, Rng(mix)), viewer) == view


def test_observations_from_the_cache_match_ones_built_afresh_at_every_step() -> None:
    for seed in range(15):
        state = banter.new_state(banter.parse_options({}), 2, seed)
        chooser = Rng(seed)
        while not banter.is_over(state):
            for viewer in (0, 1, None):
                # A copy starts with no cached views, so it builds every key from the state.
                assert banter.observation(state, viewer) == banter.observation(state.copy(), viewer)
            seat = state.actor
            banter.apply(state, {seat: chooser.choice(banter.legal_actions(state, seat))})
        for viewer in (0, 1, None):
            assert banter.observation(state, viewer) == banter.observation(state.copy(), viewer)


def test_a_finished_game_refuses_every_action() -> None:
    state = start(*THREE_TWO, max_rounds=1)
    three_two_round(state)
    assert banter.legal_actions(state, 0) == [] and banter.to_act(state) == ()
    assert "over" in refused(state, 0, "STOP")


def test_every_observation_key_is_documented_in_the_module() -> None:
    state = banter.new_state(banter.parse_options({}), 2, 0)
    for viewer in (0, 1, None):
        for key in banter.observation(state, viewer):
            assert f"``{key}``" in (banter.__doc__ or "")
