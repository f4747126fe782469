"""1923 (RULES.md, "1923"; seeds 000 and 001): games, sets and a match.

One state holds a whole match (or, with ``mode=set``, a single set). The only
decisions are the DRAW/LOCK ticks of a normal game; everything in between
(showdowns, tie-breaks, war games, the end of a set, the next set's shuffle)
is resolved inside ``apply`` and ``new_state``, so ``to_act`` names seats only
when they have a choice to make.

Cards stay two-character strings: observations and records use them as they
are, and the few sums a showdown needs go through precomputed tables.

Deals. Each set's deck is ``decks`` canonical 52-card decks (suits C D H S,
each A..K, deck after deck) shuffled by the state's :class:`~engine.rng.Rng`;
only sets that an explicit deal does not list draw on the generator, one
shuffle per set, in set order. An explicit deal is
``{"sets": [[set 1's deck, top first], [set 2's deck], ...]}``.

Termination. A set in which every game's cards go dead scores nobody, and
losers can lose points, so nothing forces a match to reach ``target_points``.
The ``max_sets`` option ends a match after that many sets: the highest total
wins, then the most cards won over the match, and the result records
``capped``. It also bounds how large a record and its public view can grow
(docs/records.md, "Size bounds"): a match deals at most ``MATCH_DECKS`` 52-card
decks, all its sets together, so ``decks * max_sets`` may not pass it, and
``max_sets`` defaults to as many sets as that allows (300 with one deck a set,
75 with four: far beyond any real match, whose target of 100 points takes a few
sets, and 1000 points under 70).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from engine.cards import RANKS, STANDARD_SUITS, build_deck, check_multiset, parse_cards
from engine.errors import DealError, IllegalAction, OptionError, PlayerCountError
from engine.games.profile import MATCH_POINTS, Column, DealPart, Figure, LeagueProfile, ResultJSON, Row, SetTable
from engine.options import Option, OptionSet
from engine.result import Result, ranks_from_keys
from engine.rng import Rng
from engine.state import GameState

NAME = "1923"
MIN_PLAYERS = 2
#: RULES.md sets no maximum; twelve seats (four decks a set by default) is a generous table.
MAX_PLAYERS = 12
#: Every seat's decisions come from its player or bot.
DECISIONS = True
OPTIONS = OptionSet(
    Option(
        "mode",
        str,
        "match",
        "match: sets until a player reaches target_points; set: one set",
        ("match", "set"),
        label="Length of a game",
        words="A match of sets until someone reaches the match target, or a single set.",
        choice_labels=("A match", "One set"),
    ),
    Option(
        "decks",
        int,
        None,
        "52-card decks per set (default ceil(players/3))",
        minimum=1,
        maximum=24,
        nullable=True,
        label="Decks per set",
        words="How many 52-card decks each set uses. Leave empty for one deck for every three players.",
    ),
    Option(
        "tiebreak_exhausted",
        str,
        "war",
        "when tie-break draws run out of cards: war compares hand cards right to left; dead kills the cards",
        ("war", "dead"),
        label="When a tie-break runs out of cards",
        words="What settles a tie when the tie-break draws have used up the cards.",
        choice_labels=("Compare the hand cards, right to left", "The tied cards are dead"),
    ),
    Option(
        "losers_score_cards",
        bool,
        False,
        "set losers also score the cards they won",
        label="Losers score their cards too",
        words="The losers of a set also score the cards they won.",
    ),
    # No size bound needed: max_sets ends the match whatever the target.
    Option(
        "target_points",
        int,
        100,
        "match points that end a match",
        minimum=1,
        maximum=1_000_000,
        label="Match target",
        words="The match points that end a match.",
    ),
    Option(
        "max_sets",
        int,
        None,
        "sets after which a match ends at once (keeps every match finite; decks * max_sets at most 300; "
        "default 300 // decks)",
        minimum=1,
        maximum=300,
        nullable=True,
        label="Set limit",
        words="A match ends at once after this many sets. Leave empty for 300 divided by the decks per set.",
    ),
)
#: The most 52-card decks one match deals, all its sets together (docs/records.md, "Size bounds"):
#: 15,600 cards keep a record under 0.5 MB and its public view under 2 MB whatever the seats do.
MATCH_DECKS = 300

DRAW = "DRAW"
LOCK = "LOCK"

#: Blackjack values with the Ace as 1 (RULES.md, "Common: Values"); the Ace's 11 is added per hand.
_LOW_RANK = {rank: min(index + 1, 10) for index, rank in enumerate(RANKS)}
_LOW = {rank + suit: value for rank, value in _LOW_RANK.items() for suit in STANDARD_SUITS}
#: The value a tie-break draw, a war card or the right-to-left comparison uses: Ace 11.
_HIGH = {card: 11 if card[0] == "A" else value for card, value in _LOW.items()}

_IN_RANGE_LOW = 19
_IN_RANGE_HIGH = 23


def rank_key(value: int) -> int:
    """Larger ranks better (RULES.md, "Hand value: Ranking").

    Inside 19..23 the key is the value itself; outside it is minus the
    distance to the range, so 17 and 25 share the key -2.
    """
    if value < _IN_RANGE_LOW:
        return value - _IN_RANGE_LOW
    if value > _IN_RANGE_HIGH:
        return _IN_RANGE_HIGH - value
    return value


def hand_value(cards: Sequence[str]) -> int:
    """The value that ranks best, the higher one when two rank equally (``A 5 K`` is 26)."""
    low = 0
    aces = 0
    for card in cards:
        low += _LOW[card]
        if card[0] == "A":
            aces += 1
    return best_value(low, aces)


def best_value(low: int, aces: int) -> int:
    """The hand value of cards adding up to ``low`` with every Ace as 1, ``aces`` of them Aces.

    Each Ace may add 10 (RULES.md, "Hand value"): the value that ranks best is
    used, the higher one when two rank equally.
    """
    best, best_key = low, rank_key(low)
    for extra in range(1, aces + 1):
        value = low + 10 * extra
        key = rank_key(value)
        # ">=" because the values rise: on an equal rank the later, higher value is the one used.
        if key >= best_key:
            best, best_key = value, key
    return best


def card_high_value(card: str) -> int:
    """A card's blackjack value with the Ace as 11."""
    return _HIGH[card]


@dataclass
class Nineteen23State(GameState):
    players: int
    decks: int
    single_set: bool
    tiebreak_dead: bool
    losers_score_cards: bool
    target_points: int
    max_sets: int
    #: The sets an explicit deal fixes, top card first; later sets are shuffled from ``rng``.
    listed_sets: tuple[tuple[str, ...], ...]
    rng: Rng
    set_number: int = 0
    #: The set's cards in deal order; ``top`` is the index of the next card to deal.
    deck: tuple[str, ...] = ()
    top: int = 0
    #: Every card shown to all so far in the set (showdowns, tie-break draws, war cards), in order.
    revealed: tuple[str, ...] = ()
    won: list[list[str]] = field(default_factory=list)
    aces_won: list[int] = field(default_factory=list)
    dead: list[str] = field(default_factory=list)
    #: Games played over the whole match: the dealer moves one seat on each game, across sets.
    games_played: int = 0
    set_games: int = 0
    #: The current game's seat order: the seat after the dealer first, the dealer last.
    priority: tuple[int, ...] = ()
    #: Each hand right to left: the right card, then every left card, the last one unknown to its owner.
    hands: list[list[str]] = field(default_factory=list)
    locked: list[bool] = field(default_factory=list)
    acting: tuple[int, ...] = ()
    #: What the last game showed everyone; built once per game and shared, never mutated.
    last_game: dict[str, Any] | None = None
    points: list[int] = field(default_factory=list)
    match_cards: list[int] = field(default_factory=list)
    set_table: list[dict[str, Any]] = field(default_factory=list)
    over: bool = False
    match_winners: tuple[int, ...] = ()
    capped: bool = False
    #: Every set's deck so far, set 1 first, listed or shuffled from the seed: what a transcript lists
    #: (``_table_deal``). History, not position, so it takes no part in comparing states.
    dealt_sets: tuple[tuple[str, ...], ...] = field(default=(), compare=False)
    #: The spectator's view of this step, built on first use; every change to the state drops it.
    public_view: dict[str, Any] | None = field(default=None, compare=False, repr=False)
    #: The part of it that only changes between games: dropped when a game is dealt or the match ends.
    game_view: dict[str, Any] | None = field(default=None, compare=False, repr=False)

    def cards(self) -> list[str]:
        """The current set's cards wherever they are, for conservation checks."""
        cards = list(self.deck[self.top :])
        for hand in self.hands:
            cards += hand
        for pile in self.won:
            cards += pile
        cards += self.dead
        return cards


# --- options and deals -------------------------------------------------------------------------


def parse_options(raw: Mapping[str, object] | None, players: int = 2) -> dict[str, Any]:
    _check_players(players)
    options = OPTIONS.parse(raw)
    if options["decks"] is None:
        options["decks"] = default_decks(players)
    decks = options["decks"]
    if options["max_sets"] is None:
        options["max_sets"] = MATCH_DECKS // decks
    elif decks * options["max_sets"] > MATCH_DECKS:
        raise OptionError(
            "max_sets",
            f"{options['max_sets']} sets of {decks} decks would deal more than the {MATCH_DECKS} decks a match "
            f"may deal: at most {MATCH_DECKS // decks} sets with {decks} decks a set",
        )
    return options


def default_decks(players: int) -> int:
    """RULES.md, "1923: Deck": ceil(players / 3)."""
    return -(-players // 3)


def _check_players(players: int) -> None:
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise PlayerCountError(f"1923 is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}")


def parse_deal(raw: object, options: Mapping[str, Any], players: int = 2) -> dict[str, Any]:
    """``{"sets": [[set 1's deck, top first], ...]}``: each set exactly ``decks`` full decks."""
    _check_players(players)
    if not isinstance(raw, Mapping) or set(raw) != {"sets"}:
        raise DealError("a 1923 deal is {\"sets\": [[set 1's cards, top first], [set 2's cards], ...]}")
    sets = raw["sets"]
    if not isinstance(sets, list) or not sets:
        raise DealError("sets: expected a non-empty list of decks, one per set")
    if options["mode"] == "set" and len(sets) > 1:
        raise DealError(f"sets: mode=set plays one set, but the deal lists {len(sets)}")
    full = _full_set_deck(int(options["decks"]))
    parsed = []
    for index, deck in enumerate(sets, start=1):
        what = f"set {index}"
        if not isinstance(deck, list | str):
            raise DealError(f"{what}: expected a list of cards")
        cards = parse_cards(deck, count=len(full), what=what)
        check_multiset(cards, full, what=what)
        parsed.append(cards)
    return {"sets": parsed}


def _full_set_deck(decks: int) -> list[str]:
    return build_deck(STANDARD_SUITS, RANKS, copies=decks)


def full_deck(options: Mapping[str, Any], players: int = 2) -> list[str]:
    decks = options.get("decks")
    return _full_set_deck(default_decks(players) if decks is None else int(decks))


def cards_in_play(state: Nineteen23State) -> list[str]:
    return state.cards()


# --- the start ---------------------------------------------------------------------------------


def new_state(
    options: Mapping[str, Any], players: int = 2, seed: int = 0, deal: Mapping[str, Any] | None = None
) -> Nineteen23State:
    _check_players(players)
    decks = options.get("decks")
    state = Nineteen23State(
        players=players,
        decks=default_decks(players) if decks is None else int(decks),
        single_set=options["mode"] == "set",
        tiebreak_dead=options["tiebreak_exhausted"] == "dead",
        losers_score_cards=bool(options["losers_score_cards"]),
        target_points=int(options["target_points"]),
        max_sets=int(options["max_sets"]),
        listed_sets=tuple(tuple(s) for s in deal["sets"]) if deal is not None else (),
        rng=Rng(seed),
        points=[0] * players,
        match_cards=[0] * players,
    )
    _start_set(state)
    _advance(state)
    return state


def extra_seats(raw_options: Mapping[str, object]) -> int:
    """Seats beyond the people: none, the engine plays no seat of its own."""
    return 0


def auto_seats(options: Mapping[str, Any], players: int = 2) -> frozenset[int]:
    return frozenset()


def auto_action(state: Nineteen23State, seat: int) -> str:
    raise IllegalAction(seat, None, "1923 has no engine-played seat")


def priority_order(players: int, games_played: int) -> tuple[int, ...]:
    """RULES.md, "Seat priority": the first dealer is the last seat and moves on one seat each game."""
    first = games_played % players
    return tuple((first + i) % players for i in range(players))


def _start_set(state: Nineteen23State) -> None:
    """RULES.md, "Sets and decks": every card, freshly shuffled (or as the deal lists it)."""
    index = state.set_number
    state.set_number += 1
    if index < len(state.listed_sets):
        state.deck = state.listed_sets[index]
    else:
        deck = _full_set_deck(state.decks)
        state.rng.shuffle(deck)
        state.deck = tuple(deck)
    state.dealt_sets += (state.deck,)
    players = state.players
    state.top = 0
    state.revealed = ()
    state.won = [[] for _ in range(players)]
    state.aces_won = [0] * players
    state.dead = []
    state.set_games = 0
    state.hands = [[] for _ in range(players)]
    state.locked = [True] * players
    state.acting = ()


def _advance(state: Nineteen23State) -> None:
    """Play everything that needs no decision, up to the next DRAW/LOCK tick or the end.

    RULES.md, "Short deck": the cards left before a game choose its kind.
    """
    players = state.players
    while not state.over:
        remaining = len(state.deck) - state.top
        if remaining >= 2 * players:
            _deal_normal_game(state)
            return
        if remaining >= players:
            _play_war_game(state)
            continue
        _end_set(state)


def _deal_normal_game(state: Nineteen23State) -> None:
    """RULES.md, "A game": every right card in priority order, then every left card."""
    players = state.players
    order = priority_order(players, state.games_played)
    deck, top = state.deck, state.top
    hands: list[list[str]] = [[] for _ in range(players)]
    for offset, seat in enumerate(order):
        hands[seat] = [deck[top + offset], deck[top + players + offset]]
    state.top = top + 2 * players
    state.priority = order
    state.hands = hands
    state.locked = [False] * players
    state.acting = tuple(range(players))
    state.game_view = None


# --- decisions ---------------------------------------------------------------------------------


def to_act(state: Nineteen23State) -> tuple[int, ...]:
    return state.acting


def legal_actions(state: Nineteen23State, seat: int) -> list[str]:
    if seat not in state.acting:
        return []
    # RULES.md, "1923": DRAW is legal only while the deck holds a card.
    return [DRAW, LOCK] if state.top < len(state.deck) else [LOCK]


def all_actions(options: Mapping[str, Any], players: int = 2) -> list[str]:
    """DRAW, then LOCK: a tick's only choices, whatever the ruleset."""
    return [DRAW, LOCK]


def apply(state: Nineteen23State, actions: Mapping[int, str]) -> None:
    """One tick: every unlocked seat's DRAW or LOCK, DRAWs served in priority order."""
    _check_tick(state, actions)
    if not state.acting:
        return
    state.public_view = None
    deck = state.deck
    hands, locked = state.hands, state.locked
    for seat in state.priority:
        if locked[seat]:
            continue
        if actions[seat] == LOCK:
            locked[seat] = True
        elif state.top < len(deck):
            # The unknown left card is now known to its owner; a new unknown one goes on its left.
            hands[seat].append(deck[state.top])
            state.top += 1
        else:
            # RULES.md, "A game" 3: a DRAW the deck cannot serve locks, the left card still unknown.
            locked[seat] = True
    state.acting = tuple(seat for seat in range(state.players) if not locked[seat])
    if not state.acting:
        _showdown(state)
        _advance(state)


def _check_tick(state: Nineteen23State, actions: Mapping[int, str]) -> None:
    """Every check before any change, so an illegal tick leaves the state as it was."""
    acting = state.acting
    for seat, action in actions.items():
        if seat not in acting:
            raise IllegalAction(seat, action, _why_no_decision(state, seat))
    for seat in acting:
        if seat not in actions:
            raise IllegalAction(seat, None, "every unlocked seat must choose DRAW or LOCK in this tick")
    can_draw = state.top < len(state.deck)
    for seat in acting:
        action = actions[seat]
        if action == LOCK:
            continue
        if action == DRAW:
            if not can_draw:
                raise IllegalAction(seat, action, "the deck is empty: DRAW is legal only while it holds a card")
            continue
        raise IllegalAction(seat, action, "expected DRAW or LOCK")


def _why_no_decision(state: Nineteen23State, seat: int) -> str:
    if state.over:
        return "the match is over"
    if not isinstance(seat, int) or not 0 <= seat < state.players:
        return f"there is no seat {seat!r} at this {state.players}-player table"
    return "this seat has locked: it has no decision until the next game"


# --- settling a game ---------------------------------------------------------------------------


def _showdown(state: Nineteen23State) -> None:
    """RULES.md, "A game" 4: every hand is revealed and the best one takes the game's cards."""
    order = state.priority
    hands = state.hands
    shown: list[str] = []
    for seat in order:
        shown += hands[seat]
    state.revealed += tuple(shown)
    values = [hand_value(hand) for hand in hands]
    _settle_game(state, "normal", hands, values)


def _play_war_game(state: Nineteen23State) -> None:
    """RULES.md, "Short deck": one face-up card each, highest value with Ace 11; leftovers die."""
    players = state.players
    order = priority_order(players, state.games_played)
    state.priority = order
    hands: list[list[str]] = [[] for _ in range(players)]
    for offset, seat in enumerate(order):
        hands[seat] = [state.deck[state.top + offset]]
    state.top += players
    state.revealed += tuple(hands[seat][0] for seat in order)
    # A single card's best-ranking hand value is its value with the Ace as 11, so one ranking serves both kinds.
    values = [_HIGH[hand[0]] for hand in hands]
    _settle_game(state, "war", hands, values)
    state.dead += state.deck[state.top :]
    state.top = len(state.deck)


def _settle_game(state: Nineteen23State, kind: str, hands: list[list[str]], values: list[int]) -> None:
    draws: list[list[str]] = [[] for _ in range(state.players)]
    winner, decided_by = _find_winner(state, hands, values, draws)
    pot = [card for seat in state.priority for card in hands[seat]]
    pot += [card for seat in state.priority for card in draws[seat]]
    if winner is None:
        state.dead += pot
    else:
        state.won[winner] += pot
        state.aces_won[winner] += sum(1 for card in pot if card[0] == "A")
        state.match_cards[winner] += len(pot)
    state.last_game = {
        "kind": kind,
        "set": state.set_number,
        "game": state.games_played + 1,
        "dealer": state.priority[-1],
        "hands": tuple(tuple(hand) for hand in hands),
        "values": tuple(values),
        "tiebreak_draws": tuple(tuple(drawn) for drawn in draws),
        "winner": winner,
        "decided_by": decided_by,
        "cards": len(pot),
    }
    state.games_played += 1
    state.set_games += 1
    state.hands = [[] for _ in range(state.players)]
    state.locked = [True] * state.players
    state.acting = ()


def _find_winner(
    state: Nineteen23State, hands: list[list[str]], values: list[int], draws: list[list[str]]
) -> tuple[int | None, str]:
    """RULES.md, "Ties for the best hand": rank, average, tie-break draws, then the exhausted deck."""
    order = state.priority
    keys = [rank_key(v) for v in values]
    best = max(keys)
    tied = [seat for seat in order if keys[seat] == best]
    if len(tied) == 1:
        return tied[0], "rank"
    averages = {seat: Fraction(values[seat], len(hands[seat])) for seat in tied}
    top_average = max(averages.values())
    tied = [seat for seat in tied if averages[seat] == top_average]
    if len(tied) == 1:
        return tied[0], "average"
    tied = _tiebreak_draws(state, tied, draws)
    if len(tied) == 1:
        return tied[0], "draw"
    if state.tiebreak_dead:
        return None, "dead"
    tied = _compare_right_to_left(tied, hands)
    if len(tied) == 1:
        return tied[0], "hand_cards"
    return None, "dead"


def _tiebreak_draws(state: Nineteen23State, tied: list[int], draws: list[list[str]]) -> list[int]:
    """Draw rounds in priority order while the deck holds a card for every tied player."""
    deck = state.deck
    while len(tied) > 1 and len(deck) - state.top >= len(tied):
        drawn = deck[state.top : state.top + len(tied)]
        state.top += len(tied)
        state.revealed += drawn
        for seat, card in zip(tied, drawn, strict=True):
            draws[seat].append(card)
        best = max(_HIGH[card] for card in drawn)
        tied = [seat for seat, card in zip(tied, drawn, strict=True) if _HIGH[card] == best]
    return tied


def _compare_right_to_left(tied: list[int], hands: list[list[str]]) -> list[int]:
    """RULES.md, "Ties for the best hand" 3: hand cards position by position, tie-break draws aside."""
    position = 0
    while len(tied) > 1:
        holders = [seat for seat in tied if len(hands[seat]) > position]
        if not holders:
            break
        best = max(_HIGH[hands[seat][position]] for seat in holders)
        tied = [seat for seat in holders if _HIGH[hands[seat][position]] == best]
        position += 1
    return tied


# --- sets and the match ------------------------------------------------------------------------


def _end_set(state: Nineteen23State) -> None:
    """RULES.md, "Set" and "Match": score the set, then end the match or shuffle the next set."""
    state.dead += state.deck[state.top :]
    state.top = len(state.deck)
    players = state.players
    cards = [len(pile) for pile in state.won]
    aces = state.aces_won[:]
    most = max(cards)
    set_winners = [seat for seat in range(players) if cards[seat] == most]
    points = [set_points(cards[s], aces[s], s in set_winners, state.losers_score_cards) for s in range(players)]
    for seat in range(players):
        state.points[seat] += points[seat]
    state.set_table.append(
        {
            "set": state.set_number,
            "games": state.set_games,
            "cards": cards,
            "aces": aces,
            "points": points,
            "dead": len(state.dead),
            "set_winners": set_winners,
        }
    )
    if state.single_set:
        _finish(state, tuple(set_winners))
        return
    reached = [seat for seat in range(players) if state.points[seat] >= state.target_points]
    if reached:
        _finish(state, _most_cards(state, reached))
    elif state.set_number >= state.max_sets:
        state.capped = True
        top = max(state.points)
        _finish(state, _most_cards(state, [s for s in range(players) if state.points[s] == top]))
    else:
        _start_set(state)


def set_points(cards: int, aces: int, winner: bool, losers_score_cards: bool) -> int:
    """RULES.md, "Set points": Ace benefit for winners, Ace damage for losers."""
    if winner:
        return cards + aces
    return (cards if losers_score_cards else 0) - aces


def _most_cards(state: Nineteen23State, seats: list[int]) -> tuple[int, ...]:
    """RULES.md, "Match": among several at the target, most cards over the match, else shared."""
    most = max(state.match_cards[seat] for seat in seats)
    return tuple(seat for seat in seats if state.match_cards[seat] == most)


def _finish(state: Nineteen23State, winners: tuple[int, ...]) -> None:
    state.over = True
    state.match_winners = winners
    state.acting = ()
    state.game_view = None


# --- views and results -------------------------------------------------------------------------


def observation(state: Nineteen23State, seat: int | None) -> dict[str, Any]:
    """RULES.md, "What a seat sees": never the seat's unknown left card or anyone's hidden card.

    The public part is built once per step and shared by every seat's view (its
    sequences are tuples, so no view can change another); a seat adds its hand.
    """
    public = state.public_view
    if public is None:
        public = state.public_view = _public_view(state)
    view = dict(public)
    view["seat"] = seat
    if seat is not None:
        # The last card of a hand is its unknown left card until the showdown (RULES.md, "A game").
        view["hand"] = tuple(state.hands[seat][:-1])
    return view


def _public_view(state: Nineteen23State) -> dict[str, Any]:
    game_view = state.game_view
    if game_view is None:
        game_view = state.game_view = _game_view(state)
    view = dict(game_view)
    view["to_act"] = state.acting
    view["can_draw"] = state.top < len(state.deck)
    view["deck"] = len(state.deck) - state.top
    view["hand_sizes"] = tuple(len(hand) for hand in state.hands)
    view["locked"] = tuple(state.locked)
    return view


def _game_view(state: Nineteen23State) -> dict[str, Any]:
    """The public figures that change only between games."""
    return {
        "seat": None,
        "players": state.players,
        "decks": state.decks,
        "mode": "set" if state.single_set else "match",
        "target_points": state.target_points,
        "set": state.set_number,
        "game": state.games_played + 1,
        "set_game": state.set_games + 1,
        "dealer": state.priority[-1],
        "priority": state.priority,
        "hand": None,
        "revealed": state.revealed,
        "won": tuple(len(pile) for pile in state.won),
        "aces_won": tuple(state.aces_won),
        "dead": len(state.dead),
        "points": tuple(state.points),
        "match_cards": tuple(state.match_cards),
        "last_game": state.last_game,
        "over": state.over,
    }


def is_over(state: Nineteen23State) -> bool:
    return state.over


def result(state: Nineteen23State) -> Result:
    """RULES.md, "Ranking within a match"; mid-game, the ranking the figures give at that moment."""
    players = range(state.players)
    set_cards = [len(pile) for pile in state.won]
    if state.single_set:
        keys: list[tuple[int, ...]] = [(c,) for c in set_cards]
        scores = tuple(set_cards)
    else:
        winners = state.match_winners
        # RULES.md "Ranking within a match": the winners share first place, whatever their figures;
        # only the others are ranked by points, then cards.
        keys = [(1, 0, 0) if seat in winners else (0, state.points[seat], state.match_cards[seat]) for seat in players]
        scores = tuple(state.points)
    details = {
        "mode": "set" if state.single_set else "match",
        "finished": state.over,
        "sets": len(state.set_table),
        "games": state.games_played,
        "set_table": [_copy_row(row) for row in state.set_table],
        "cards": state.match_cards[:],
        "points": state.points[:],
        "match_winners": list(state.match_winners),
        "capped": state.capped,
    }
    return Result(ranks=ranks_from_keys(keys), scores=scores, details=details)


def _copy_row(row: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value[:] if isinstance(value, list) else value for key, value in row.items()}


#: A set's figures per seat, as the set table shows them (each a key of the result's ``set_table`` rows).
_SET_COLUMNS = (Column("cards", "Cards"), Column("aces", "Aces"), Column("points", "Points"))


def _set_rows(result: ResultJSON) -> list[Row]:
    columns = [column.key for column in _SET_COLUMNS]
    return [
        Row(cells=[{key: row[key][seat] for key in columns} for seat in range(len(row["cards"]))])
        for row in result.get("set_table", [])
    ]


def _unlisted_sets(result: ResultJSON, state: Nineteen23State) -> str:
    played, listed = len(result.get("set_table", [])), len(state.listed_sets)
    if played > listed:
        return f"deal: the game played {played} sets but the deal lists {listed}: list every set's deck"
    return ""


def _set_deck_part(number: int, decks: int) -> DealPart:
    """Set ``number``'s deck (from 1), as the deal lists it: ``sets[number - 1]``."""
    return DealPart(("sets", number - 1), f"set {number}'s deck, top card first", 52 * decks)


def _table_deal_parts(options: Mapping[str, Any], players: int) -> tuple[DealPart, ...]:
    return (_set_deck_part(1, int(options["decks"])),)


def _unlisted_set(state: Nineteen23State) -> DealPart | None:
    """The set just shuffled from the seed (RULES.md "Sets and decks": at a table, shuffled by hand)."""
    if state.over or state.set_number <= len(state.listed_sets):
        return None
    return _set_deck_part(state.set_number, state.decks)


def _table_deal(state: Nineteen23State) -> dict[str, Any]:
    """The deck of every set dealt so far, the one being played included (RULES.md "Sets and decks")."""
    return {"sets": [list(deck) for deck in state.dealt_sets]}


PROFILE = LeagueProfile(
    label="1923",
    order=(
        MATCH_POINTS,
        Figure("set_points", "Set points", of_game=lambda result, seat: int(result["points"][seat])),
        Figure("cards_won", "Cards won", of_game=lambda result, seat: int(result["cards"][seat])),
    ),
    breakdown=SetTable(columns=_SET_COLUMNS, rows=_set_rows),
    unlisted_shuffles=_unlisted_sets,
    table_deal_parts=_table_deal_parts,
    unlisted_deal_part=_unlisted_set,
    table_deal=_table_deal,
)
