"""1923 strategy bots (RULES.md, "1923").

``counter`` counts cards. The cards it has not seen are the set's full decks
minus every card revealed to all so far in the set and minus its own known
cards; its unknown left card and every future draw are treated as uniform
picks from them (with replacement: a few draws from dozens of cards barely
move the odds).

A hand is judged by the chance that it beats each opponent, each opponent's
final hand taken as a reference hand (see :func:`reference_keys`). LOCK keeps
the known cards plus the unknown left card; DRAW reveals that card and adds a
new unknown one, after which the bot will choose again. The bot compares the
two by dynamic programming over the value of the next few cards.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from engine.bots.context import BotContext, BotFactory
from engine.games.nineteen23 import DRAW, LOCK, best_value, rank_key

#: Blackjack values with the Ace as 1; an Ace is value 1 here and counted apart.
_VALUE = {rank: min(index + 1, 10) for index, rank in enumerate("A23456789TJQK")}
#: Copies of each value (1..10) in one 52-card deck.
_PER_DECK = [0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 16]
#: Draws the plan looks ahead: this one and one more. Looking three ahead won the same number
#: of a thousand seeded sets against ``random`` and took two to three times as long.
_HORIZON = 2
#: A hand whose low total passes 23 only gets further from the range with every card.
_BUST = 23
#: The reference hand: two cards, and a third when the two make less than this.
_REFERENCE_DRAW_BELOW = 13


@cache
def _best_value(low: int, aces: int) -> int:
    return best_value(low, aces)


def _one_deck_odds() -> list[float]:
    return [n / 52 for n in _PER_DECK]


@cache
def reference_keys() -> dict[int, float]:
    """The rank keys of a plausible opponent's final hand and their chances.

    Two cards from a fresh deck, plus a third when they make less than
    ``_REFERENCE_DRAW_BELOW`` (Aces counted the best way): a middle ground
    between a player who locks at once and one who chases the range.
    """
    odds = _one_deck_odds()
    keys: dict[int, float] = {}
    for first in range(1, 11):
        for second in range(1, 11):
            p = odds[first] * odds[second]
            low = first + second
            aces = (first == 1) + (second == 1)
            if _best_value(low, aces) >= _REFERENCE_DRAW_BELOW:
                _add(keys, rank_key(_best_value(low, aces)), p)
                continue
            for third in range(1, 11):
                value = _best_value(low + third, aces + (third == 1))
                _add(keys, rank_key(value), p * odds[third])
    return keys


def _add(table: dict[int, float], key: int, p: float) -> None:
    table[key] = table.get(key, 0.0) + p


# Float sums here are plain loops in a fixed order, never ``sum()`` (compensated from Python 3.12
# on) or ``**`` (the platform's pow): the bot then decides alike on every supported Python.


@cache
def beat_chance(key: int) -> float:
    """The chance that a hand of rank ``key`` beats one reference hand, ties counting half."""
    chance = 0.0
    for other, p in sorted(reference_keys().items()):
        if other < key:
            chance += p
        elif other == key:
            chance += p / 2
    return chance


@cache
def hand_worth(low: int, aces: int, opponents: int) -> float:
    """A final hand's chance of beating every opponent, taken as independent reference hands."""
    one = beat_chance(rank_key(_best_value(low, aces)))
    worth = 1.0
    for _ in range(opponents):
        worth *= one
    return worth


class CounterBot:
    """DRAW or LOCK by the expected chance of beating every opponent, over the unseen cards."""

    def __init__(self, context: BotContext) -> None:
        self._set = -1
        self._counted = 0
        self._revealed = [0] * 11

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        if DRAW not in legal_actions:
            return LOCK
        odds = self._unseen_odds(observation)
        if odds is None:
            return LOCK
        low = 0
        aces = 0
        for card in observation["hand"]:
            value = _VALUE[card[0]]
            low += value
            aces += value == 1
        opponents = observation["players"] - 1
        horizon = min(_HORIZON, observation["deck"])
        plan = _Plan(odds, opponents)
        return DRAW if plan.draw(low, aces, horizon) > plan.lock(low, aces) else LOCK

    def _unseen_odds(self, observation: dict[str, Any]) -> list[float] | None:
        """The chance that an unseen card has each value 1..10, or None if nothing is unseen."""
        revealed = observation["revealed"]
        if observation["set"] != self._set or len(revealed) < self._counted:
            self._set = observation["set"]
            self._counted = 0
            self._revealed = [0] * 11
        counts = self._revealed
        for card in revealed[self._counted :]:
            counts[_VALUE[card[0]]] += 1
        self._counted = len(revealed)
        decks = observation["decks"]
        unseen = [decks * n - seen for n, seen in zip(_PER_DECK, counts, strict=True)]
        for card in observation["hand"]:
            unseen[_VALUE[card[0]]] -= 1
        total = sum(unseen)  # whole numbers: exact
        if total <= 0:
            return None
        return [max(n, 0) / total for n in unseen]


class _Plan:
    """The expected worth of locking or drawing from a hand's low total and Ace count."""

    def __init__(self, odds: list[float], opponents: int) -> None:
        self._odds = [(value, p) for value, p in enumerate(odds) if p > 0]
        self._opponents = opponents
        self._memo: dict[tuple[int, int, int], float] = {}

    def lock(self, low: int, aces: int) -> float:
        """Keep the known cards and take the unknown left card as it comes."""
        key = (low, aces, 0)
        cached = self._memo.get(key)
        if cached is None:
            opponents = self._opponents
            cached = 0.0
            for value, p in self._odds:
                cached += p * hand_worth(low + value, aces + (value == 1), opponents)
            self._memo[key] = cached
        return cached

    def draw(self, low: int, aces: int, horizon: int) -> float:
        """See the left card, then lock or draw again, whichever is worth more."""
        key = (low, aces, horizon)
        cached = self._memo.get(key)
        if cached is not None:
            return cached
        total = 0.0
        for value, p in self._odds:
            next_low, next_aces = low + value, aces + (value == 1)
            best = self.lock(next_low, next_aces)
            if horizon > 1 and next_low < _BUST:
                best = max(best, self.draw(next_low, next_aces, horizon - 1))
            total += p * best
        self._memo[key] = total
        return total


BOTS: dict[str, BotFactory] = {"counter": CounterBot}
