"""Punk strategy bots (RULES.md, "Punk").

``tracker`` counts the cards it has seen (its hand and every revealed trick)
to know, per rank, how many copies the other seats still hold between them.
Treating the other seats' cards for this trick as a uniform sample of those
unseen cards (exact when they play at random, as the dummy does), it computes
exactly, for each rank in its hand, the chance that the rank is the lowest one
played exactly once, and the chance that another seat wins with each rank.
It then plays the card with the best expected change in its standing (see
:func:`standing`): points count more as the target nears, reaching it first is
worth most, and a rival's gain counts against it.

A limit worth knowing: against opponents who all play uniformly at random, no
strategy changes the distribution of the final scores. Their remaining cards
fill the remaining tricks uniformly at random whatever we do, so any order of
our cards meets an equally likely arrangement of theirs. With the default
target, which one deal almost never reaches, every bot therefore wins exactly
as often as ``random`` does against ``random``; a bot can only gain in the race
to a reachable target, or against opponents who do not play at random. The
tests show both the limit and the race.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from math import comb
from typing import Any

from engine.bots.context import BotContext, BotFactory
from engine.games.punk import POINTS, top_rank


@dataclass(frozen=True)
class TrickOdds:
    """How one trick goes if we play a card of a given rank."""

    #: The chance our card is the lowest rank played exactly once.
    win: float
    #: ``rank -> chance`` that another seat wins the trick with a card of that rank.
    others: dict[int, float]


def unseen_ranks(observation: dict[str, Any]) -> list[int]:
    """``unseen[rank]``: copies the other seats still hold between them (index 0 unused)."""
    players = observation["players"]
    unseen = [players] * (top_rank(players) + 1)
    unseen[0] = 0
    for card in observation["hand"]:
        unseen[POINTS[card]] -= 1
    for trick in observation["tricks"]:
        for card in trick:
            unseen[POINTS[card]] -= 1
    return unseen


def trick_odds(unseen: list[int], draws: int, ranks: set[int]) -> dict[int, TrickOdds]:
    """The odds of the trick for each of our ``ranks`` when the others play ``draws`` unseen cards.

    The others' cards are a uniform sample without replacement, so each count
    is a sum over how many copies of every rank they play: a multivariate
    hypergeometric sum, taken rank by rank from the lowest. RULES.md "A trick":
    rank ``s`` wins when it is played exactly once and every lower rank is
    played by nobody or by two or more.
    """
    top = len(unseen) - 1
    samples = comb(sum(unseen), draws)
    at_or_above = [0] * (top + 2)
    for rank in range(top, 0, -1):
        at_or_above[rank] = at_or_above[rank + 1] + unseen[rank]
    # clear[j]: ways the others play j cards of the ranks scanned so far with no rank played once.
    clear = [1] + [0] * draws
    # The others win with a rank below ours the same way whatever our rank is.
    lower_wins: dict[int, int] = {}
    odds = {}
    for rank in range(1, top + 1):
        copies = unseen[rank]
        if rank in ranks:
            ours = _ways_to_finish(clear, at_or_above[rank + 1], draws)
            others = dict(lower_wins)
            others.update(_higher_wins(_fold(clear, copies, draws, 1), unseen, at_or_above, rank, draws))
            odds[rank] = TrickOdds(win=ours / samples, others={s: ways / samples for s, ways in others.items() if ways})
        if copies:
            lower_wins[rank] = copies * _ways_to_finish(clear, at_or_above[rank + 1], draws - 1)
        clear = _fold(clear, copies, draws, 2, keep_none=True)
    return odds


def _higher_wins(clear: list[int], unseen: list[int], at_or_above: list[int], ours: int, draws: int) -> dict[int, int]:
    """Ways another seat wins with a rank above ours, given ``clear`` already covers our rank."""
    wins = {}
    for rank in range(ours + 1, len(unseen)):
        copies = unseen[rank]
        if copies:
            wins[rank] = copies * _ways_to_finish(clear, at_or_above[rank + 1], draws - 1)
        clear = _fold(clear, copies, draws, 2, keep_none=True)
    return wins


def _ways_to_finish(clear: list[int], free: int, remaining: int) -> int:
    """Ways to complete ``remaining`` draws: ``j`` as ``clear`` counts them, the rest from ``free`` cards."""
    return sum(clear[j] * comb(free, remaining - j) for j in range(remaining + 1) if clear[j])


def _fold(clear: list[int], copies: int, draws: int, least: int, *, keep_none: bool = False) -> list[int]:
    """Add one rank of ``copies`` cards, drawing none of it (if ``keep_none``) or ``least`` or more."""
    folded = clear[:] if keep_none else [0] * (draws + 1)
    for taken in range(least, min(copies, draws) + 1):
        ways = comb(copies, taken)
        for j in range(draws - taken + 1):
            if clear[j]:
                folded[j + taken] += clear[j] * ways
    return folded


def standing(score: int, target: int, race_open: bool) -> float:
    """What a score is worth to a person: reaching the target first wins outright (RULES.md "Winning").

    Below the target a point is worth more the nearer the target it takes
    them, hence the square; the whole climb is worth half of winning the race.
    """
    if race_open and score >= target:
        return 1.0
    share = min(score, target) / target
    return share * share / 2


class TrackerBot:
    """Plays the card whose trick odds most improve its standing against its rivals'."""

    def __init__(self, context: BotContext) -> None:
        self._seat = context.seat

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        if len(legal_actions) == 1:
            return legal_actions[0]
        others = observation["players"] - 1
        odds = trick_odds(unseen_ranks(observation), others, {POINTS[card] for card in legal_actions})
        gain = self._gain_function(observation, others)
        return max(legal_actions, key=lambda card: gain(POINTS[card], odds[POINTS[card]]))

    def _gain_function(self, observation: dict[str, Any], others: int) -> Callable[[int, TrickOdds], float]:
        scores, target, dummy = observation["scores"], observation["target"], observation["dummy"]
        # RULES.md "dummy": only people win, so the dummy's points neither help nor threaten anyone.
        rivals = [seat for seat in range(len(scores)) if seat not in (self._seat, dummy)]
        race_open = all(score < target for seat, score in enumerate(scores) if seat != dummy)
        mine = scores[self._seat]

        def step(score: int, points: int) -> float:
            return standing(score + points, target, race_open) - standing(score, target, race_open)

        def gain(rank: int, trick: TrickOdds) -> float:
            # Each other seat is equally likely to hold the winning card. Plain loops, never sum():
            # Python 3.12 made float sum() compensated, and records must match across versions.
            loss = 0.0
            for points, chance in trick.others.items():
                rivals_gain = 0.0
                for rival in rivals:
                    rivals_gain += step(scores[rival], points)
                loss += chance * rivals_gain
            return trick.win * step(mine, rank) - loss / others

        return gain


BOTS: dict[str, BotFactory] = {"tracker": TrackerBot}
