"""High card: a test-only fifth game, registered from outside the engine (issue 12's acceptance test).

Rules: a shuffled 52-card deck; each seat is dealt ``hand_size`` cards, one at a time, seat 0
first (seat ``s`` holds ``deck[s : players * hand_size : players]``), and the rest stays undealt.
Every step all seats play one card at once; the highest rank (A high, suits do not count) takes
the trick, and a tie in the top rank means nobody takes it. When the hands are empty a seat's
score is the tricks it took, and more tricks rank higher.

The module lives under ``tests/``: the engine and the service learn of it only through
``register_game`` or ``ENGINE_GAMES`` (tests/e2e/test_fifth_game.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.cards import check_multiset, parse_cards, standard_deck
from engine.errors import DealError, IllegalAction, PlayerCountError
from engine.games.profile import MATCH_POINTS, Column, Figure, LeagueProfile, ResultJSON, Row, SetTable
from engine.options import Option, OptionSet
from engine.result import Result, ranks_from_keys
from engine.rng import Rng
from engine.state import GameState

NAME = "highcard"
MIN_PLAYERS = 2
MAX_PLAYERS = 4
#: Every seat chooses which card to play.
DECISIONS = True
OPTIONS = OptionSet(
    # 13 is the most four seats can be dealt from one deck.
    Option("hand_size", int, 3, "cards dealt to each seat, one trick per card", minimum=1, maximum=13),
)

#: Ace high: "2" is worth 2, ..., "A" 14. The set table shows these numbers.
RANK_VALUE = {rank: value for value, rank in enumerate("23456789TJQKA", start=2)}
#: Rank, then suit: the order of a hand and so of its legal actions (stable, as the protocol asks).
_HAND_ORDER = {card: (RANK_VALUE[card[0]], card[1]) for card in standard_deck()}


@dataclass
class HighCardState(GameState):
    players: int
    hands: list[list[str]]
    #: The cards nobody was dealt: kept so that every card of the deck is somewhere (conservation).
    undealt: list[str]
    #: ``tricks[t][seat]``: the card ``seat`` played to trick ``t``.
    tricks: list[list[str]] = field(default_factory=list)
    #: The seat that took each trick, or None for a tie in the top rank.
    winners: list[int | None] = field(default_factory=list)


def parse_options(raw: Mapping[str, object] | None, players: int) -> dict[str, Any]:
    _check_players(players)
    return OPTIONS.parse(raw)


def _check_players(players: int) -> None:
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise PlayerCountError(f"highcard takes {MIN_PLAYERS} to {MAX_PLAYERS} seats, not {players}")


def parse_deal(raw: object, options: Mapping[str, Any], players: int) -> dict[str, Any]:
    """``{"deck": [52 cards, top first]}``: dealt one card at a time, seat 0 first."""
    _check_players(players)
    if not isinstance(raw, Mapping) or set(raw) != {"deck"}:
        raise DealError('a highcard deal is {"deck": [52 cards]}')
    cards = raw["deck"]
    if not isinstance(cards, list | str):
        raise DealError("deck: expected a list of cards")
    deck = parse_cards(cards, count=52, what="deck")
    check_multiset(deck, standard_deck(), what="deck")
    return {"deck": deck}


def new_state(
    options: Mapping[str, Any], players: int, seed: int = 0, deal: Mapping[str, Any] | None = None
) -> HighCardState:
    if deal is not None:
        deck = list(deal["deck"])
    else:
        # All of the engine's randomness comes from the seeded stream (RULES.md, "Determinism").
        deck = standard_deck()
        Rng(seed).shuffle(deck)
    dealt = players * int(options["hand_size"])
    hands = [sorted(deck[seat:dealt:players], key=_HAND_ORDER.__getitem__) for seat in range(players)]
    return HighCardState(players=players, hands=hands, undealt=deck[dealt:])


def extra_seats(raw_options: Mapping[str, object]) -> int:
    """No seat is the engine's."""
    return 0


def auto_seats(options: Mapping[str, Any], players: int) -> frozenset[int]:
    return frozenset()


def auto_action(state: HighCardState, seat: int) -> str:
    raise IllegalAction(seat, None, "highcard has no seat the engine plays")


def to_act(state: HighCardState) -> tuple[int, ...]:
    # Simultaneous: every seat plays to every trick, and the hands always have the same size.
    return tuple(range(state.players)) if state.hands[0] else ()


def legal_actions(state: HighCardState, seat: int) -> list[str]:
    if not 0 <= seat < state.players or not state.hands[0]:
        return []
    return [f"PLAY {card}" for card in state.hands[seat]]


def all_actions(options: Mapping[str, Any], players: int) -> list[str]:
    """``PLAY`` and each card of the deck, in the standard deck's order."""
    return [f"PLAY {card}" for card in standard_deck()]


def observation(state: HighCardState, seat: int | None) -> dict[str, Any]:
    """A seat's own hand and everything public; a spectator (None) sees no hand at all."""
    # Fresh lists: an in-process bot that changes its observation must not change the state.
    return {
        "seat": seat,
        "players": state.players,
        "hand": None if seat is None else list(state.hands[seat]),
        "hand_sizes": [len(hand) for hand in state.hands],
        "tricks": [list(trick) for trick in state.tricks],
        "trick_winners": list(state.winners),
        "scores": list(_scores(state)),
    }


def apply(state: HighCardState, actions: Mapping[int, str]) -> None:
    """Play one trick; every action is checked before anything changes."""
    played = _checked_trick(state, actions)
    if not played:
        return  # over: the only valid step is the empty one, which changes nothing
    for seat, card in enumerate(played):
        state.hands[seat].remove(card)
    state.tricks.append(played)
    state.winners.append(trick_winner(played))


def _checked_trick(state: HighCardState, actions: Mapping[int, str]) -> list[str]:
    seats = to_act(state)
    for seat in actions:
        if seat not in seats:
            reason = "the game is over" if not seats else f"there is no seat {seat} at this table"
            raise IllegalAction(seat, actions[seat], reason)
    played = []
    for seat in seats:
        if seat not in actions:
            raise IllegalAction(seat, None, "every seat plays a card to each trick")
        action = actions[seat]
        verb, _, card = action.partition(" ") if isinstance(action, str) else ("", "", "")
        if verb != "PLAY" or card not in state.hands[seat]:
            raise IllegalAction(seat, action, "expected PLAY and a card of the seat's hand")
        played.append(card)
    return played


def trick_winner(played: list[str]) -> int | None:
    """The seat of the single highest rank, or None when two or more seats share it."""
    values = [RANK_VALUE[card[0]] for card in played]
    top = max(values)
    return values.index(top) if values.count(top) == 1 else None


def _scores(state: HighCardState) -> tuple[int, ...]:
    return tuple(state.winners.count(seat) for seat in range(state.players))


def is_over(state: HighCardState) -> bool:
    return not state.hands[0]


def result(state: HighCardState) -> Result:
    """Tricks taken so far: on a running game, the provisional ranking a forfeit needs."""
    scores = _scores(state)
    return Result(ranks=ranks_from_keys(scores), scores=scores, details={"tricks": _trick_details(state)})


def _trick_details(state: HighCardState) -> list[dict[str, Any]]:
    # Lists and dicts only: a record's stated result must equal its JSON round trip.
    return [
        {"cards": list(played), "ranks": [RANK_VALUE[card[0]] for card in played], "taken_by": winner}
        for played, winner in zip(state.tricks, state.winners, strict=True)
    ]


def full_deck(options: Mapping[str, Any], players: int) -> list[str]:
    return standard_deck()


def cards_in_play(state: HighCardState) -> list[str]:
    return [card for hand in state.hands for card in hand] + state.undealt + [c for t in state.tricks for c in t]


def _tricks_taken(result: ResultJSON, seat: int) -> int:
    return int(result["scores"][seat])


def _trick_rows(result: ResultJSON) -> list[Row]:
    """One row per trick: each seat's rank played, and 1 for the seat that took it."""
    return [
        Row(cells=[{"rank": rank, "took": int(trick["taken_by"] == seat)} for seat, rank in enumerate(trick["ranks"])])
        for trick in result.get("tricks", [])
    ]


def table_deal(state: HighCardState) -> dict[str, Any]:
    """The deck as dealt: each seat's cards (its hand and every card it played) back at its positions, then the
    undealt rest. The order of one seat's cards is lost to sorting, and any order of them deals the same game."""
    held = [list(hand) for hand in state.hands]
    for played in state.tricks:
        for seat, card in enumerate(played):
            held[seat].append(card)
    dealt = [card for round_ in zip(*held, strict=True) for card in round_]
    return {"deck": dealt + state.undealt}


PROFILE = LeagueProfile(
    label="High card",
    order=(MATCH_POINTS, Figure("tricks", "Tricks taken", of_game=_tricks_taken)),
    breakdown=SetTable(columns=(Column("rank", "Rank played"), Column("took", "Took it")), rows=_trick_rows),
    table_deal=table_deal,
)
