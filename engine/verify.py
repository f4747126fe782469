"""Replay a record: confirm its stated result or name the first step that breaks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.errors import EngineError
from engine.games import Game, get_game
from engine.record import Record
from engine.runner import check_players, final_result


@dataclass(frozen=True)
class Verdict:
    ok: bool
    reason: str = ""
    #: The index of the first step that breaks, when a step is to blame.
    step: int | None = None

    def __str__(self) -> str:
        if self.ok:
            return "valid"
        return f"step {self.step}: {self.reason}" if self.step is not None else self.reason


class ReplayError(EngineError):
    def __init__(self, reason: str, step: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.step = step


def replay(record: Record, *, on_step: Any = None) -> tuple[Game, Any]:
    """Rebuild the final state from a record, checking every step; raise :class:`ReplayError`.

    ``on_step(state)`` is called after the start and after every step (public views use it).
    """
    try:
        game = get_game(record.game)
        check_players(game, record.players)
        options = game.parse_options(record.options, record.players)
        if options != record.options:
            raise ReplayError("options: the record must list every option of its ruleset")
        deal = None if record.deal is None else game.parse_deal(record.deal, options, record.players)
    except ReplayError:
        raise
    except EngineError as exc:
        raise ReplayError(str(exc)) from None
    auto = game.auto_seats(options, record.players)
    state = game.new_state(options, record.players, record.seed, deal)
    if on_step is not None:
        on_step(state)
    for index, step in enumerate(record.actions):
        if game.is_over(state):
            raise ReplayError("the game was already over", index)
        seats = game.to_act(state)
        if len(step) != len(seats):
            raise ReplayError(f"expected actions for seats {list(seats)}, got {len(step)} action(s)", index)
        for seat, action in zip(seats, step, strict=True):
            if seat in auto:
                expected = game.auto_action(state, seat)
                if action != expected:
                    raise ReplayError(f"seat {seat} is the engine's: it plays {expected!r}, not {action!r}", index)
        try:
            game.apply(state, dict(zip(seats, step, strict=True)))
        except EngineError as exc:
            # An illegal action, or a deal that cannot serve this step (a listed Banter reshuffle
            # that is not an order of the discard pile): either way this step is where it breaks.
            raise ReplayError(str(exc), index) from None
        if on_step is not None:
            on_step(state)
    return game, state


def verify(record: Record) -> Verdict:
    """Replay ``record`` and compare the outcome with the one it states."""
    try:
        game, state = replay(record)
    except ReplayError as exc:
        return Verdict(False, exc.reason, exc.step)
    end = len(record.actions)
    forfeit = record.forfeit
    if forfeit is not None:
        if game.is_over(state):
            return Verdict(False, f"forfeit: the game was already over after step {end - 1}")
        if forfeit.move != end:
            return Verdict(False, f"forfeit: move {forfeit.move} does not match the {end} recorded steps")
        if forfeit.seat not in game.to_act(state) or forfeit.seat in game.auto_seats(record.options, record.players):
            return Verdict(False, f"forfeit: seat {forfeit.seat} had no decision to make at move {end}")
    elif not game.is_over(state):
        return Verdict(False, f"the record ends after step {end - 1} but the game is not over", end)
    computed = final_result(game, state, forfeit, game.auto_seats(record.options, record.players)).to_json()
    if record.result != computed:
        return Verdict(False, "result: " + _difference(record.result, computed))
    return Verdict(True)


def _difference(stated: dict[str, Any] | None, computed: dict[str, Any]) -> str:
    if stated is None:
        return "the record states no result"
    for key in sorted(set(stated) | set(computed)):
        if stated.get(key) != computed.get(key):
            return f"stated {key} {stated.get(key)!r}, replay gives {computed.get(key)!r}"
    return "differs"  # pragma: no cover - unreachable when the dicts differ


def public_record(record: Record) -> dict[str, Any]:
    """What anyone may see: no seed and no deal, and after every step the spectator's view.

    The seed alone would reveal every private card, so it goes; the views show
    cards only once play has revealed them (each game's ``observation(state, None)``).
    """
    views: list[dict[str, Any]] = []
    game = get_game(record.game)
    replay(record, on_step=lambda state: views.append(game.observation(state, None)))
    data = record.to_dict()
    del data["seed"], data["deal"]
    # The salt goes with the seed: without it the salt proves nothing, and this view is only what play showed.
    data.pop("salt", None)
    data["views"] = views
    return data
