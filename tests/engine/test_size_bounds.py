"""Size bounds (docs/records.md, "Size bounds"): the largest game the options allow stays under 2 MB.

Each test takes the largest values the option definitions accept (so raising a
maximum plays a larger game here) and seats that make the game as long as the
rules let them: the record the service stores and the public view anyone may
read must both stay under ``BOUND``. The compact views must still give exactly
the spectator's view after every step.
"""

from __future__ import annotations

import copy
import json
import time
from typing import Any

import pytest

from engine.agents import Agent
from engine.bots import seat_agents
from engine.cards import standard_deck
from engine.games import banter, get_game, nineteen23, punk, war
from engine.record import Record
from engine.runner import play_game
from engine.verify import expand_views, public_record, replay, verify, view_change

#: docs/records.md, "Size bounds": a stored record and its public view, as compact JSON.
BOUND = 2_000_000


def maximum(module: Any, name: str) -> int:
    value = module.OPTIONS.options[name].maximum
    assert isinstance(value, int), f"{module.NAME} {name} has no maximum"
    return value


def assert_within_bound(record: Record) -> None:
    """The stored record and its public view, as the API sends them (compact JSON), are under the bound."""
    assert verify(record).ok
    stored = len(json.dumps(record.to_dict(), separators=(",", ":")).encode())
    started = time.perf_counter()
    public = len(json.dumps(public_record(record), separators=(",", ":")).encode())
    seconds = time.perf_counter() - started
    # Printed for docs/records.md, "Size bounds" (pytest -s shows it).
    print(f"\n{record.game}: {len(record.actions):,} steps, record {stored:,} B, public {public:,} B ({seconds:.2f} s)")
    assert stored < BOUND and public < BOUND, f"record {stored:,} bytes, public view {public:,} bytes"


class DrawsThenLocks:
    """1923: DRAWs ``draws`` times in every game, then LOCKs. Against seats that LOCK at once, one DRAW a
    game makes the most public view per card dealt of every way to play that was tried (docs/records.md)."""

    def __init__(self, draws: int) -> None:
        self.draws = draws
        self.game: tuple[int, int] = (0, 0)
        self.drawn = 0

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        game = (observation["set"], observation["set_game"])
        if game != self.game:
            self.game, self.drawn = game, 0
        if self.drawn < self.draws and nineteen23.DRAW in legal_actions:
            self.drawn += 1
            return nineteen23.DRAW
        return nineteen23.LOCK


@pytest.mark.parametrize(
    ("draws", "decks"),
    [
        ((1, 0), 1),
        ((1, 0), "most"),
        ((1, 0, 0), 1),
        ((1,) + (0,) * (nineteen23.MAX_PLAYERS - 1), 1),
    ],
)
def test_the_longest_1923_match_the_options_allow_stays_under_the_bound(
    draws: tuple[int, ...], decks: int | str
) -> None:
    decks = maximum(nineteen23, "decks") if decks == "most" else decks
    assert isinstance(decks, int)
    # An unreachable target: the match runs to max_sets, which defaults to the most sets these decks allow.
    options = {"decks": decks, "target_points": maximum(nineteen23, "target_points")}
    max_sets = nineteen23.parse_options(options, len(draws))["max_sets"]
    assert max_sets == min(maximum(nineteen23, "max_sets"), nineteen23.MATCH_DECKS // decks)
    agents: list[Agent | None] = [DrawsThenLocks(n) for n in draws]
    record = play_game("1923", agents=agents, seed=1, options=options)
    assert record.result is not None and record.result["capped"] and record.result["sets"] == max_sets
    assert_within_bound(record)


class Mirror:
    """Banter: never upgrades, leads its first card and follows with the very card led. With both seats
    dealt the same piles (and reshuffled alike), every trick is drawn: the scores stay level for ever."""

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        if banter.STOP in legal_actions:
            return banter.STOP
        same = f"PLAY {observation['led']}"
        return same if same in legal_actions else legal_actions[0]


def mirrored_deal(rounds: int) -> dict[str, Any]:
    """Both seats the same piles, and every reshuffle listed as the discard pile as it lies (RULES.md "Round")."""
    deck = standard_deck()
    draw, rest = deck[: banter.ACTIVE_SIZE], deck[banter.ACTIVE_SIZE :]
    pile, discard, reshuffles = list(draw), list[str](), list[list[str]]()
    for _ in range(rounds):
        hand, pile = pile[: banter.HAND_SIZE], pile[banter.HAND_SIZE :]
        if len(hand) < banter.HAND_SIZE:
            reshuffles.append(discard)
            missing = banter.HAND_SIZE - len(hand)
            hand, pile, discard = hand + discard[:missing], discard[missing:], []
        # The mirror plays its hand in the order drawn, and every card played goes to the discard pile.
        discard = discard + hand
    piles = {"draw": draw, "deck": rest}
    return {"piles": [piles, piles], "reshuffles": {"0": reshuffles, "1": reshuffles}}


def test_the_longest_banter_game_the_options_allow_stays_under_the_bound() -> None:
    rounds = maximum(banter, "max_rounds")
    options = {"max_rounds": rounds, "first_lead": "0"}
    record = play_game("banter", agents=[Mirror(), Mirror()], seed=1, options=options, deal=mirrored_deal(rounds))
    assert record.result is not None
    assert record.result["capped"] and record.result["rounds"] == rounds
    assert record.result["scores"][0] == record.result["scores"][1]
    assert_within_bound(record)


@pytest.mark.parametrize("dummy", [False, True])
def test_the_largest_punk_deal_the_options_allow_stays_under_the_bound(dummy: bool) -> None:
    options = {"target": maximum(punk, "target"), "dummy": dummy}
    people = 2 if dummy else punk.MAX_PLAYERS
    record = play_game("punk", agents=seat_agents("punk", ["random"] * people, options, 3), seed=3, options=options)
    assert record.result is not None and not record.result["reached_target"]
    assert_within_bound(record)


def test_the_longest_war_game_the_options_allow_stays_under_the_bound() -> None:
    # Hands (of any size, for tests) that repeat for ever: the game runs to max_rounds.
    hands = [["6C", "KH", "QD", "8D", "JH"], ["3D", "6D", "QC", "KC", "6S", "3C", "AS", "4D"]]
    rounds = maximum(war, "max_rounds")
    record = play_game("war", agents=[None, None], seed=0, options={"max_rounds": rounds}, deal={"hands": hands})
    assert record.result is not None and record.result["capped"] and record.result["rounds"] == rounds
    assert_within_bound(record)


# --- the compact views ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "bots", "options"),
    [
        ("war", [], {}),
        ("1923", ["counter", "random", "random"], {"target_points": 60}),
        ("banter", ["upgrader", "random"], {}),
        ("punk", ["tracker", "random", "random", "random"], {}),
        ("punk", ["random", "random"], {"dummy": True}),
    ],
)
def test_the_public_views_expand_to_the_spectator_s_view_after_every_step(
    game: str, bots: list[str], options: dict[str, Any]
) -> None:
    agents = seat_agents(game, bots, options, 5) if bots else [None, None]
    record = play_game(game, agents=agents, seed=5, options=options)
    seen: list[dict[str, Any]] = []
    engine_game = get_game(game)
    replay(record, on_step=lambda state: seen.append(copy.deepcopy(engine_game.observation(state, None))))
    views = json.loads(json.dumps(public_record(record)["views"]))
    assert len(views["steps"]) == len(record.actions)
    assert expand_views(views) == json.loads(json.dumps(seen))


def test_a_change_names_what_changed_and_appends_what_grew() -> None:
    before = {"deck": 40, "revealed": ("AC",), "locked": (False, True), "over": False, "last": None}
    after = {"deck": 39, "revealed": ("AC", "7H"), "locked": (False, True), "over": False, "last": 1}
    assert view_change(before, after) == {"deck": 39, "revealed+": ("7H",), "last": 1}
    # JSON's true is not 1, though Python's == says it is; a list that shrank is given whole.
    assert view_change({"a": 1, "b": [1, 2]}, {"a": True, "b": [1]}) == {"a": True, "b": [1]}
    assert expand_views({"start": before, "steps": [view_change(before, after)]})[1] == {
        **after,
        "revealed": ["AC", "7H"],
    }
