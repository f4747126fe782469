"""Banter (RULES.md, "Banter"; seed 002): each player upgrades their own Active 13, then five tricks.

How a seed becomes a deal (RULES.md "Set-up"), all from one ``Rng(seed)``:

1. Seat 0, then seat 1: the 47 cards other than the four 2s and the 3 of Hearts,
   in the canonical order (``engine.cards.standard_deck``: suits C D H S, each
   A 2 .. K), are shuffled; the Active 13 is ``2C 2D 2H 2S 3H`` followed by the
   first 8 of them, and is shuffled again to give the draw pile (top first). The
   other 39 stay, in their shuffled order, as the deck (top first).
2. When ``first_lead`` is ``seed``, ``below(2)`` names the first leader.
3. Every later shuffle is a discard pile becoming a draw pile: the pile is
   listed in the order its cards were discarded (first discarded first) and
   shuffled by ``Rng.shuffle``; the result is the new draw pile, top first. At
   the start of a round seat 0 draws (and reshuffles if it must) before seat 1.

An explicit deal is ``{"piles": [{"draw": [13 cards], "deck": [39 cards]}, {...}]}``,
one entry per seat, both lists top first; each seat's 52 cards must be exactly a
standard deck. RULES.md fixes only the sizes, so a deal may put any 13 cards in
the draw pile.

A deal may also list reshuffles (RULES.md "Determinism"): ``"reshuffles": {"0":
[[new draw pile, top first], ...], "1": [...]}`` gives, per seat, the draw pile
that seat's 1st, 2nd, ... reshuffle makes. Either seat may be left out; the
normalised deal lists both (an empty list for none). Each order must be exactly
the cards of the discard pile it replaces, which only play decides: a mismatch
raises ``DealError`` when that reshuffle comes. A listed reshuffle draws
nothing from the generator, so a seeded game and the same game from an
explicit deal listing its reshuffles play identically, once they have the same
first leader; reshuffles beyond the listed ones are shuffled from the seed as
above. A deal without the key normalises without it. With a deal given,
``first_lead=seed`` is the seed's first draw (no set-up shuffle comes before
it), so the seed's own game replayed from its deal (``PROFILE.table_deal``)
may need another seed: ``PROFILE.table_seed`` finds one.

Actions: ``SPEND 7H`` and ``STOP`` (upgrade phase), ``BIN 7H`` (after each SPEND),
``PLAY 7H`` (tricks). Exactly one seat acts at a time, and a seat is asked even
when it has a single choice, so every upgrade phase ends with one ``STOP``.
Legal actions follow the hand's order.

A hand is kept in the order its cards came into it: RULES.md "Round" discards
the cards left in hand in that order. Its owner sees that order: it is the
order of cards already drawn, and says nothing of what is left in the pile.

Observation keys (plain JSON data; the state's own tuples are shared, not copied):

- public: ``seat``, ``round`` (1-based), ``phase`` (``upgrade``, ``bin``,
  ``trick`` or ``over``), ``to_act``, ``leader`` (the round's lead),
  ``trick_leader``, ``led`` (the card led to the trick in progress, or None),
  ``scores``, ``round_points`` (tricks scored so far this round), and per seat
  ``hand_sizes``, ``draw_sizes``, ``deck_sizes``, ``discard_sizes`` (face-down
  piles: their heights are in plain view), ``spent`` (Hearts revealed this
  round, in order), ``last_spent`` (the previous round's ``spent``), ``bins``
  (every binned card, in order); ``tricks``: this round's finished tricks, each
  ``(trick leader, seat 0's card, seat 1's card, winner or None for a drawn
  trick)``; ``last_tricks``: the previous round's. Every seat acts in every
  round (each upgrade phase ends with both seats' ``STOP``), so the previous
  round's keys show it every Heart the opponent revealed and every card it
  played, even in a round that ended before it could look (a follower's
  spends in a round with no tricks). The last round's stay on view once the
  game is over.
- private, for the seat itself (None for a spectator): ``hand`` (in the order
  the cards came in), ``draw_pile`` and ``deck`` (their contents, sorted in
  the canonical order: RULES.md "Hidden information" hides the order of a deck
  or draw pile, not what is in it; the deck's contents follow from everything
  else anyway), ``discard`` (in the order discarded; the seat put them there)
  and ``bought`` (the card the last SPEND took, while it waits for its BIN).

The contents of the opponent's hand, draw pile, deck and discard pile are never
shown (only their sizes): cards left in a hand at the end of a round go to the
discard pile unseen.

``result(state).details``: ``rounds`` (rounds finished), ``race`` (both scores
after every round), ``points_per_round`` (per seat, one entry per round),
``play_on_rounds`` (rounds played because the scores were level at 40 or
more), ``first_lead``, ``capped`` (``max_rounds`` ended the game),
``upgrades`` (SPENDs per seat) and ``drawn_tricks``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import chain, count
from typing import Any, NoReturn

from engine.cards import check_multiset, parse_cards, standard_deck
from engine.errors import CardError, DealError, IllegalAction, OptionError, PlayerCountError, shown
from engine.games.profile import MATCH_POINTS, DealPart, Figure, LeagueProfile, Race, ResultJSON, Row, race_rows
from engine.options import Option, OptionSet
from engine.result import Result, ranks_from_keys
from engine.rng import Rng
from engine.state import GameState

NAME = "banter"
MIN_PLAYERS = 2
MAX_PLAYERS = 2
#: Every seat's decisions come from its player or bot.
DECISIONS = True
OPTIONS = OptionSet(
    Option(
        "first_lead",
        str,
        "seed",
        "who leads the first round: seed (drawn), 0 or 1",
        choices=("seed", "0", "1"),
        label="First lead",
        words="Who leads the first round.",
        choice_labels=("Drawn at random", "The first seat", "The second seat"),
    ),
    Option(
        "max_rounds",
        int,
        200,
        "rounds after which the higher score wins and level scores are a draw",
        minimum=1,
        # Five times the default: a round adds about 1 KB to the public view (docs/records.md, "Size bounds").
        maximum=1000,
        label="Round limit",
        words="After this many rounds the higher score wins; level scores are a draw.",
    ),
)

#: RULES.md "Winning": 40 points win.
TARGET = 40
HAND_SIZE = 5
ACTIVE_SIZE = 13
TRUMPS = "H"

UPGRADE = "upgrade"
BIN = "bin"
TRICK = "trick"
OVER = "over"

STOP = "STOP"
_SPEND_VERB = "SPEND"
_BIN_VERB = "BIN"
_PLAY_VERB = "PLAY"

#: RULES.md "Set-up": every Active 13 starts with these.
FIXED_ACTIVE = ("2C", "2D", "2H", "2S", "3H")
_CANONICAL = tuple(standard_deck())
_REST = tuple(card for card in _CANONICAL if card not in FIXED_ACTIVE)
_ORDER = {card: index for index, card in enumerate(_CANONICAL)}
#: RULES.md "Values": Ace is high.
_RANK_VALUE = {rank: value for value, rank in enumerate("23456789TJQKA", start=2)}
VALUE: dict[str, int] = {card: _RANK_VALUE[card[0]] for card in _CANONICAL}

_SPEND = {card: f"{_SPEND_VERB} {card}" for card in _CANONICAL if card[1] == TRUMPS}
_BIN = {card: f"{_BIN_VERB} {card}" for card in _CANONICAL}
_PLAY = {card: f"{_PLAY_VERB} {card}" for card in _CANONICAL}
#: Every well-formed action, parsed once: verb and card. SPEND of a non-Heart is
#: well formed (so its refusal can say why), it is just never legal.
_PARSED: dict[str, tuple[str, str]] = {
    STOP: (STOP, ""),
    **{f"{_SPEND_VERB} {card}": (_SPEND_VERB, card) for card in _CANONICAL},
    **{action: (_BIN_VERB, card) for card, action in _BIN.items()},
    **{action: (_PLAY_VERB, card) for card, action in _PLAY.items()},
}
_SEAT_TUPLES = ((0,), (1,))
_NO_ONE: tuple[int, ...] = ()
_SUIT_NAMES = {"C": "Club", "D": "Diamond", "H": "Heart", "S": "Spade"}

Pair = tuple[int, int]
SeatCards = tuple[tuple[str, ...], tuple[str, ...]]
Trick = tuple[int, str, str, int | None]


def canonical_sorted(cards: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """Cards in the canonical order: what a seat may know of a pile whose order is hidden."""
    return tuple(sorted(cards, key=_ORDER.__getitem__))


@dataclass
class BanterState(GameState):
    rng: Rng
    max_rounds: int
    first_lead: int
    #: True when the seed drew ``first_lead`` (``first_lead=seed``), False when the option fixed it.
    lead_drawn: bool
    #: Per seat, top first.
    draw: list[list[str]]
    #: Per seat, top first.
    deck: list[list[str]]
    #: Per seat, in the order discarded (the order a reshuffle starts from).
    discard: list[list[str]]
    #: Per seat, in the order the cards came into the hand.
    hands: list[list[str]]
    #: Per seat, this round's cards in the order played.
    played: list[list[str]]
    bins: SeatCards = ((), ())
    #: This round's Hearts spent, per seat, in order.
    spent: SeatCards = ((), ())
    #: The previous round's ``spent``.
    last_spent: SeatCards = ((), ())
    tricks: tuple[Trick, ...] = ()
    last_tricks: tuple[Trick, ...] = ()
    #: Per seat, the new draw piles an explicit deal lists for its reshuffles, in order.
    listed_reshuffles: tuple[tuple[tuple[str, ...], ...], ...] = ((), ())
    scores: Pair = (0, 0)
    round_points: Pair = (0, 0)
    round: int = 1
    leader: int = 0
    trick_leader: int = 0
    actor: int = 0
    phase: str = UPGRADE
    led: str | None = None
    bought: str | None = None
    over: bool = False
    winner: int | None = None
    capped: bool = False
    #: Both scores after every finished round.
    race: list[Pair] = field(default_factory=list)
    play_on_rounds: list[int] = field(default_factory=list)
    upgrades: list[int] = field(default_factory=lambda: [0, 0])
    reshuffles: list[int] = field(default_factory=lambda: [0, 0])
    #: Per seat, the draw pile each of its reshuffles made, in order, top first: what a transcript lists for
    #: them (``_table_deal``, ``_unlisted_reshuffle``). Known from the rest of the state only with the hands
    #: they fed, so kept; history, not position, so it takes no part in comparing.
    reshuffled: list[tuple[tuple[str, ...], ...]] = field(default_factory=lambda: [(), ()], compare=False)
    #: Per seat, the draw pile (the Active 13) and the deck as dealt, top first; the same in comparing.
    dealt_piles: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = field(default=(), compare=False)
    drawn_tricks: int = 0
    # Sorted views of the hidden-order piles, rebuilt only when a pile changes. They are
    # functions of the piles' contents, so they take no part in comparing states.
    draw_view: list[tuple[str, ...]] = field(default_factory=lambda: [(), ()], compare=False)
    deck_view: list[tuple[str, ...]] = field(default_factory=lambda: [(), ()], compare=False)
    #: The observation keys that change only with an upgrade, a bin or a new round, per viewer
    #: (seat 0, seat 1, spectator), built on first use. Whatever changes one of them resets
    #: this to ``_no_views()``: a trick then costs one dict copy per observation, not a rebuild.
    views: list[dict[str, Any] | None] = field(default_factory=lambda: [None, None, None], compare=False)


def _no_views() -> list[dict[str, Any] | None]:
    return [None, None, None]


# --- options and deals ---------------------------------------------------------------------------


def parse_options(raw: Mapping[str, object] | None, players: int = 2) -> dict[str, Any]:
    """Every option with its default; ``first_lead`` also takes 0 and 1 as JSON numbers."""
    _check_players(players)
    if raw is not None and not isinstance(raw, Mapping):
        raise OptionError("options", f"expected a mapping of option names to values, got {shown(raw)}")
    values = dict(raw or {})
    if "first_lead" in values:
        values["first_lead"] = _normalise_first_lead(values["first_lead"])
    return OPTIONS.parse(values)


def _normalise_first_lead(value: object) -> object:
    if isinstance(value, bool):
        raise OptionError("first_lead", f"expected seed, 0 or 1, got {value!r}")
    if isinstance(value, int):
        if value not in (0, 1):
            # Refused here: str() of an int past 4,300 digits raises ValueError instead of naming the option.
            raise OptionError("first_lead", f"{shown(value)} is not one of seed, 0, 1")
        return str(value)
    if isinstance(value, str):
        return value.strip().lower()
    return value


def _check_players(players: int) -> None:
    if players != 2:
        raise PlayerCountError(f"banter is played by exactly 2 players, not {players}")


_DEAL_SHAPE = (
    '{"piles": [{"draw": [13 cards], "deck": [39 cards]}, {"draw": [...], "deck": [...]}]}, optionally with'
    ' "reshuffles": {"0": [[new draw pile], ...], "1": [...]}'
)
_RESHUFFLES_SHAPE = '{"0": [[new draw pile, top first], ...], "1": [...]}'


def parse_deal(raw: object, options: Mapping[str, Any], players: int = 2) -> dict[str, Any]:
    """Each seat's draw pile and deck, top first; each seat's 52 cards exactly a standard deck.

    The optional ``reshuffles`` (see the module docstring) is checked here for its shape and
    cards; whether each order fits its discard pile is checked when that reshuffle comes.
    """
    _check_players(players)
    if not isinstance(raw, Mapping) or not {"piles"} <= set(raw) <= {"piles", "reshuffles"}:
        raise DealError(f"a banter deal is {_DEAL_SHAPE}")
    piles = raw["piles"]
    if not isinstance(piles, list) or len(piles) != 2:
        raise DealError("piles: expected a list of two entries, one per seat")
    deal: dict[str, Any] = {"piles": [_parse_seat_piles(entry, seat) for seat, entry in enumerate(piles)]}
    if "reshuffles" in raw:
        deal["reshuffles"] = _parse_reshuffles(raw["reshuffles"])
    return deal


def _parse_seat_piles(entry: object, seat: int) -> dict[str, list[str]]:
    if not isinstance(entry, Mapping) or set(entry) != {"draw", "deck"}:
        raise DealError(f'piles[{seat}]: expected {{"draw": [13 cards], "deck": [39 cards]}}')
    draw = parse_cards(_card_list(entry["draw"], f"seat {seat} draw"), count=ACTIVE_SIZE, what=f"seat {seat} draw")
    deck = parse_cards(_card_list(entry["deck"], f"seat {seat} deck"), count=39, what=f"seat {seat} deck")
    # RULES.md "Banter": each player plays with their own full 52-card deck.
    check_multiset(draw + deck, _CANONICAL, what=f"seat {seat}'s draw pile and deck")
    return {"draw": draw, "deck": deck}


def _parse_reshuffles(raw: object) -> dict[str, list[list[str]]]:
    """``{"0": [...], "1": [...]}``, both seats listed; seat keys may also be the numbers 0 and 1."""
    if not isinstance(raw, Mapping):
        raise DealError(f"reshuffles: expected {_RESHUFFLES_SHAPE}")
    listed: dict[str, list[list[str]]] = {"0": [], "1": []}
    seen: set[str] = set()
    for key, orders in raw.items():
        if isinstance(key, bool) or not isinstance(key, int | str) or str(key) not in listed:
            raise DealError(f"reshuffles: {key!r} is not a seat (expected the keys '0' and '1')")
        seat = str(key)
        if seat in seen:
            raise DealError(f"reshuffles: seat {seat} is listed twice")
        seen.add(seat)
        if not isinstance(orders, list):
            raise DealError(f"reshuffles[{seat!r}]: expected a list of draw piles, one per reshuffle")
        listed[seat] = [
            _parse_reshuffle(order, f"seat {seat}'s reshuffle {number}") for number, order in enumerate(orders, start=1)
        ]
    return listed


def _parse_reshuffle(order: object, what: str) -> list[str]:
    """One listed draw pile: distinct cards of one standard deck (RULES.md "Banter": a seat's own deck)."""
    if not isinstance(order, str | list):
        raise DealError(f"{what}: expected a list of cards")
    try:
        cards = parse_cards(order, what=what)
    except CardError as exc:
        raise DealError(str(exc)) from None
    if not cards:
        raise DealError(f"{what}: expected a list of cards, got none")
    for card in cards:
        if card not in _ORDER:
            raise DealError(f"{what}: {card} is not a card of a standard deck")
    if len(set(cards)) != len(cards):
        twice = canonical_sorted([card for card in _ORDER if cards.count(card) > 1])
        raise DealError(f"{what}: a seat has one of each card, but {' '.join(twice)} is listed twice")
    return cards


def _card_list(value: object, what: str) -> list[str] | str:
    if isinstance(value, str | list):
        return value
    raise DealError(f"{what}: expected a list of cards")


# --- set-up --------------------------------------------------------------------------------------


def new_state(
    options: Mapping[str, Any], players: int = 2, seed: int = 0, deal: Mapping[str, Any] | None = None
) -> BanterState:
    _check_players(players)
    rng = Rng(seed)
    listed: tuple[tuple[tuple[str, ...], ...], ...] = ((), ())
    if deal is None:
        # RULES.md "Set-up": seat 0 is set up first, then seat 1.
        piles = [_seeded_piles(rng) for _ in range(2)]
    else:
        piles = [(list(entry["draw"]), list(entry["deck"])) for entry in deal["piles"]]
        reshuffles = deal.get("reshuffles", {})
        listed = tuple(tuple(tuple(order) for order in reshuffles.get(seat, ())) for seat in ("0", "1"))
    # RULES.md "Set-up": the seed's first leader is drawn after both seats are set up.
    first_lead = rng.below(2) if options["first_lead"] == "seed" else int(options["first_lead"])
    state = BanterState(
        rng=rng,
        max_rounds=int(options["max_rounds"]),
        first_lead=first_lead,
        lead_drawn=options["first_lead"] == "seed",
        draw=[piles[0][0], piles[1][0]],
        deck=[piles[0][1], piles[1][1]],
        discard=[[], []],
        hands=[[], []],
        played=[[], []],
        leader=first_lead,
        trick_leader=first_lead,
        actor=first_lead,
        listed_reshuffles=listed,
        dealt_piles=tuple((tuple(draw), tuple(deck)) for draw, deck in piles),
    )
    for seat in (0, 1):
        state.deck_view[seat] = canonical_sorted(state.deck[seat])
        _draw_hand(state, seat)
    return state


def _seeded_piles(rng: Rng) -> tuple[list[str], list[str]]:
    """One seat's draw pile and deck (RULES.md "Set-up"; the steps are in the module docstring)."""
    rest = list(_REST)
    rng.shuffle(rest)
    active = [*FIXED_ACTIVE, *rest[:8]]
    rng.shuffle(active)
    return active, rest[8:]


def _draw_hand(state: BanterState, seat: int) -> None:
    """RULES.md "Round" 1: draw five; when the pile runs short, reshuffle the discard pile for the rest."""
    pile = state.draw[seat]
    if len(pile) >= HAND_SIZE:
        hand = pile[:HAND_SIZE]
        del pile[:HAND_SIZE]
    else:
        hand = pile
        # RULES.md "Set-up": a discard pile is shuffled in the order its cards were discarded.
        pile = state.discard[seat]
        listed = state.listed_reshuffles[seat]
        number = state.reshuffles[seat]
        if number < len(listed):
            # RULES.md "Determinism": a reshuffle the deal lists draws nothing from the generator.
            pile = _listed_reshuffle(listed[number], pile, seat, number + 1)
        else:
            state.rng.shuffle(pile)
        state.discard[seat] = []
        state.reshuffles[seat] = number + 1
        state.reshuffled[seat] += (tuple(pile),)
        missing = HAND_SIZE - len(hand)
        hand += pile[:missing]
        del pile[:missing]
        state.draw[seat] = pile
    state.hands[seat] = hand
    state.draw_view[seat] = canonical_sorted(pile)
    state.views = _no_views()


def _listed_reshuffle(order: tuple[str, ...], discard: list[str], seat: int, number: int) -> list[str]:
    """The deal's draw pile for this reshuffle: exactly the discard pile's cards, or the deal is wrong."""
    if sorted(order) != sorted(discard):
        raise DealError(
            f"seat {seat}'s reshuffle {number}: the deal lists {' '.join(order)}, which is not an order of"
            f" the discard pile being reshuffled ({' '.join(canonical_sorted(discard))})"
        )
    return list(order)


def extra_seats(raw_options: Mapping[str, object]) -> int:
    """Seats beyond the people: none, the engine plays no seat of its own."""
    return 0


def auto_seats(options: Mapping[str, Any], players: int = 2) -> frozenset[int]:
    return frozenset()


def auto_action(state: BanterState, seat: int) -> str:
    raise IllegalAction(seat, None, "banter has no engine-played seat")


# --- what a seat sees and may do -----------------------------------------------------------------


def to_act(state: BanterState) -> tuple[int, ...]:
    return _NO_ONE if state.over else _SEAT_TUPLES[state.actor]


def legal_actions(state: BanterState, seat: int) -> list[str]:
    if state.over or seat != state.actor:
        return []
    hand = state.hands[seat]
    phase = state.phase
    if phase == TRICK:
        led = state.led
        if led is not None:
            suit = led[1]
            following = [_PLAY[card] for card in hand if card[1] == suit]
            if following:
                return following
        return [_PLAY[card] for card in hand]
    if phase == UPGRADE:
        if not state.deck[seat]:
            return [STOP]
        actions = [_SPEND[card] for card in hand if card[1] == TRUMPS]
        actions.append(STOP)
        return actions
    return [_BIN[card] for card in hand]


def all_actions(options: Mapping[str, Any], players: int = 2) -> list[str]:
    """``STOP``, then ``SPEND`` each Heart, ``BIN`` each card and ``PLAY`` each card, cards in the canonical
    order (suits C D H S, each A 2 .. K): 1 + 13 + 52 + 52 = 118 actions."""
    return [STOP, *_SPEND.values(), *_BIN.values(), *_PLAY.values()]


def observation(state: BanterState, seat: int | None) -> dict[str, Any]:
    viewer = 2 if seat is None else seat
    base = state.views[viewer]
    if base is None:
        base = state.views[viewer] = _round_view(state, seat)
    view = base.copy()
    hands = state.hands
    view["to_act"] = None if state.over else state.actor
    view["trick_leader"] = state.trick_leader
    view["led"] = state.led
    view["round_points"] = state.round_points
    view["hand_sizes"] = (len(hands[0]), len(hands[1]))
    view["tricks"] = state.tricks
    if seat is not None:
        view["hand"] = tuple(hands[seat])
    return view


def _round_view(state: BanterState, seat: int | None) -> dict[str, Any]:
    """The keys that only an upgrade, a bin or a new round change (see ``BanterState.views``)."""
    draw, deck, discard = state.draw, state.deck, state.discard
    return {
        "seat": seat,
        "round": state.round,
        "phase": state.phase,
        "leader": state.leader,
        "scores": state.scores,
        "draw_sizes": (len(draw[0]), len(draw[1])),
        "deck_sizes": (len(deck[0]), len(deck[1])),
        "discard_sizes": (len(discard[0]), len(discard[1])),
        "spent": state.spent,
        "last_spent": state.last_spent,
        "bins": state.bins,
        "last_tricks": state.last_tricks,
        "hand": None,
        "draw_pile": None if seat is None else state.draw_view[seat],
        "deck": None if seat is None else state.deck_view[seat],
        "discard": None if seat is None else tuple(discard[seat]),
        "bought": state.bought if seat == state.actor else None,
    }


# --- playing -------------------------------------------------------------------------------------


def apply(state: BanterState, actions: Mapping[int, str]) -> None:
    seat = state.actor
    if len(actions) != 1 or seat not in actions or state.over:
        _raise_for_wrong_seats(state, actions)
    action = actions[seat]
    try:
        verb, card = _PARSED[action]
    except (KeyError, TypeError):
        raise IllegalAction(seat, action, f"not a banter action: {_expected(state)}") from None
    phase = state.phase
    if phase == TRICK:
        _play(state, seat, action, verb, card)
    elif phase == UPGRADE:
        _upgrade(state, seat, action, verb, card)
    else:
        _bin(state, seat, action, verb, card)


def _raise_for_wrong_seats(state: BanterState, actions: Mapping[int, str]) -> NoReturn:
    """A step must hold exactly the acting seat's action; name the seat at fault."""
    seat = state.actor
    if state.over:
        for other, action in actions.items():
            raise IllegalAction(other, action, "the game is over")
        raise IllegalAction(seat, None, "the game is over")
    for other, action in actions.items():
        if other != seat:
            raise IllegalAction(other, action, f"it is seat {seat}'s turn, not seat {other}'s")
    raise IllegalAction(seat, None, f"seat {seat} must act: {_expected(state)}")


def _expected(state: BanterState) -> str:
    if state.phase == UPGRADE:
        return "expected SPEND <heart> or STOP"
    if state.phase == BIN:
        return "expected BIN <card from your hand>"
    return "expected PLAY <card from your hand>"


def _upgrade(state: BanterState, seat: int, action: str, verb: str, card: str) -> None:
    """RULES.md "Round" 2: SPEND a Heart for the top card of the deck, or STOP."""
    if verb == STOP:
        _stop_upgrading(state, seat)
        return
    if verb != _SPEND_VERB:
        raise IllegalAction(seat, action, "upgrades come first: SPEND a Heart or STOP (BIN follows a SPEND)")
    hand = state.hands[seat]
    if card[1] != TRUMPS:
        raise IllegalAction(seat, action, "only a Heart can be spent")
    if card not in hand:
        raise IllegalAction(seat, action, f"{card} is not in your hand")
    deck = state.deck[seat]
    if not deck:
        raise IllegalAction(seat, action, "your deck is empty: there is no card to buy")
    hand.remove(card)
    # RULES.md "Round" 2: the spent Heart is revealed and goes to the discard pile at once.
    state.discard[seat].append(card)
    state.spent = _with_seat(state.spent, seat, state.spent[seat] + (card,))
    bought = deck.pop(0)
    hand.append(bought)
    remaining = list(state.deck_view[seat])
    remaining.remove(bought)
    state.deck_view[seat] = tuple(remaining)
    state.bought = bought
    state.upgrades[seat] += 1
    state.phase = BIN
    state.views = _no_views()


def _bin(state: BanterState, seat: int, action: str, verb: str, card: str) -> None:
    """RULES.md "Round" 2: after a SPEND, any hand card (the new one included) leaves the game."""
    if verb != _BIN_VERB:
        raise IllegalAction(seat, action, f"after a SPEND you must BIN a card of your hand (you bought {state.bought})")
    hand = state.hands[seat]
    if card not in hand:
        raise IllegalAction(seat, action, f"{card} is not in your hand")
    hand.remove(card)
    state.bins = _with_seat(state.bins, seat, state.bins[seat] + (card,))
    state.bought = None
    state.phase = UPGRADE
    state.views = _no_views()


def _stop_upgrading(state: BanterState, seat: int) -> None:
    # RULES.md "Round" 2: the leader upgrades first, then the follower; then the leader leads.
    if seat == state.leader:
        state.actor = 1 - seat
        return
    state.phase = TRICK
    state.trick_leader = state.actor = state.leader
    state.views = _no_views()
    # RULES.md "Round" 3: tricks are played only while both players hold cards.
    if not (state.hands[0] and state.hands[1]):
        _end_round(state)


def _play(state: BanterState, seat: int, action: str, verb: str, card: str) -> None:
    """RULES.md "Round" 3-4: lead, or follow suit when able; the trick is settled on the second card."""
    if verb != _PLAY_VERB:
        raise IllegalAction(seat, action, f"the upgrades are over: PLAY a card to the trick ({_expected(state)})")
    hand = state.hands[seat]
    if card not in hand:
        raise IllegalAction(seat, action, f"{card} is not in your hand")
    led = state.led
    if led is not None and card[1] != led[1]:
        suit = led[1]
        if any(c[1] == suit for c in hand):
            raise IllegalAction(seat, action, f"you must follow suit: {led} was led and you hold a {_SUIT_NAMES[suit]}")
    hand.remove(card)
    state.played[seat].append(card)
    if led is None:
        state.led = card
        state.actor = 1 - seat
        return
    _settle_trick(state, led, card)


def trick_winner(leader: int, led: str, followed: str) -> int | None:
    """RULES.md "Round" 4: the winning seat of a trick, or None when the cards are identical."""
    if followed == led:
        return None
    if followed[1] == led[1]:
        return leader if VALUE[led] > VALUE[followed] else 1 - leader
    # Off suit: only a Heart played on another suit beats the card led.
    return 1 - leader if followed[1] == TRUMPS else leader


def _settle_trick(state: BanterState, led: str, followed: str) -> None:
    leader = state.trick_leader
    winner = trick_winner(leader, led, followed)
    points = state.round_points
    if winner is None:
        # RULES.md "Round" 3: a drawn trick scores for both, and the same leader leads again.
        state.round_points = (points[0] + 1, points[1] + 1)
        state.drawn_tricks += 1
        next_leader = leader
    else:
        state.round_points = (points[0] + 1, points[1]) if winner == 0 else (points[0], points[1] + 1)
        next_leader = winner
    cards = (led, followed) if leader == 0 else (followed, led)
    state.tricks = (*state.tricks, (leader, cards[0], cards[1], winner))
    state.led = None
    state.trick_leader = state.actor = next_leader
    # RULES.md "Round" 3: tricks go on only while both players hold cards.
    if not (state.hands[0] and state.hands[1]):
        _end_round(state)


def _end_round(state: BanterState) -> None:
    hands = state.hands
    # RULES.md "Round" 3: whoever still holds cards scores one trick per card left.
    points = (state.round_points[0] + len(hands[0]), state.round_points[1] + len(hands[1]))
    before = state.scores
    state.scores = scores = (before[0] + points[0], before[1] + points[1])
    for seat in (0, 1):
        # RULES.md "Round" 4: played cards in the order played, then the hand in the order it came in.
        discard = state.discard[seat]
        discard += state.played[seat]
        discard += hands[seat]
        state.played[seat] = []
        hands[seat] = []
    if before[0] == before[1] >= TARGET:
        state.play_on_rounds.append(state.round)
    state.race.append(scores)
    state.last_tricks = state.tricks
    state.last_spent = state.spent
    state.views = _no_views()
    _decide(state, scores)
    if state.over:
        state.phase = OVER
        state.led = state.bought = None
        state.tricks = ()
        state.spent = ((), ())
        state.round_points = (0, 0)
        return
    _start_round(state)


def _decide(state: BanterState, scores: Pair) -> None:
    """RULES.md "Winning": 40 or more wins, the higher score when both; level scores play on."""
    if max(scores) >= TARGET and scores[0] != scores[1]:
        state.over = True
        state.winner = 0 if scores[0] > scores[1] else 1
    elif state.round >= state.max_rounds:
        state.over = state.capped = True
        state.winner = None if scores[0] == scores[1] else (0 if scores[0] > scores[1] else 1)


def _start_round(state: BanterState) -> None:
    state.round += 1
    # RULES.md "Set-up": the lead alternates every round.
    state.leader = state.trick_leader = state.actor = 1 - state.leader
    state.phase = UPGRADE
    state.led = None
    state.tricks = ()
    state.spent = ((), ())
    state.round_points = (0, 0)
    for seat in (0, 1):
        _draw_hand(state, seat)


def _with_seat(pair: SeatCards, seat: int, value: tuple[str, ...]) -> SeatCards:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


# --- the outcome ---------------------------------------------------------------------------------


def is_over(state: BanterState) -> bool:
    return state.over


def result(state: BanterState) -> Result:
    """Ranks by points: the winner always holds the higher score, so a running game ranks the same way."""
    scores = state.scores
    return Result(
        ranks=ranks_from_keys(scores),
        scores=scores,
        details={
            "rounds": len(state.race),
            "race": [list(pair) for pair in state.race],
            "points_per_round": [_points_per_round(state.race, seat) for seat in (0, 1)],
            "play_on_rounds": list(state.play_on_rounds),
            "first_lead": state.first_lead,
            "capped": state.capped,
            "upgrades": list(state.upgrades),
            "drawn_tricks": state.drawn_tricks,
        },
    )


def _points_per_round(race: list[Pair], seat: int) -> list[int]:
    totals = [pair[seat] for pair in race]
    return [total - previous for total, previous in zip(totals, [0, *totals], strict=False)]


def full_deck(options: Mapping[str, Any], players: int = 2) -> list[str]:
    """Both players' own decks: 104 cards, every card twice."""
    return [*_CANONICAL, *_CANONICAL]


def cards_in_play(state: BanterState) -> list[str]:
    cards: list[str] = []
    for seat in (0, 1):
        for pile in (state.draw, state.deck, state.discard, state.hands, state.played, state.bins):
            cards += pile[seat]
    return cards


def _race(result: ResultJSON) -> list[Row]:
    return race_rows(result.get("race", []), result.get("play_on_rounds", []))


def _unlisted_reshuffles(result: ResultJSON, state: BanterState) -> str:
    for seat in (0, 1):
        made, listed = state.reshuffles[seat], len(state.listed_reshuffles[seat])
        if made > listed:
            return (
                f"deal: seat {seat} reshuffled its discard pile {made} times but the deal lists {listed}: "
                "list every reshuffle's new draw pile"
            )
    return ""


def _table_deal_parts(options: Mapping[str, Any], players: int) -> tuple[DealPart, ...]:
    return tuple(
        part
        for seat in (0, 1)
        for part in (
            DealPart(("piles", seat, "draw"), "draw pile (the Active 13), top card first", ACTIVE_SIZE, seat),
            DealPart(("piles", seat, "deck"), "deck (the other 39 cards), top card first", 39, seat),
        )
    )


def _unlisted_reshuffle(state: BanterState) -> DealPart | None:
    """A discard pile the last step shuffled from the seed (RULES.md "Round" 1): at a table, by hand."""
    for seat in (0, 1):
        listed = len(state.listed_reshuffles[seat])
        if state.reshuffles[seat] > listed:
            pile = state.reshuffled[seat][-1]
            return DealPart(
                ("reshuffles", str(seat), listed),
                f"discard pile shuffled into a new draw pile (reshuffle {listed + 1}), top card first",
                len(pile),
                seat,
                canonical_sorted(pile),
            )
    return None


def _table_deal(state: BanterState) -> dict[str, Any]:
    """Both seats' piles as dealt and every reshuffle so far, in the form ``parse_deal`` normalises to."""
    return {
        "piles": [{"draw": list(draw), "deck": list(deck)} for draw, deck in state.dealt_piles],
        "reshuffles": {str(seat): [list(pile) for pile in state.reshuffled[seat]] for seat in (0, 1)},
    }


def _table_seed(state: BanterState, seed: int) -> int:
    """A seed whose first draw names the same first leader: with a deal given, ``first_lead=seed`` is drawn
    before anything else, while the seed's own deal draws it after both seats' shuffles (module docstring).
    Nothing else of a game whose deal lists every reshuffle comes from the seed. The nearest such seed at or
    below ``seed`` (a fair draw finds one in a try or two), else above it."""
    if not state.lead_drawn:
        return seed
    candidates = chain(range(seed, -1, -1), count(seed + 1))
    return next(number for number in candidates if Rng(number).below(2) == state.first_lead)


PROFILE = LeagueProfile(
    label="Banter",
    order=(
        MATCH_POINTS,
        Figure("trick_points", "Trick points", of_game=lambda result, seat: int(result["scores"][seat])),
    ),
    breakdown=Race(target=TARGET, rows=_race),
    unlisted_shuffles=_unlisted_reshuffles,
    table_deal_parts=_table_deal_parts,
    unlisted_deal_part=_unlisted_reshuffle,
    table_deal=_table_deal,
    table_seed=_table_seed,
)
