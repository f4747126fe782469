"""A finished game's decisions from one seat's point of view: training data (docs/training-data.md).

The record is replayed step by step, checked as :func:`engine.verify.verify` checks it, and before
each step the seat takes part in, the seat's view is taken from the game's own
``observation(state, seat)``: what the seat saw when it decided, never the record's hidden parts
(the seed, the deal, another seat's cards). The view is copied out as JSON gives it, the form the bot
protocol sends it in, so nothing the game changes later can reach it.

War asks no seat anything (``DECISIONS`` is false): its games yield no decisions. A seat the engine
plays (Punk's dummy) yields none either, and a seat's forfeited decision is not one: the record holds
no action for it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from engine.errors import EngineError
from engine.games import get_game
from engine.record import Record
from engine.result import ranks_from_keys, score_rates
from engine.verify import ReplayError, apply_step, checked_step, end_verdict, start_replay


@dataclass(frozen=True)
class Decision:
    #: The index of the record's step this decision belongs to.
    step: int
    #: The seat's own decisions in this game counted from 0, as the bot protocol's ``decision`` counts them.
    number: int
    seat: int
    #: ``observation(state, seat)`` when the seat decided, as JSON: lists where the game keeps tuples.
    observation: dict[str, Any]
    legal_actions: list[str]
    action: str


@dataclass(frozen=True)
class SeatOutcome:
    """How a game ended for one seat, among the people at the table (engine seats left out, as a match
    scores them: engine/match.py)."""

    seat: int
    #: 1 first; seats sharing a place share the number.
    rank: int
    #: The people at the table: the seats the engine does not play.
    players: int
    #: The pairwise score rate of the seat's place (DESIGN.md, "Match points"): 1 a win, ½ a draw between two.
    score_rate: Fraction
    #: The game's own score for the seat (its ``result().scores``: cards, points, ...).
    score: int
    #: Whether this seat forfeited the game.
    forfeited: bool


class DecisionError(EngineError):
    """The seat asked for is not one of the record's."""


def seat_decisions(record: Record, seat: int) -> Iterator[Decision]:
    """Every decision ``seat`` made in the game, in order; :class:`ReplayError` where the record breaks.

    Lazy: one step at a time, so a long game's decisions are never held whole. A decision's view is
    taken before its step and given once the step has applied (a step the game refuses gives none).
    Once the last step is replayed, the end is checked as ``verify`` checks it, so a record whose stated
    end or result the replay does not give raises rather than end quietly.
    """
    _check_seat(record, seat)
    game, state, auto = start_replay(record)
    if seat in auto:
        return
    observation, legal_actions = game.observation, game.legal_actions
    number = 0
    for index, step in enumerate(record.actions):
        actions = checked_step(game, state, auto, index, step)
        action = actions.get(seat)
        if action is None:
            apply_step(game, state, index, actions)
            continue
        # Taken before the step, given once the step has applied: a decision is never one the step refuses.
        decision = Decision(
            step=index,
            number=number,
            seat=seat,
            observation=_as_sent(observation(state, seat)),
            legal_actions=list(legal_actions(state, seat)),
            action=action,
        )
        apply_step(game, state, index, actions)
        yield decision
        number += 1
    verdict = end_verdict(game, state, record)
    if not verdict.ok:
        raise ReplayError(verdict.reason, verdict.step)


def seat_outcome(record: Record, seat: int) -> SeatOutcome:
    """The record's stated result as ``seat`` met it (``verify`` and :func:`seat_decisions` check it)."""
    _check_seat(record, seat)
    result = record.result
    if result is None:
        raise ReplayError("the record states no result")
    ranks: list[int] = result["ranks"]
    engine_seats = get_game(record.game).auto_seats(record.options, record.players)
    people = [other for other in range(record.players) if other not in engine_seats]
    if seat not in people:
        raise DecisionError(f"seat {seat} is played by the engine")
    people_ranks = ranks_from_keys([-ranks[other] for other in people])
    at = people.index(seat)
    forfeit = result.get("forfeit")
    return SeatOutcome(
        seat=seat,
        rank=people_ranks[at],
        players=len(people),
        score_rate=score_rates(people_ranks)[at] if len(people) > 1 else Fraction(1),
        score=int(result["scores"][seat]),
        forfeited=isinstance(forfeit, dict) and forfeit.get("seat") == seat,
    )


def _check_seat(record: Record, seat: int) -> None:
    if not 0 <= seat < record.players:
        raise DecisionError(f"seat {seat} is not one of the record's {record.players} seats")


def _as_sent(view: dict[str, Any]) -> dict[str, Any]:
    # A JSON round trip: the bot protocol's form (docs/bot-protocol.md), and a copy no later step touches.
    copied: dict[str, Any] = json.loads(json.dumps(view, separators=(",", ":")))
    return copied
