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
    game, state, auto = start_replay(record)
    if on_step is not None:
        on_step(state)
    for index, step in enumerate(record.actions):
        apply_step(game, state, index, checked_step(game, state, auto, index, step))
        if on_step is not None:
            on_step(state)
    return game, state


def start_replay(record: Record) -> tuple[Game, Any, frozenset[int]]:
    """The record's game, its start state and the seats the engine plays; :class:`ReplayError` if the
    record's game, seats, options or deal are not ones the engine plays."""
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
    return game, game.new_state(options, record.players, record.seed, deal), game.auto_seats(options, record.players)


def checked_step(game: Game, state: Any, auto: frozenset[int], index: int, step: list[str]) -> dict[int, str]:
    """Step ``index``'s actions by seat, once they fit the state: the right seats, the engine's own
    seats playing what the engine plays. Whether each is legal is for :func:`apply_step`."""
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
    return dict(zip(seats, step, strict=True))


def apply_step(game: Game, state: Any, index: int, actions: dict[int, str]) -> None:
    try:
        game.apply(state, actions)
    except EngineError as exc:
        # An illegal action, or a deal that cannot serve this step (a listed Banter reshuffle
        # that is not an order of the discard pile): either way this step is where it breaks.
        raise ReplayError(str(exc), index) from None


def verify(record: Record) -> Verdict:
    """Replay ``record`` and compare the outcome with the one it states."""
    try:
        game, state = replay(record)
    except ReplayError as exc:
        return Verdict(False, exc.reason, exc.step)
    return end_verdict(game, state, record)


def end_verdict(game: Game, state: Any, record: Record) -> Verdict:
    """Whether the state the record's steps led to is where the record says it ended, with its result."""
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
    """What anyone may see: no seed and no deal, and the spectator's view after the start and every step.

    The seed alone would reveal every private card, so it goes; the views show
    cards only once play has revealed them (each game's ``observation(state, None)``).
    ``views`` is ``{"start": the whole view, "steps": [what each step changed]}`` (see
    :func:`view_change`, docs/records.md "Public views"): a whole view per step would repeat
    everything shown so far at every step, which grows with the square of the game's length.
    """
    game = get_game(record.game)
    start: dict[str, Any] = {}
    steps: list[dict[str, Any]] = []
    before: dict[str, Any] | None = None

    def on_step(state: Any) -> None:
        nonlocal before
        view = game.observation(state, None)
        if before is None:
            if any(key.endswith(APPEND) for key in view):
                raise ValueError(f"a spectator view's key may not end with {APPEND!r}: {sorted(view)}")
            start.update(view)
        else:
            steps.append(view_change(before, view))
        before = view

    replay(record, on_step=on_step)
    data = record.to_dict()
    del data["seed"], data["deal"]
    # The salt goes with the seed: without it the salt proves nothing, and this view is only what play showed.
    data.pop("salt", None)
    data["views"] = {"start": start, "steps": steps}
    return data


#: Ends a key of a step's change whose value is what was added at the end of that key's list.
APPEND = "+"


def view_change(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What one step changed in the spectator's view: ``{key: new value}`` for each key whose value
    changed, but ``{key + "+": [items]}`` for a list that only grew at its end.

    Spectator views keep the same keys from start to end (every game's ``observation`` does),
    so a change never removes one.
    """
    change: dict[str, Any] = {}
    for key, new in after.items():
        old = before.get(key, _ABSENT)
        if new is old or _same(new, old):
            continue
        grown = isinstance(new, list | tuple) and isinstance(old, list | tuple) and len(old) < len(new)
        if grown and _same(new[: len(old)], old):
            change[key + APPEND] = new[len(old) :]
        else:
            change[key] = new
    dropped = before.keys() - after.keys()
    if dropped:
        raise ValueError(f"a spectator view dropped keys: {sorted(dropped)}")
    return change


def expand_views(views: dict[str, Any]) -> list[dict[str, Any]]:
    """Every whole spectator view, after the start and after each step, from a public record's ``views``.

    For clients and tests: the list is as long as the game (and its views as large as the old format's).
    """
    view = dict(views["start"])
    expanded = [view]
    for change in views["steps"]:
        view = dict(view)
        for key, value in change.items():
            if key.endswith(APPEND):
                view[key[: -len(APPEND)]] = [*view[key[: -len(APPEND)]], *value]
            else:
                view[key] = value
        expanded.append(view)
    return expanded


_ABSENT = object()


def _same(a: object, b: object) -> bool:
    """Equal as JSON: tuples and lists alike, but ``True`` is not ``1`` (as ``==`` would have it)."""
    if a is b:
        return True
    if isinstance(a, list | tuple):
        if not isinstance(b, list | tuple) or len(a) != len(b):
            return False
        # Lists of cards, compared by C code: text equals only text, so nothing else need be looked at.
        if type(a) is type(b) and set(map(type, a)) <= {str}:
            return a == b
        return all(map(_same, a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(value, b[key]) for key, value in a.items())
    return type(a) is type(b) and a == b
