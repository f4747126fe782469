"""Punk (RULES.md, "Punk"; seed 004): every seat plays a card at once, the lowest unique rank scores.

How a seed becomes a deal: ``Rng(seed)`` shuffles the canonical deck (suit-major,
the first N suits of ``C D H S U V W X Y Z``, each ``A`` up to the table's top
rank), then the cards go out one at a time, seat 0 first, so seat ``s`` holds
``deck[s::N]``. The same generator then draws the dummy's cards. It shuffles
even when an explicit deal is given, so a game started from the deal its seed
would make is the same game, dummy moves included.

An explicit deal is ``{"hands": [[cards], ...]}``: one hand per seat (the dummy
is seat 2), each the same size, together exactly the deck.

A hand is kept as a tuple sorted by rank, then suit: the legal actions and the
dummy's draw read it in that order. The state's tuples never change in place,
so observations share them instead of copying (the hot path builds one
observation per decision).

Observation keys: ``seat``, ``players``, ``dummy`` (its seat or None),
``target``, ``hand`` (own cards; None for a spectator), ``hand_sizes``,
``tricks`` (one tuple per trick, ``tricks[t][seat]`` is the card that seat
played), ``trick_winners`` (the winning seat per trick, None when the cards
went to the cache), ``cache``, ``scores`` and ``tricks_played``.

Where RULES.md is silent:
- Only one seat scores per trick, so at most one seat can first reach the
  target on any trick: "the first to reach it" is never a tie.
- With the dummy, ``Result.ranks`` still has an entry for its seat: the dummy
  ranks last, below both people, whatever its score, and the people rank
  among themselves. Its score stays in ``Result.scores``.
- The default target counts seats; the dummy only plays with two people, so
  counting people instead would give the same 21.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from engine.cards import ALL_SUITS, RANKS, build_deck, check_multiset, parse_cards
from engine.errors import DealError, IllegalAction, PlayerCountError
from engine.games.profile import MATCH_POINTS, DealPart, Figure, LeagueProfile
from engine.options import Option, OptionSet
from engine.result import Result, ranks_from_keys
from engine.rng import Rng
from engine.state import GameState

NAME = "punk"
MIN_PLAYERS = 3
MAX_PLAYERS = 10
#: Every seat's decisions come from its player or bot.
DECISIONS = True
OPTIONS = OptionSet(
    Option(
        "dummy",
        bool,
        False,
        "two people and an engine-played dummy as seat 2 (exactly 3 seats)",
        label="Play with a dummy",
        words="Two people and a dummy that the service plays in the third seat (three seats exactly).",
    ),
    Option(
        "target",
        int,
        None,
        "points that win the game (default 21, or 28 with 5 or more players)",
        minimum=1,
        # More than the 910 points of the largest deal: a target nobody can reach still means something
        # (the highest score wins), and the record keeps a number of at most four digits.
        maximum=1000,
        nullable=True,
        label="Winning score",
        words="The points that win a game. Leave empty for 21, or 28 with five or more players.",
    ),
)

#: RULES.md "Punk": the dummy is the last of the three seats.
DUMMY_SEAT = 2
_DEFAULT_TARGET = 21
_LARGE_TABLE_TARGET = 28
_LARGE_TABLE = 5

#: RULES.md "Values": A=1, 2..9, T=10, J=11, Q=12, K=13.
_RANK_POINTS = {rank: points for points, rank in enumerate(RANKS, start=1)}
POINTS: dict[str, int] = {rank + suit: _RANK_POINTS[rank] for rank in RANKS for suit in ALL_SUITS}
#: Rank first, then suit: the order of a hand and of its legal actions.
_HAND_ORDER = {card: index for index, card in enumerate(rank + suit for rank in RANKS for suit in ALL_SUITS)}
_SEATS = {players: tuple(range(players)) for players in range(MIN_PLAYERS, MAX_PLAYERS + 1)}
#: Above every rank: "no rank played exactly once yet".
_NOBODY = 99


def top_rank(players: int) -> int:
    """The highest rank in the deck (RULES.md "Deck": A-7 for 3 and 4 players, then rank N+3)."""
    return max(7, players + 3)


def deck_for(players: int) -> list[str]:
    """The canonical deck for ``players`` seats: suit-major, each suit ``A`` up to :func:`top_rank`."""
    return build_deck(ALL_SUITS[:players], RANKS[: top_rank(players)])


_DECKS = {players: tuple(deck_for(players)) for players in range(MIN_PLAYERS, MAX_PLAYERS + 1)}


@dataclass
class PunkState(GameState):
    players: int
    target: int
    #: The dummy's seat, or None without the dummy option.
    dummy: int | None
    rng: Rng
    hands: list[tuple[str, ...]]
    scores: tuple[int, ...]
    #: ``tricks[t][seat]``: the card ``seat`` played to trick ``t`` (0-based).
    tricks: tuple[tuple[str, ...], ...] = ()
    #: The seat that won each trick, or None when its cards went to the cache.
    winners: tuple[int | None, ...] = ()
    cache: tuple[str, ...] = ()
    #: ``(seat, trick)`` for each seat the trick it first reached the target (1-based), in order.
    reached: tuple[tuple[int, int], ...] = ()
    #: The spectator's view of the current trick, built once and copied for every seat that asks.
    view: dict[str, Any] | None = field(default=None, compare=False, repr=False)


def parse_options(raw: Mapping[str, object] | None, players: int) -> dict[str, Any]:
    """Every option with the target resolved for this table, so a record holds the full ruleset."""
    _check_players(players)
    options = OPTIONS.parse(raw)
    if options["dummy"] and players != 3:
        # Said in people, not seats: whoever sets up the table counts the people, and the dummy is the third seat.
        raise PlayerCountError(
            f"punk with the dummy option is played by exactly 2 people (and the dummy), not {players - 1}"
        )
    if options["target"] is None:
        # RULES.md "Winning": 28 with 5 or more players. The dummy only plays with 2 people,
        # so counting people or seats gives the same target.
        options["target"] = _LARGE_TABLE_TARGET if players >= _LARGE_TABLE else _DEFAULT_TARGET
    return options


def _check_players(players: int) -> None:
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise PlayerCountError(f"punk takes {MIN_PLAYERS} to {MAX_PLAYERS} seats, not {players}")


def parse_deal(raw: object, options: Mapping[str, Any], players: int) -> dict[str, Any]:
    """``{"hands": [[cards], ...]}``: one hand per seat, equal sizes, together exactly the deck."""
    _check_players(players)
    if not isinstance(raw, Mapping) or set(raw) != {"hands"}:
        raise DealError('a punk deal is {"hands": [[cards], ...]} with one hand per seat')
    hands = raw["hands"]
    if not isinstance(hands, list) or len(hands) != players:
        raise DealError(f"hands: expected a list of {players} hands, one per seat")
    size = len(_DECKS[players]) // players
    parsed = []
    for seat, hand in enumerate(hands):
        if not isinstance(hand, list | str):
            raise DealError(f"hand {seat}: expected a list of cards")
        parsed.append(parse_cards(hand, count=size, what=f"hand {seat}"))
    check_multiset([card for hand in parsed for card in hand], _DECKS[players], what="deal")
    return {"hands": parsed}


def new_state(
    options: Mapping[str, Any], players: int, seed: int = 0, deal: Mapping[str, Any] | None = None
) -> PunkState:
    rng = Rng(seed)
    deck = list(_DECKS[players])
    rng.shuffle(deck)
    dealt: Sequence[Sequence[str]] = (
        deal["hands"] if deal is not None else [deck[seat::players] for seat in range(players)]
    )
    return PunkState(
        players=players,
        target=int(options["target"]),
        dummy=DUMMY_SEAT if options["dummy"] else None,
        rng=rng,
        hands=[tuple(sorted(hand, key=_HAND_ORDER.__getitem__)) for hand in dealt],
        scores=(0,) * players,
    )


def extra_seats(raw_options: Mapping[str, object]) -> int:
    """Seats beyond the people: the dummy's, when the raw options ask for it."""
    return 1 if OPTIONS.options["dummy"].coerce(raw_options.get("dummy", False)) else 0


def auto_seats(options: Mapping[str, Any], players: int) -> frozenset[int]:
    return frozenset({DUMMY_SEAT}) if options["dummy"] else frozenset()


def auto_action(state: PunkState, seat: int) -> str:
    """RULES.md "dummy": a uniformly random card from its hand, drawn with the engine's generator."""
    if seat != state.dummy:
        raise IllegalAction(seat, None, "only the dummy's cards are played by the engine")
    hand = state.hands[seat]
    if not hand:
        raise IllegalAction(seat, None, "the dummy has no cards left")
    return hand[state.rng.below(len(hand))]


def to_act(state: PunkState) -> tuple[int, ...]:
    # RULES.md "A trick": every seat plays at once, and all hands are always the same size.
    return _SEATS[state.players] if state.hands[0] else ()


def legal_actions(state: PunkState, seat: int) -> list[str]:
    if not 0 <= seat < state.players:
        return []
    return list(state.hands[seat])


def all_actions(options: Mapping[str, Any], players: int) -> list[str]:
    """Every card of the table's deck, in the canonical deck's order (suit-major, ``A`` up): a seat plays
    only cards of its own hand, and any card of the deck can be dealt to any seat."""
    _check_players(players)
    return list(_DECKS[players])


def observation(state: PunkState, seat: int | None) -> dict[str, Any]:
    # RULES.md "What a seat sees": its own hand, every revealed trick, the cache and the scores.
    view = state.view
    if view is None:
        view = state.view = _public_view(state)
    seen = view.copy()
    if seat is not None:
        seen["seat"] = seat
        seen["hand"] = state.hands[seat]
    return seen


def _public_view(state: PunkState) -> dict[str, Any]:
    return {
        "seat": None,
        "players": state.players,
        "dummy": state.dummy,
        "target": state.target,
        "hand": None,
        "hand_sizes": (len(state.hands[0]),) * state.players,
        "tricks": state.tricks,
        "trick_winners": state.winners,
        "cache": state.cache,
        "scores": state.scores,
        "tricks_played": len(state.tricks),
    }


def apply(state: PunkState, actions: Mapping[int, str]) -> None:
    """Play one trick. Every card is checked before anything changes."""
    played = _checked_trick(state, actions)
    if not played:
        # Over: no seat acts, so the only valid step is the empty one, which changes nothing.
        return
    hands = state.hands
    for seat, card in enumerate(played):
        hand = hands[seat]
        at = hand.index(card)
        hands[seat] = hand[:at] + hand[at + 1 :]
    state.view = None
    state.tricks += (played,)
    winner = trick_winner(played)
    state.winners += (winner,)
    if winner is None:
        state.cache += played
    else:
        _score(state, winner, POINTS[played[winner]])


def _checked_trick(state: PunkState, actions: Mapping[int, str]) -> tuple[str, ...]:
    seats = to_act(state)
    hands = state.hands
    played = []
    for seat in seats:
        if seat not in actions:
            raise IllegalAction(seat, None, "every seat plays a card to each trick")
        card = actions[seat]
        if card not in hands[seat]:
            raise IllegalAction(seat, card, "that card is not in the seat's hand")
        played.append(card)
    if len(actions) != len(seats):
        extra = next(seat for seat in actions if seat not in seats)
        reason = "the game is over" if not seats else f"there is no seat {extra} at this table"
        raise IllegalAction(extra, actions[extra], reason)
    return tuple(played)


def trick_winner(played: Sequence[str]) -> int | None:
    """RULES.md "A trick": the seat of the lowest rank played exactly once, or None."""
    ranks = [POINTS[card] for card in played]
    lowest = _NOBODY
    for rank in ranks:
        if rank < lowest and ranks.count(rank) == 1:
            lowest = rank
    return None if lowest == _NOBODY else ranks.index(lowest)


def _score(state: PunkState, seat: int, points: int) -> None:
    scores = list(state.scores)
    before = scores[seat]
    scores[seat] = before + points
    state.scores = tuple(scores)
    if before < state.target <= before + points:
        state.reached += ((seat, len(state.tricks)),)


def is_over(state: PunkState) -> bool:
    # RULES.md "Winning": all cards are played, even after someone reaches the target.
    return not state.hands[0]


def result(state: PunkState) -> Result:
    """RULES.md "Winning"; with the dummy, among the people only, and the dummy ranks last.

    On a running game this is the provisional ranking a forfeit needs: the
    first to the target so far, otherwise the scores so far.
    """
    first = first_to_target(state)
    winner = None if first is None else first[0]
    keys = [
        (-1, score) if seat == state.dummy else (1 if seat == winner else 0, score)
        for seat, score in enumerate(state.scores)
    ]
    return Result(ranks=ranks_from_keys(keys), scores=state.scores, details=_details(state, first))


def first_to_target(state: PunkState) -> tuple[int, int] | None:
    """``(seat, trick)`` of the first person to reach the target: the dummy cannot win (RULES.md)."""
    for seat, trick in state.reached:
        if seat != state.dummy:
            return seat, trick
    return None


def _details(state: PunkState, first: tuple[int, int] | None) -> dict[str, Any]:
    # Lists and dicts only: a record's stated result must equal its JSON round trip.
    return {
        "target": state.target,
        "dummy": state.dummy,
        "first_to_target": None if first is None else {"seat": first[0], "trick": first[1]},
        "reached_target": [{"seat": seat, "trick": trick} for seat, trick in state.reached],
        "tricks": [
            {
                "winner": winner,
                "card": None if winner is None else played[winner],
                "points": 0 if winner is None else POINTS[played[winner]],
            }
            for played, winner in zip(state.tricks, state.winners, strict=True)
        ],
        "tricks_played": len(state.tricks),
        "cache_size": len(state.cache),
    }


def full_deck(options: Mapping[str, Any], players: int) -> list[str]:
    return list(_DECKS[players])


def cards_in_play(state: PunkState) -> list[str]:
    """Hands, then every played card: won tricks stay with their winners, the rest is the cache."""
    cards = [card for hand in state.hands for card in hand]
    for played, winner in zip(state.tricks, state.winners, strict=True):
        if winner is not None:
            cards.extend(played)
    cards.extend(state.cache)
    return cards


def _table_deal_parts(options: Mapping[str, Any], players: int) -> tuple[DealPart, ...]:
    # Hands are kept sorted, so their order does not matter; the dummy's hand is dealt like any other.
    size = len(_DECKS[players]) // players
    return tuple(DealPart(("hands", seat), "hand, in any order", size, seat) for seat in range(players))


def _table_deal(state: PunkState) -> dict[str, Any]:
    """Every hand as dealt: what it holds now and every card it played, in the hand's order (any order deals
    the same game, since hands are kept sorted). The dummy's draws come from the seed whatever the deal."""
    dealt = [list(hand) for hand in state.hands]
    for played in state.tricks:
        for seat, card in enumerate(played):
            dealt[seat].append(card)
    return {"hands": [sorted(hand, key=_HAND_ORDER.__getitem__) for hand in dealt]}


PROFILE = LeagueProfile(
    label="Punk",
    order=(
        replace(MATCH_POINTS, label="Placement points"),
        Figure("total_score", "Total score", of_game=lambda result, seat: int(result["scores"][seat])),
    ),
    table_deal_parts=_table_deal_parts,
    table_deal=_table_deal,
)
