"""The 1923 ``counter`` bot: its card counting, and that it beats ``random`` beyond any luck."""

from __future__ import annotations

from collections.abc import Sequence
from math import comb
from typing import Any

import pytest

from engine.bots import bot_names, make_bot
from engine.bots.nineteen23_bots import beat_chance
from engine.cards import RANKS, STANDARD_SUITS, build_deck
from engine.games import nineteen23 as g
from engine.runner import play_game

FULL_DECK = build_deck(STANDARD_SUITS, RANKS)
#: The chance that a bot no better than ``random`` reaches the asserted win count.
LUCK = 1e-6


def counter(seat: int = 0, players: int = 2, seed: int = 0) -> Any:
    return make_bot("counter", game="1923", seat=seat, players=players, options={}, seed=seed)


def view(hand: Sequence[str], revealed: Sequence[str] = (), deck: int = 40, **extra: Any) -> dict[str, Any]:
    state = g.new_state(g.parse_options({}, 2), 2, 0)
    return {**g.observation(state, 0), "hand": tuple(hand), "revealed": tuple(revealed), "deck": deck, **extra}


def wins_needed(games: int) -> int:
    """The fewest outright wins that a coin-flip player reaches with probability below ``LUCK``.

    Against ``random`` with seats alternating, a bot no better than random wins
    outright at most half the time (shared wins count for neither), so the
    binomial tail with p = 1/2 bounds its chance of reaching this count.
    """
    tail = 0
    for wins in range(games, -1, -1):
        tail += comb(games, wins)
        if tail / 2**games >= LUCK:
            return wins + 1
    return 0  # pragma: no cover - LUCK is below one


def test_counter_is_registered_for_1923() -> None:
    assert "counter" in bot_names("1923") and "random" in bot_names("1923")


def test_counter_locks_when_lock_is_the_only_legal_action() -> None:
    assert counter().act(view(["2C"], deck=0), [g.LOCK]) == g.LOCK


def test_counter_draws_from_a_low_known_card_and_locks_on_a_known_20() -> None:
    bot = counter()
    assert bot.act(view(["2C"]), [g.DRAW, g.LOCK]) == g.DRAW
    assert bot.act(view(["TC", "JC"]), [g.DRAW, g.LOCK]) == g.LOCK


def test_counter_counts_cards_a_9_locks_when_only_tens_are_unseen_and_draws_when_only_small_ones_are() -> None:
    tens_unseen = [c for c in FULL_DECK if c[0] not in "TJQK" and c != "9C"]
    assert counter().act(view(["9C"], tens_unseen), [g.DRAW, g.LOCK]) == g.LOCK
    small_unseen = [c for c in FULL_DECK if c[0] not in "23" and c != "9C"]
    assert counter().act(view(["9C"], small_unseen), [g.DRAW, g.LOCK]) == g.DRAW


def test_counter_starts_counting_afresh_in_a_new_set() -> None:
    bot = counter()
    tens_unseen = [c for c in FULL_DECK if c[0] not in "TJQK" and c != "9C"]
    assert bot.act(view(["9C"], tens_unseen, set=1), [g.DRAW, g.LOCK]) == g.LOCK
    # Set 2 has revealed nothing yet: a 9 with a fresh deck is worth a draw.
    assert bot.act(view(["9C"], [], set=2), [g.DRAW, g.LOCK]) == g.DRAW


def test_beat_chance_rises_with_the_rank() -> None:
    chances = [beat_chance(g.rank_key(v)) for v in (12, 15, 18, 19, 21, 23)]
    assert chances == sorted(chances) and chances[0] < 0.2 < 0.8 < chances[-1]


@pytest.mark.parametrize(("mode", "games"), [("set", 240), ("match", 60)])
def test_counter_beats_random_beyond_luck(mode: str, games: int) -> None:
    wins = 0
    for index in range(games):
        seat = index % 2
        agents = [
            make_bot("counter" if s == seat else "random", game="1923", seat=s, players=2, options={}, seed=index)
            for s in range(2)
        ]
        record = play_game("1923", agents=agents, seed=index, options={"mode": mode})
        assert record.result is not None
        wins += record.result["winners"] == [seat]
    assert wins >= wins_needed(games)


def test_wins_needed_is_a_binomial_tail_bound() -> None:
    needed = wins_needed(40)
    assert sum(comb(40, k) for k in range(needed, 41)) / 2**40 < LUCK
    assert sum(comb(40, k) for k in range(needed - 1, 41)) / 2**40 >= LUCK
