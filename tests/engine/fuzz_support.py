"""Hypothesis strategies for untrusted input: real records of real games, and ways to break them.

The fuzz tests (``test_fuzz_*.py``) feed these to every parser that takes text from
outside: ``python -m engine verify``, the transcript service, the bot protocol,
card notation and ruleset options. A mutation starts from a record a real game
produced, so most of them get past the first checks and reach the deal, the
options and the steps, where a crash would hide.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable, Iterator
from functools import cache, partial
from typing import Any

from hypothesis import strategies as st

from engine.agents import Agent
from engine.bots import seat_agents
from engine.cards import standard_deck
from engine.fairness import new_salt
from engine.games.punk import deck_for
from engine.record import Record
from engine.runner import play_game
from engine.verify import verify

Json = Any
Path = tuple[str | int, ...]

#: Every card of every suit, and spellings that are almost cards: the Kelvin sign looks like K,
#: the long s upper-cases to S, "10" is T, and the rest are simply wrong.
CARDS = [rank + suit for suit in "CDHSUVWXYZ" for rank in "A23456789TJQK"]
NEAR_CARDS = ["10h", "as", " 2c ", "\u212aS", "2\u017f", "1C", "11S", "ZZ", "2", "", " ", "２C", "\x00", "\ud800"]
#: Words the games' actions are made of.
ACTION_WORDS = ["DRAW", "LOCK", "STOP", "PLAY", "SPEND", "BIN", "play", "FOLD"]
#: Names the record format gives meaning to, so that a random key sometimes hits one.
KNOWN_KEYS = [
    "format", "game", "players", "options", "seed", "deal", "actions", "forfeit", "result", "salt",
    "deck", "hands", "sets", "piles", "draw", "reshuffles", "0", "1", "seat", "cause", "move", "detail",
    "max_rounds", "mode", "decks", "target_points", "max_sets", "tiebreak_exhausted", "losers_score_cards",
    "first_lead", "dummy", "target", "winner", "winners", "ranks", "scores", "rounds",
]  # fmt: skip
KNOWN_TEXT = [
    *KNOWN_KEYS, "war", "1923", "banter", "punk", "WAR ", "cardgames-record/1", "cardgames-record/2", "null", "true",
    "seed", "set", "match", "dead", "timeout", "crash", "illegal_action", "bad_output", "init_failure", "x" * 5000,
]  # fmt: skip
BIG_INTS = [0, 1, -1, 2, 3, 12, 13, 52, 2**31, 2**63, -(2**63), 2**64 + 1, 10**18]
#: As big as a whole number in JSON comes: json refuses more than 4,300 digits. Built lazily, so
#: that a strategy's description (in Hypothesis's statistics) does not print all 4,000 digits.
HUGE_JSON_INTS = st.sampled_from([1, -1]).map(lambda sign: sign * 10**4000)


def json_scalars() -> st.SearchStrategy[Json]:
    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**70), 2**70),
        st.sampled_from(BIG_INTS),
        HUGE_JSON_INTS,
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=12),
        st.sampled_from(KNOWN_TEXT + CARDS + NEAR_CARDS),
    )


def _nest(depth: int, leaf: Json) -> Json:
    value = leaf
    for level in range(depth):
        value = [value] if level % 2 else {"a": value}
    return value


def json_values() -> st.SearchStrategy[Json]:
    """Anything a JSON document can hold, deep nesting and long lists of almost-cards included."""
    keys = st.one_of(st.text(max_size=6), st.sampled_from(KNOWN_KEYS))
    return st.one_of(
        json_scalars(),
        st.builds(_nest, st.integers(1, 600), json_scalars()),
        st.lists(st.sampled_from(CARDS + NEAR_CARDS), max_size=60),
        st.permutations(standard_deck()),
        st.recursive(
            json_scalars(),
            lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)),
            max_leaves=10,
        ),
    )


def json_text(value: Json) -> str:
    """The JSON a person could write for ``value``: NaN and Infinity too (Python's json reads them)."""
    return json.dumps(value)


@cache
def base_records() -> tuple[dict[str, Any], ...]:
    """Records of real games, each game and each kind of deal, a forfeit and a salt among them; all verify."""
    deck = standard_deck()
    random.Random(1).shuffle(deck)
    punk_deck = deck_for(4)
    random.Random(2).shuffle(punk_deck)
    banter_deal = {
        "piles": [{"draw": deck[:13], "deck": deck[13:]}, {"draw": deck[13:26], "deck": deck[:13] + deck[26:]}]
    }
    records = [
        _played("war", [], {}, 3),
        _played("war", [], {}, 0, {"deck": deck}),
        _played("war", [], {"max_rounds": 40}, 0, {"hands": [["2C", "3C", "KD"], ["4C", "5C", "AS"]]}),
        _played("1923", ["random", "random"], {"mode": "set"}, 4),
        _played("1923", ["random"] * 3, {"target_points": 10}, 4, {"sets": [deck]}),
        _played("banter", ["random", "random"], {"max_rounds": 5}, 5),
        _played("banter", ["random", "random"], {"max_rounds": 3, "first_lead": "1"}, 5, banter_deal),
        _played("punk", ["random"] * 3, {}, 6),
        _played("punk", ["random", "random"], {"dummy": True}, 6),
        _played("punk", ["random"] * 4, {"target": 15}, 6, {"hands": [punk_deck[seat::4] for seat in range(4)]}),
        _forfeited(),
    ]
    salted = _played("punk", ["random"] * 3, {}, 8)
    salted.salt = new_salt()
    records.append(salted)
    for record in records:
        assert verify(record).ok, record.game
    return tuple(record.to_dict() for record in records)


def _played(game: str, bots: list[str], options: dict[str, Any], seed: int, deal: Json = None) -> Record:
    agents = seat_agents(game, bots, options, seed) if bots else [None, None]
    return play_game(game, agents=agents, seed=seed, options=options, deal=deal)


class _FoldsOnItsThirdMove:
    def __init__(self) -> None:
        self.moves = 0

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        self.moves += 1
        return "FOLD" if self.moves == 3 else legal_actions[0]


def _forfeited() -> Record:
    """A 1923 game that seat 0 forfeits with an illegal action."""
    agents: list[Agent | None] = [_FoldsOnItsThirdMove(), seat_agents("1923", ["random", "random"], {}, 1)[1]]
    record = play_game("1923", agents=agents, seed=1, options={})
    assert record.forfeit is not None and record.forfeit.cause == "illegal_action"
    return record


# --- Mutations ----------------------------------------------------------------------------------


def _paths(value: Json, prefix: Path = ()) -> Iterator[Path]:
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*prefix, index))


def _at(root: Json, path: Path, change: Callable[[Json], Json]) -> Json:
    """``root`` with the value at ``path`` changed in place; ``_DELETE`` from ``change`` removes it."""
    if not path:
        return change(root)
    parent = root
    for key in path[:-1]:
        parent = parent[key]
    new = change(parent[path[-1]])
    if new is _DELETE:
        del parent[path[-1]]
    else:
        parent[path[-1]] = new
    return root


_DELETE = object()
_OPS = ["replace", "replace", "replace", "delete", "insert", "append", "shorten", "swap"]


@st.composite
def mutated_records(draw: st.DrawFn, base: dict[str, Any] | None = None) -> Json:
    """A real record with one to three things changed: replaced by any JSON, deleted, added, cut, reordered."""
    record: Json = copy.deepcopy(base if base is not None else draw(st.sampled_from(base_records())))
    for _ in range(draw(st.integers(1, 3))):
        paths = list(_paths(record))[1:]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        op = draw(st.sampled_from(_OPS))
        if op == "replace":
            record = _at(record, path, _constant(draw(json_values())))
        elif op == "delete":
            record = _at(record, path, _constant(_DELETE))
        elif op in ("insert", "append"):
            key = draw(st.sampled_from(KNOWN_KEYS) | st.text(max_size=6))
            record = _at(record, path[:-1], partial(_grow, key=key, value=draw(json_values()), op=op))
        elif op == "shorten":
            record = _at(record, path, partial(_shorten, cut=draw(st.integers(1, 3))))
        else:
            other = draw(st.sampled_from(paths))
            record = _at(record, path, _constant(copy.deepcopy(_get(record, other))))
    return record


def _constant(value: Json) -> Callable[[Json], Json]:
    return lambda _old: value


def _shorten(old: Json, *, cut: int) -> Json:
    return old[:-cut] if isinstance(old, list | str) else old


def _grow(parent: Json, *, key: str, value: Json, op: str) -> Json:
    if isinstance(parent, dict):
        parent[key] = value
    elif isinstance(parent, list):
        if op == "append":
            parent.append(value)
        else:
            parent.insert(0, value)
    return parent


def _get(root: Json, path: Path) -> Json:
    for key in path:
        root = root[key]
    return root
