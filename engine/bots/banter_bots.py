"""Banter strategy bots (RULES.md, "Banter").

``upgrader`` plays the way a sensible person would:

* **Upgrades.** A SPEND costs a card this round (the Heart leaves the hand and
  the bin takes one more) but improves the Active 13 for every later round, so
  it pays early and stops paying near 40. The bot spends its lowest Heart when
  the expected gain (the average improvement a deck card gives over the
  weakest card in hand, times the number of times that card will be drawn
  before the race ends) beats the cost of the card, and a high Heart is worth
  more as a trump this round than what it buys.
* **Bins.** The weakest card goes: the lowest non-Heart, so 2s and 3s first;
  Hearts, being trumps, last.
* **Tricks.** Following, it wins as cheaply as it can (the lowest card that
  wins; a drawn trick still scores), and otherwise throws its weakest card.
  Leading, it leads the card most likely to win when that is likely enough,
  judged from the cards the opponent cannot hold (its bins, its spent Hearts
  and the cards it has played this round), and otherwise gives the lead away
  with its weakest card.
"""

from __future__ import annotations

from typing import Any

from engine.bots.context import BotContext, BotFactory
from engine.cards import standard_deck
from engine.games.banter import TARGET, TRUMPS, VALUE, trick_winner

#: A Heart outranks every other card for keeping and leading: it is a trump.
_TRUMP_BONUS = 13
_STRENGTH = {card: VALUE[card] + (_TRUMP_BONUS if card[1] == TRUMPS else 0) for card in VALUE}
_ALL_CARDS = tuple(standard_deck())
_HAND_SIZE = 5
_ACTIVE_SIZE = 13


def strength(card: str) -> int:
    """How much a card is worth keeping: its rank, with every Heart above every other suit."""
    return _STRENGTH[card]


def weakest(cards: list[str] | tuple[str, ...]) -> str:
    return min(cards, key=_STRENGTH.__getitem__)


class UpgraderBot:
    """Upgrades early, bins the weakest card, wins tricks as cheaply as it can."""

    def __init__(
        self,
        context: BotContext,
        *,
        pace: float = 2.6,
        gain_per_rank: float = 0.15,
        spend_cost: float = 0.9,
        lead_threshold: float = 0.5,
    ) -> None:
        self._seat = context.seat
        #: Points a player scores in an average round: how fast the race to 40 runs.
        self._pace = pace
        #: Extra tricks a card wins per rank of strength, each time it is in hand.
        self._gain_per_rank = gain_per_rank
        #: Points an upgrade costs this round: one card fewer to win tricks with.
        self._spend_cost = spend_cost
        #: The chance of winning that makes a card worth leading.
        self._lead_threshold = lead_threshold

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        if len(legal_actions) == 1:
            return legal_actions[0]
        phase = observation["phase"]
        if phase == "upgrade":
            return self._upgrade(observation, legal_actions)
        if phase == "bin":
            return "BIN " + weakest(observation["hand"])
        if observation["led"] is None:
            return "PLAY " + self._lead(observation, [a[5:] for a in legal_actions])
        return "PLAY " + self._follow(observation, [a[5:] for a in legal_actions])

    # --- upgrades ---------------------------------------------------------------------------

    def _upgrade(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        hearts = [action[6:] for action in legal_actions if action != "STOP"]
        heart = min(hearts, key=_STRENGTH.__getitem__)
        if self._upgrade_pays(observation, heart):
            return "SPEND " + heart
        return "STOP"

    def _upgrade_pays(self, observation: dict[str, Any], heart: str) -> bool:
        hand = [card for card in observation["hand"] if card != heart]
        deck = observation["deck"]
        if not deck or not hand:
            # With nothing else in hand, the bin would have to take the card just bought.
            return False
        # The bin takes the weaker of the bought card and the hand's weakest card.
        floor = strength(weakest(hand))
        improvement = sum(max(0, strength(card) - floor) for card in deck) / len(deck)
        rounds_left = (TARGET - max(observation["scores"])) / self._pace
        draws_left = rounds_left * _HAND_SIZE / _ACTIVE_SIZE
        gain = improvement * self._gain_per_rank * draws_left
        # A high Heart wins a trick this round almost surely: spending it costs that trick too.
        cost: float = self._spend_cost + VALUE[heart] / 14
        return bool(gain > cost)

    # --- tricks -----------------------------------------------------------------------------

    def _follow(self, observation: dict[str, Any], cards: list[str]) -> str:
        led: str = observation["led"]
        leader: int = observation["trick_leader"]
        winners = [card for card in cards if trick_winner(leader, led, card) == self._seat]
        if winners:
            return weakest(winners)
        if led in cards:
            # A drawn trick scores for both of us: better than losing it.
            return led
        return weakest(cards)

    def _lead(self, observation: dict[str, Any], cards: list[str]) -> str:
        opponent = 1 - self._seat
        held = observation["hand_sizes"][opponent]
        unseen = _opponent_unseen(observation, opponent)
        best = max(cards, key=lambda card: (_lead_win_chance(card, unseen, held), _STRENGTH[card]))
        if _lead_win_chance(best, unseen, held) >= self._lead_threshold:
            return best
        return weakest(cards)


def _opponent_unseen(observation: dict[str, Any], opponent: int) -> list[str]:
    """The cards of the opponent's own deck that could be in its hand, as far as we can tell."""
    gone = set(observation["bins"][opponent]) | set(observation["spent"][opponent])
    position = 1 + opponent
    for trick in observation["tricks"]:
        gone.add(trick[position])
    return [card for card in _ALL_CARDS if card not in gone]


def _lead_win_chance(card: str, unseen: list[str], held: int) -> float:
    """The chance that leading ``card`` wins, if the opponent holds ``held`` cards drawn from ``unseen``.

    The opponent beats the lead with a higher card of its suit, or, holding none
    of the suit, with a Heart. Each of its cards is treated as an independent
    draw from ``unseen``: a rough figure, but it orders the leads sensibly.
    """
    total = len(unseen)
    if total == 0 or held == 0:
        return 1.0
    suit = card[1]
    value = VALUE[card]
    same_suit = sum(1 for c in unseen if c[1] == suit)
    higher = sum(1 for c in unseen if c[1] == suit and VALUE[c] > value)
    no_higher = _power(1 - higher / total, held)
    if suit == TRUMPS:
        return no_higher
    hearts = sum(1 for c in unseen if c[1] == TRUMPS)
    void_with_heart = _power(1 - same_suit / total, held) - _power(1 - (same_suit + hearts) / total, held)
    return max(0.0, no_higher - void_with_heart)


def _power(base: float, exponent: int) -> float:
    """``base ** exponent`` by repeated multiplication: IEEE products are the same on every
    machine, where the C library's ``pow`` may differ in the last bit, and a bot's choices
    must replay identically (RULES.md "Determinism")."""
    product = 1.0
    for _ in range(exponent):
        product *= base
    return product


BOTS: dict[str, BotFactory] = {"upgrader": UpgraderBot}
