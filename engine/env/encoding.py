"""A seat's observation as a fixed-length float32 vector, for any registered game (docs/training.md).

The vector is built only from ``observation(state, seat)``: never anything the seat cannot see.
Nothing here names a game. The layout comes from two things every game provides:

* the card vocabulary: the distinct cards of ``full_deck(options, players)``, in that list's order,
  each with its number of copies (two of each in Banter, ``decks`` of each in 1923);
* the kinds of value each top-level key of the observation holds, learnt once per ruleset by a probe:
  a few seeded games of uniformly random legal moves (:data:`PROBE_SEEDS`, at most
  :data:`PROBE_STEPS` steps each), every person's observation after every step looked at.

Each key (sorted by name) gets a block of slots, in this order, for each kind the probe saw it hold:

=============  ===========================  ============================================================
part           slots                        value
=============  ===========================  ============================================================
``missing``    1                            1 when the value is None (or the key is absent), else 0
``category``   one per text seen, + other   one-hot of a text value that is not a card
``number``     1                            a top-level number (True 1, False 0), as it is
``seats``      one per seat                 a list of numbers (None 0), as they are, when every list the
                                            key held was one per seat
``length``     1                            the length of a list (when not every list was one per seat)
``cards``      one per distinct card        copies of the card anywhere inside the value ÷ its copies
=============  ===========================  ============================================================

Numbers nested deeper (inside a list of lists, or a dict) are not encoded, nor are texts nested
deeper than the top level; the raw observation goes beside the vector (``info["observation"]``).
A value of a kind the probe never saw for its key leaves those slots at 0.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.games import Game, get_game
from engine.rng import Rng, derive_seed

#: Seeds of the probe's games; with :data:`PROBE_STEPS`, they fix each ruleset's layout.
PROBE_SEEDS = (0, 1, 2, 3)
PROBE_STEPS = 300

PART_ORDER = ("missing", "category", "number", "seats", "length", "cards")


@dataclass(frozen=True)
class Part:
    """One block of slots: ``vector[offset : offset + len(labels)]`` encodes ``key``'s ``part``."""

    key: str
    part: str
    offset: int
    labels: tuple[str, ...]

    @property
    def size(self) -> int:
        return len(self.labels)


@dataclass
class _Seen:
    """What the probe saw one key hold."""

    missing: bool = False
    number: bool = False
    #: Every list the key held was as long as the table and held numbers (or None).
    seats: bool = True
    length: bool = False
    cards: bool = False
    texts: frozenset[str] = frozenset()


class ObservationEncoder:
    """The vector layout of one ruleset (game, options, seats); ``encode(observation)`` fills it."""

    def __init__(self, game: Game, options: Mapping[str, Any], players: int) -> None:
        self.game_name = game.NAME
        self.players = players
        deck = game.full_deck(options, players)
        self.cards: tuple[str, ...] = tuple(dict.fromkeys(deck))
        self._copies = {card: deck.count(card) for card in self.cards}
        self._card_index = {card: index for index, card in enumerate(self.cards)}
        seen = _probe(game, options, players, set(self.cards))
        self.parts = _layout(seen, players, self.cards)
        self.size = sum(part.size for part in self.parts)
        # One look-up per key; each key's block is built in a plain list (far cheaper per slot than NumPy's
        # item assignment), and the blocks become the vector in one call.
        by_key: dict[str, list[Part]] = {}
        for part in self.parts:
            by_key.setdefault(part.key, []).append(part)
        self._keys = tuple(
            (
                key,
                _KeyBlock(
                    sum(part.size for part in parts),
                    [self._filler(part, part.offset - parts[0].offset) for part in parts],
                ),
            )
            for key, parts in by_key.items()
        )

    def encode(self, observation: Mapping[str, Any]) -> npt.NDArray[np.float32]:
        slots: list[float] = []
        get = observation.get
        for key, block in self._keys:
            slots += block(get(key))
        return np.array(slots, dtype=np.float32)

    def describe(self) -> list[dict[str, Any]]:
        """The layout as rows (key, part, offset, size, what the slots hold) for docs and people."""
        return [
            {"key": part.key, "part": part.part, "offset": part.offset, "size": part.size, "labels": part.labels}
            for part in self.parts
        ]

    def table(self) -> str:
        """The layout as a Markdown table (docs/training.md holds one per game)."""
        lines = ["| slots | key | part | holds |", "|---|---|---|---|"]
        for part in self.parts:
            span = str(part.offset) if part.size == 1 else f"{part.offset}–{part.offset + part.size - 1}"
            lines.append(f"| {span} | `{part.key}` | {part.part} | {_holds(part, len(self.cards))} |")
        return "\n".join(lines)

    def _filler(self, part: Part, offset: int) -> _Fill:
        """Writes ``part`` into its key's block, where it starts at ``offset``."""
        if part.part == "missing":
            return partial(_fill_missing, offset)
        if part.part == "category":
            where = {label: offset + index for index, label in enumerate(part.labels[:-1])}
            return partial(_fill_category, where, offset + part.size - 1)
        if part.part == "number":
            return partial(_fill_number, offset)
        if part.part == "seats":
            return partial(_fill_seats, offset, self.players)
        if part.part == "length":
            return partial(_fill_length, offset)
        slots = [(offset + position, 1.0 / self._copies[card]) for position, card in enumerate(self.cards)]
        return partial(_fill_cards, self._card_index, slots)


def _holds(part: Part, cards: int) -> str:
    if part.part == "cards":
        return f"{cards} cards, {part.labels[0]} {part.labels[1]} … {part.labels[-1]}"
    if part.part == "category":
        return ", ".join(f"`{label}`" if label != "other" else "other" for label in part.labels)
    if part.part == "seats":
        return f"seat 0 … seat {len(part.labels) - 1}"
    return {"missing": "1 if None", "number": "the number", "length": "the list's length"}[part.part]


_Fill = Callable[[list[float], Any], None]
#: Values that never change once made: a block built from one is good for as long as the value is alive.
_UNCHANGING = frozenset({tuple, str, int, float, bool, type(None)})


class _KeyBlock:
    """One key's slots, with the blocks of the last few unchanging values it met kept by identity.

    Games share their state's tuples between steps and seats (a hand, the tricks so far, the public
    view), so most keys meet the very value they met a step before.
    """

    def __init__(self, size: int, fills: list[_Fill]) -> None:
        self._size = size
        self._fills = fills
        self._known: dict[int, tuple[Any, list[float]]] = {}

    def __call__(self, value: Any) -> list[float]:
        unchanging = type(value) in _UNCHANGING
        if unchanging:
            known = self._known.get(id(value))
            if known is not None and known[0] is value:
                return known[1]
        block = [0.0] * self._size
        for fill in self._fills:
            fill(block, value)
        if unchanging:
            if len(self._known) >= _KNOWN_PER_KEY:
                self._known.clear()
            # The value is held too, so its id cannot be reused by another object while the entry lives.
            self._known[id(value)] = (value, block)
        return block


_KNOWN_PER_KEY = 32


def _fill_cards(index: Mapping[str, int], where: list[tuple[int, float]], slots: list[float], value: Any) -> None:
    """Adds each card found inside ``value`` at its slot, by 1 ÷ its copies in the deck."""
    if value is None:
        return
    found: list[int] = []
    _collect_cards(value, index, found)
    for position in found:
        slot, weight = where[position]
        slots[slot] += weight


def _fill_missing(offset: int, slots: list[float], value: Any) -> None:
    if value is None:
        slots[offset] = 1.0


def _fill_category(where: Mapping[str, int], other: int, slots: list[float], value: Any) -> None:
    if isinstance(value, str):
        slots[where.get(value, other)] = 1.0


def _fill_number(offset: int, slots: list[float], value: Any) -> None:
    if _is_number(value):
        slots[offset] = float(value)


def _fill_seats(offset: int, players: int, slots: list[float], value: Any) -> None:
    if isinstance(value, list | tuple) and len(value) == players:
        for seat, item in enumerate(value):
            if type(item) in _NUMBERS:
                slots[offset + seat] = float(item)


_NUMBERS = (int, float, bool)


def _fill_length(offset: int, slots: list[float], value: Any) -> None:
    if isinstance(value, list | tuple):
        slots[offset] = float(len(value))


def _collect_cards(value: Any, index: Mapping[str, int], found: list[int]) -> None:
    """The positions of every card string anywhere inside ``value`` (lists, tuples, dicts' values), repeats kept."""
    if isinstance(value, str):
        position = index.get(value)
        if position is not None:
            found.append(position)
    elif isinstance(value, list | tuple):
        for item in value:
            if type(item) is str:
                position = index.get(item)
                if position is not None:
                    found.append(position)
            elif isinstance(item, list | tuple | dict | str):
                _collect_cards(item, index, found)
    elif isinstance(value, dict):
        for item in value.values():
            _collect_cards(item, index, found)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float)


def _is_seat_list(value: Any, players: int, *, allow_empty: bool = False) -> bool:
    """A list with one number (or None) per seat; ``allow_empty`` lets every item be None."""
    return (
        isinstance(value, list | tuple)
        and len(value) == players
        and all(item is None or _is_number(item) for item in value)
        and (allow_empty or any(item is not None for item in value))
    )


def _holds_cards(value: Any, cards: Mapping[str, int]) -> bool:
    found: list[int] = []
    _collect_cards(value, cards, found)
    return bool(found)


def _probe(game: Game, options: Mapping[str, Any], players: int, cards: set[str]) -> dict[str, _Seen]:
    """What each key of the people's observations holds over a few seeded games of random legal moves."""
    seen: dict[str, _Seen] = {}
    auto = game.auto_seats(options, players)
    people = [seat for seat in range(players) if seat not in auto]
    card_index = dict.fromkeys(cards, 0)
    for seed in PROBE_SEEDS:
        state = game.new_state(options, players, seed, None)
        moves = Rng(derive_seed(seed, "env/probe"))
        for _ in range(PROBE_STEPS):
            for seat in people:
                _note(seen, game.observation(state, seat), players, card_index)
            if game.is_over(state):
                break
            seats = game.to_act(state)
            step = {
                seat: game.auto_action(state, seat) if seat in auto else moves.choice(game.legal_actions(state, seat))
                for seat in seats
            }
            game.apply(state, step)
    return seen


def _note(seen: dict[str, _Seen], observation: Mapping[str, Any], players: int, cards: Mapping[str, int]) -> None:
    for key, value in observation.items():
        kinds = seen.setdefault(key, _Seen())
        if value is None:
            kinds.missing = True
        elif isinstance(value, str):
            if value in cards:
                kinds.cards = True
            else:
                kinds.texts |= {value}
        elif _is_number(value):
            kinds.number = True
        else:
            if isinstance(value, list | tuple):
                kinds.length = True
                kinds.seats = kinds.seats and _is_seat_list(value, players, allow_empty=True)
            kinds.cards = kinds.cards or _holds_cards(value, cards)


def _layout(seen: Mapping[str, _Seen], players: int, cards: tuple[str, ...]) -> tuple[Part, ...]:
    parts: list[Part] = []
    offset = 0
    for key in sorted(seen):
        kinds = seen[key]
        blocks: list[tuple[str, tuple[str, ...]]] = []
        if kinds.missing:
            blocks.append(("missing", ("is None",)))
        if kinds.texts:
            blocks.append(("category", (*sorted(kinds.texts), "other")))
        if kinds.number:
            blocks.append(("number", ("value",)))
        per_seat = kinds.seats and kinds.length
        if per_seat:
            blocks.append(("seats", tuple(f"seat {seat}" for seat in range(players))))
        elif kinds.length:
            # A list as long as the table every time says nothing by its length.
            blocks.append(("length", ("length",)))
        if kinds.cards:
            blocks.append(("cards", cards))
        for part, labels in blocks:
            parts.append(Part(key, part, offset, labels))
            offset += len(labels)
    return tuple(parts)


@lru_cache(maxsize=64)
def _cached(game_name: str, options_json: str, players: int) -> ObservationEncoder:
    return ObservationEncoder(get_game(game_name), json.loads(options_json), players)


def encoder_for(game: Game, options: Mapping[str, Any], players: int) -> ObservationEncoder:
    """The ruleset's encoder, probed once per process (a probe plays a few hundred steps)."""
    return _cached(game.NAME, json.dumps(dict(options), sort_keys=True), players)
