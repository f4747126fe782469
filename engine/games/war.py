"""War (RULES.md, "War"; seed 003). No decisions: the game is a pure function of the deal.

Speed matters here (a club's War ladder plays millions of games), so a card is
held as an int ``rank * 8 + suit`` and a hand as a Python list whose top is its
end: popping and pushing the top are O(1), a refill hands the used list over
without copying, and a round needs one subtraction to
tell a win from a tie.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.cards import STANDARD_SUITS, check_multiset, parse_cards, standard_deck
from engine.errors import DealError, EngineError, IllegalAction, PlayerCountError
from engine.games.profile import GAMES_WON, MATCH_POINTS, DealPart, Figure, LeagueProfile
from engine.options import Option, OptionSet
from engine.result import Result
from engine.rng import Rng
from engine.state import GameState

NAME = "war"
MIN_PLAYERS = 2
MAX_PLAYERS = 2
#: No seat ever decides: nothing needs a bot (docs/engine-interface.md).
DECISIONS = False
OPTIONS = OptionSet(
    # Sizes do not grow with it, but replaying (a public view) takes 0.1 to 0.3 s a million rounds
    # (docs/records.md, "Size bounds"); seeded games end in 237 rounds on average.
    Option(
        "max_rounds",
        int,
        10000,
        "rounds after which a running game is a draw",
        minimum=1,
        maximum=1_000_000,
        label="Round limit",
        words="After this many rounds a game still running is a draw.",
    ),
)

_RANK_VALUE = {r: v for v, r in enumerate("23456789TJQKA", start=2)}
_RANK_CHAR = {v: r for r, v in _RANK_VALUE.items()}


def _encode(card: str) -> int:
    return _RANK_VALUE[card[0]] * 8 + STANDARD_SUITS.index(card[1])


def _decode(code: int) -> str:
    return _RANK_CHAR[code >> 3] + STANDARD_SUITS[code & 7]


_CANONICAL_DECK = tuple(_encode(c) for c in standard_deck())
_SORTED_DECK = sorted(standard_deck())


@dataclass
class WarState(GameState):
    hands: list[list[int]]
    used: list[list[int]]
    #: The table stack of a war that ended the game mid-round (shortage), kept for conservation.
    table: list[int]
    max_rounds: int
    rounds: int = 0
    wars: int = 0
    over: bool = False
    winner: int | None = None
    capped: bool = False
    #: Both hands as dealt, stacks as ``hands`` holds them (top last): what a transcript lists (``_table_deal``).
    #: History, not position, so it takes no part in comparing states.
    dealt: tuple[tuple[int, ...], ...] = field(default=(), compare=False)

    def cards(self) -> list[str]:
        """Every card in play, for conservation checks."""
        return [_decode(c) for pile in (*self.hands, *self.used, self.table) for c in pile]


def parse_options(raw: Mapping[str, object] | None, players: int = 2) -> dict[str, Any]:
    _check_players(players)
    return OPTIONS.parse(raw)


def _check_players(players: int) -> None:
    if players != 2:
        raise PlayerCountError(f"war is played by exactly 2 players, not {players}")


def parse_deal(raw: object, options: Mapping[str, Any], players: int = 2) -> dict[str, Any]:
    """``{"deck": [52 cards, top first]}`` or ``{"hands": [[P1 top first], [P2 top first]]}``."""
    _check_players(players)
    if not isinstance(raw, Mapping) or len(raw) != 1 or not ({"deck", "hands"} & set(raw)):
        raise DealError('a war deal is {"deck": [52 cards]} or {"hands": [[cards], [cards]]}')
    if "deck" in raw:
        deck = parse_cards(_card_list(raw["deck"], "deck"), count=52, what="deck")
        check_multiset(deck, standard_deck(), what="deck")
        return {"deck": deck}
    hands = raw["hands"]
    if not isinstance(hands, list) or len(hands) != 2:
        raise DealError("hands: expected a list of two hands")
    parsed = [parse_cards(_card_list(h, f"hand {i + 1}"), what=f"hand {i + 1}") for i, h in enumerate(hands)]
    for i, hand in enumerate(parsed):
        for card in hand:
            if card[1] not in STANDARD_SUITS:
                raise DealError(f"hand {i + 1}: {card} is not a card of a standard deck")
    return {"hands": parsed}


def _card_list(value: object, what: str) -> list[str] | str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return value
    raise DealError(f"{what}: expected a list of cards")


def new_state(
    options: Mapping[str, Any], players: int = 2, seed: int = 0, deal: Mapping[str, Any] | None = None
) -> WarState:
    if deal is not None and "hands" in deal:
        # Hands are listed top first; the top of our stacks is the end of the list.
        hands = [[_encode(c) for c in reversed(hand)] for hand in deal["hands"]]
    else:
        if deal is not None:
            deck = [_encode(c) for c in deal["deck"]]
        else:
            deck = list(_CANONICAL_DECK)
            Rng(seed).shuffle(deck)
        # P1 takes deck[0], deck[2], ... each pushed on top, so deck[50] is P1's top card.
        hands = [deck[0::2], deck[1::2]]
    return WarState(
        hands=hands,
        used=[[], []],
        table=[],
        max_rounds=int(options["max_rounds"]),
        dealt=(tuple(hands[0]), tuple(hands[1])),
    )


def extra_seats(raw_options: Mapping[str, object]) -> int:
    """Seats beyond the people: none, the engine plays no seat of its own."""
    return 0


def auto_seats(options: Mapping[str, Any], players: int = 2) -> frozenset[int]:
    return frozenset()


def auto_action(state: WarState, seat: int) -> str:
    raise IllegalAction(seat, None, "war has no decisions")


def to_act(state: WarState) -> tuple[int, ...]:
    return ()


def legal_actions(state: WarState, seat: int) -> list[str]:
    return []


def all_actions(options: Mapping[str, Any], players: int = 2) -> list[str]:
    """War lists no action ever: the game is a pure function of the deal."""
    return []


def observation(state: WarState, seat: int | None) -> dict[str, Any]:
    return {
        "cards": [len(state.hands[p]) + len(state.used[p]) for p in (0, 1)],
        "rounds": state.rounds,
        "wars": state.wars,
    }


def apply(state: WarState, actions: Mapping[int, str]) -> None:
    """War's only step takes no actions and plays the game to its end."""
    for seat, action in actions.items():
        raise IllegalAction(seat, action, "war has no decisions")
    if not state.over:
        play_rounds(state, state.max_rounds + 1)


def is_over(state: WarState) -> bool:
    return state.over


def result(state: WarState) -> Result:
    counts = tuple(len(state.hands[p]) + len(state.used[p]) for p in (0, 1))
    if state.over:
        ranks: tuple[int, ...] = (1, 1) if state.winner is None else ((1, 2) if state.winner == 0 else (2, 1))
    else:
        ranks = (1, 1) if counts[0] == counts[1] else ((1, 2) if counts[0] > counts[1] else (2, 1))
    return Result(
        ranks=ranks,
        scores=counts,
        details={"rounds": state.rounds, "wars": state.wars, "capped": state.capped},
    )


def play_rounds(state: WarState, limit: int) -> None:
    """Play up to ``limit`` more rounds, or to the end of the game.

    The whole loop keeps its piles in locals: attribute access per card would
    cost more than the rules themselves.
    """
    h0, h1 = state.hands
    u0, u1 = state.used
    rounds, wars = state.rounds, state.wars
    cap = state.max_rounds
    stop = rounds + limit
    winner: int | None = None
    over = False
    # One bound serves both the caller's limit and the cap; which one it was is checked on exit.
    end = min(stop, cap)
    if not (h0 or u0 or h1 or u1):
        # Only an explicit deal of two empty hands gets here: neither can play, so nobody wins.
        state.over = True
        return
    while True:
        # RULES.md: the no-cards check comes before the cap, so round 10000's winner stands.
        if not h0:
            if not u0:
                winner, over = 1, True
                break
            h0, u0 = u0, []
        if not h1:
            if not u1:
                winner, over = 0, True
                break
            h1, u1 = u1, []
        if rounds >= end:
            if rounds >= cap:
                over = state.capped = True
            break
        rounds += 1
        a = h0.pop()
        b = h1.pop()
        # Codes are rank * 8 + suit: a rank apart is a gap of at least 5, a tie at most 3.
        d = a - b
        if d > 4:
            u0 += (a, b)
            continue
        if d < -4:
            u1 += (b, a)
            continue
        table: list[int] = []
        while -4 <= d <= 4:
            wars += 1
            short0 = len(h0) + len(u0) < 3
            short1 = len(h1) + len(u1) < 3
            if short0 or short1:
                over = True
                winner = None if short0 and short1 else (1 if short0 else 0)
                table += (a, b)
                break
            # Each side pops three cards: two face down and the next to compare. Putting the
            # used pile under the hand first is the same as refilling when the hand runs out.
            if len(h0) < 3:
                h0, u0 = u0 + h0, []
            if len(h1) < 3:
                h1, u1 = u1 + h1, []
            table += (a, h0.pop(), h0.pop(), b, h1.pop(), h1.pop())
            a = h0.pop()
            b = h1.pop()
            d = a - b
        if over:
            state.table = table
            break
        # Popping the table onto the used pile one card at a time reverses it.
        table.reverse()
        if d > 4:
            u0 += table
            u0 += (a, b)
        else:
            u1 += table
            u1 += (b, a)
    state.hands = [h0, h1]
    state.used = [u0, u1]
    state.rounds, state.wars = rounds, wars
    if over:
        state.over = True
        state.winner = winner


def full_deck(options: Mapping[str, Any], players: int = 2) -> list[str]:
    return standard_deck()


def cards_in_play(state: WarState) -> list[str]:
    return state.cards()


def _table_deal_problem(deal: Mapping[str, Any], options: Mapping[str, Any], players: int) -> str:
    """The engine takes hands of any size (tests use short ones); a real table deals one whole deck."""
    if "hands" not in deal:
        return ""
    try:
        hands = [parse_cards(hand, count=26, what=f"hand {i + 1}") for i, hand in enumerate(deal["hands"])]
        check_multiset([card for hand in hands for card in hand], standard_deck(), what="hands")
    except EngineError as exc:
        return str(exc)
    return ""


def _table_deal(state: WarState) -> dict[str, Any]:
    """The deck the hands were dealt from; hands only when they are not one deck's two halves (a test's deal)."""
    first, second = state.dealt
    if len(first) == len(second) == 26:
        # new_state deals deck[0::2] and deck[1::2]: interleaving the hands gives the deck back.
        deck = [_decode(code) for pair in zip(first, second, strict=True) for code in pair]
        if sorted(deck) == _SORTED_DECK:
            return {"deck": deck}
    # A hand is listed top first; a stack's top is its end.
    return {"hands": [[_decode(code) for code in reversed(hand)] for hand in state.dealt]}


def _table_deal_parts(options: Mapping[str, Any], players: int) -> tuple[DealPart, ...]:
    # RULES.md War: the deck is dealt one card at a time, the first to seat 0.
    label = "the deck, top card first (dealt one at a time, the first card to the first seat)"
    return (DealPart(("deck",), label, 52),)


PROFILE = LeagueProfile(
    label="War",
    order=(
        MATCH_POINTS,
        GAMES_WON,
        # RULES.md War: "fewer rounds needed" counts the rounds of the games a player won.
        Figure(
            "rounds_needed",
            "Rounds needed",
            higher_first=False,
            of_game=lambda result, seat: int(result["rounds"]),
            won_games_only=True,
        ),
    ),
    table_deal_problem=_table_deal_problem,
    table_deal_parts=_table_deal_parts,
    table_deal=_table_deal,
)
