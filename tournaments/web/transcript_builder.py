"""A transcript built step by step, for people who played with real cards and have no record file.

The person enters the deal list by list (the game's profile says which lists: ``table_deal_parts``),
then picks each step's actions from the legal ones the engine offers. Nothing here knows a game: the
draft is replayed with the engine after every change (``engine.verify.replay``, the verifier's own
replay), so what it offers is what the verifier will accept, and a deck the game shuffles later (a
new set, a discard pile shuffled again) is asked for when the replay reaches it
(``unlisted_deal_part``). Steps in which no person decides (the engine's seats, or a game with no
decisions at all) are taken by the engine as the replay would take them.

A draft is plain JSON, so it can wait in the session between requests: a reload loses nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.cards import parse_card
from engine.errors import CardError, EngineError
from engine.games import Game, get_game, seats_for
from engine.games.profile import DealPart
from engine.match import seating_for
from engine.record import Record
from engine.runner import final_result
from engine.verify import ReplayError, replay

#: More steps than any game of the engine's takes without a person deciding (a safeguard, not a rule).
MAX_ENGINE_STEPS = 10_000
#: A seat nobody sits in, which the rules play (Punk's dummy), as the pages name it.
UNSEATED = "the dummy"


class DraftProblem(Exception):
    """What is wrong with the last change, in words for the person; the draft keeps its previous state."""


@dataclass(frozen=True)
class LaterPart:
    """A deck entered during play: where it goes, its cards, and how many steps the draft had then."""

    path: tuple[str | int, ...]
    cards: tuple[str, ...]
    at_step: int


@dataclass
class Draft:
    """The work in progress: the deal entered so far and every step, as the session keeps it."""

    game_number: int
    seed: int = 0
    #: The deal dealt before play, one (path, cards) per part; None until it is entered.
    start: list[tuple[tuple[str | int, ...], tuple[str, ...]]] | None = None
    later: list[LaterPart] = field(default_factory=list)
    actions: list[list[str]] = field(default_factory=list)
    #: Per step: True when the engine took it (no person decided), so undo passes over it.
    automatic: list[bool] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "game_number": self.game_number,
            "seed": self.seed,
            "start": None if self.start is None else [[list(path), list(cards)] for path, cards in self.start],
            "later": [[list(part.path), list(part.cards), part.at_step] for part in self.later],
            "actions": self.actions,
            "automatic": self.automatic,
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Draft:
        """A draft read back from the session; a KeyError, TypeError or ValueError if it is not one."""
        start = raw["start"]
        draft = cls(
            game_number=int(raw["game_number"]),
            seed=int(raw["seed"]),
            start=None if start is None else [(tuple(path), tuple(cards)) for path, cards in start],
            later=[LaterPart(tuple(path), tuple(cards), int(at)) for path, cards, at in raw["later"]],
            actions=[[str(action) for action in step] for step in raw["actions"]],
            automatic=[bool(flag) for flag in raw["automatic"]],
        )
        if len(draft.actions) != len(draft.automatic):
            raise ValueError("a draft marks every step as the engine's or a person's")
        return draft

    def deal(self) -> dict[str, Any]:
        """The deal as the record lists it, built from every part entered."""
        deal: dict[str, Any] = {}
        for path, cards in [*(self.start or []), *((part.path, part.cards) for part in self.later)]:
            _put(deal, path, list(cards))
        return deal


def _put(container: Any, path: Sequence[str | int], value: object) -> None:
    """Set ``value`` at ``path`` in nested objects and lists, making what is missing on the way."""
    *walk, last = path
    for key, following in zip(walk, path[1:], strict=True):
        empty: Any = [] if isinstance(following, int) else {}
        container = _slot(container, key, empty)
    _slot(container, last, value, replace=True)


def _slot(container: Any, key: str | int, value: Any, *, replace: bool = False) -> Any:
    if isinstance(key, int):
        while len(container) <= key:
            container.append(None)
        if replace or container[key] is None:
            container[key] = value
        return container[key]
    if replace or key not in container:
        container[key] = value
    return container[key]


# --- The table the draft is of ------------------------------------------------------------------


@dataclass(frozen=True)
class Table:
    """What the match fixes for one of its games: the game, its full ruleset, the seats and who sits where."""

    game_name: str
    options: dict[str, Any]
    players: int
    #: Per seat: the participant index sitting there in this game, or None for a seat the engine plays.
    seating: tuple[int | None, ...]
    names: tuple[str, ...]

    @property
    def game(self) -> Game:
        return get_game(self.game_name)

    def seat_name(self, seat: int) -> str:
        who = self.seating[seat] if 0 <= seat < len(self.seating) else None
        return UNSEATED if who is None else self.names[who]

    @property
    def seat_names(self) -> list[str]:
        return [self.seat_name(seat) for seat in range(self.players)]

    def start_parts(self) -> tuple[DealPart, ...]:
        return self.game.PROFILE.table_deal_parts(self.options, self.players)

    def takes_a_seed(self) -> bool:
        """Whether the engine draws anything for this table (its own seats' moves, or an option drawn from
        the seed), so the person says which number it drew with."""
        drawn = any(value == "seed" for value in self.options.values())
        return drawn or bool(self.game.auto_seats(self.options, self.players))

    def plain(self, reason: str) -> str:
        """An engine's reason with seats named by who sits there and steps counted from 1, as the page counts."""
        reason = re.sub(r"\bstep (\d+)\b", lambda m: f"move {int(m.group(1)) + 1}", reason)
        return re.sub(r"\bseat (\d+)\b", lambda m: self.seat_name(int(m.group(1))), reason)

    def part_label(self, part: DealPart) -> str:
        return part.label if part.seat is None else f"{self.seat_name(part.seat)}: {part.label}"


def table_for(*, game_name: str, options: Mapping[str, Any], names: Sequence[str], game_number: int) -> Table:
    """The table of game ``game_number`` of a match between ``names`` (the participants in seat order)."""
    game = get_game(game_name)
    players = seats_for(game, len(names), options)
    full = game.parse_options(options, players)
    return Table(
        game_name=game.NAME,
        options=full,
        players=players,
        seating=seating_for(game_number, len(names), players),
        names=tuple(names),
    )


# --- Where a draft stands -----------------------------------------------------------------------


@dataclass(frozen=True)
class Position:
    """The draft replayed: what to ask the person next."""

    #: The deck the last step shuffled and the deal does not list yet: asked for before play goes on.
    wanted: DealPart | None
    #: The seats a person decides for now, each with its legal actions (empty when the game is over).
    choices: dict[int, list[str]]
    #: What the engine's seats play in this step.
    engine_moves: dict[int, str]
    over: bool
    result: dict[str, Any] | None


def _record(table: Table, draft: Draft, actions: list[list[str]] | None = None) -> Record:
    return Record(
        game=table.game_name,
        players=table.players,
        options=table.options,
        seed=draft.seed,
        deal=draft.deal(),
        actions=list(draft.actions if actions is None else actions),
    )


def _replayed(table: Table, draft: Draft) -> Any:
    """The state after every step of the draft, or DraftProblem with the engine's reason in plain words."""
    game = table.game
    record = _record(table, draft)
    try:
        deal = game.parse_deal(record.deal, table.options, table.players)
    except EngineError as exc:
        raise DraftProblem(table.plain(_about_the_deal(str(exc)))) from None
    problem = game.PROFILE.table_deal_problem(deal, table.options, table.players)
    if problem:
        raise DraftProblem(table.plain(_about_the_deal(problem)))
    try:
        _, state = replay(record)
    except ReplayError as exc:
        reason = exc.reason if exc.step is None else f"step {exc.step}: {exc.reason}"
        raise DraftProblem(table.plain(reason)) from None
    return state


def _about_the_deal(reason: str) -> str:
    # Some games' reasons already start so ("deal: unexpected or duplicated 2C"); said once is enough.
    return reason if reason.startswith("deal") else f"deal: {reason}"


def advance(table: Table, draft: Draft) -> tuple[Draft, Position]:
    """Replay the draft, let the engine take every step no person decides, and say what comes next."""
    if draft.start is None:
        raise DraftProblem("enter the deal first")
    game = table.game
    engine_seats = game.auto_seats(table.options, table.players)
    state = _replayed(table, draft)
    for _ in range(MAX_ENGINE_STEPS):
        if game.is_over(state):
            result = final_result(game, state, None, engine_seats).to_json()
            return draft, Position(wanted=None, choices={}, engine_moves={}, over=True, result=result)
        wanted = game.PROFILE.unlisted_deal_part(state)
        if wanted is not None:
            return draft, Position(wanted=wanted, choices={}, engine_moves={}, over=False, result=None)
        seats = game.to_act(state)
        # On a copy: an engine seat's move draws from the state's generator, as the replay will draw again.
        ahead = state.copy()
        engine_moves = {seat: game.auto_action(ahead, seat) for seat in seats if seat in engine_seats}
        choices = {seat: game.legal_actions(state, seat) for seat in seats if seat not in engine_seats}
        if choices:
            return draft, Position(wanted=None, choices=choices, engine_moves=engine_moves, over=False, result=None)
        step = [engine_moves[seat] for seat in seats]
        for seat in seats:
            game.auto_action(state, seat)
        game.apply(state, dict(zip(seats, step, strict=True)))
        draft.actions.append(step)
        draft.automatic.append(True)
    raise DraftProblem("the engine played on for too long without asking anyone: send this game as a file")


def with_start(table: Table, draft: Draft, parts: Sequence[Sequence[str]], seed: int) -> Draft:
    """The draft with its deal entered (one list of cards per start part, in order), checked by a replay."""
    paths = [part.path for part in table.start_parts()]
    changed = Draft(
        game_number=draft.game_number,
        seed=seed,
        start=[(path, tuple(cards)) for path, cards in zip(paths, parts, strict=True)],
    )
    advance(table, changed)
    return changed


def with_later_part(table: Table, draft: Draft, cards: Sequence[str]) -> Draft:
    """The draft with the deck it is waiting for listed, checked by a replay."""
    _, position = advance(table, draft)
    if position.wanted is None:
        raise DraftProblem("no deck is waiting to be written down now")
    changed = _copy(draft)
    changed.later.append(LaterPart(position.wanted.path, tuple(cards), len(draft.actions)))
    advance(table, changed)
    return changed


def with_step(table: Table, draft: Draft, chosen: Mapping[int, str]) -> Draft:
    """The draft with one more step: each deciding seat's chosen action, the engine's seats' own."""
    _, position = advance(table, draft)
    if position.over:
        raise DraftProblem("the game is over: send it")
    if position.wanted is not None:
        raise DraftProblem("write down the shuffled deck first")
    missing = [seat for seat in position.choices if not chosen.get(seat)]
    if missing:
        raise DraftProblem("choose a move for " + ", ".join(table.seat_name(seat) for seat in missing))
    seats = sorted([*position.choices, *position.engine_moves])
    step = [position.engine_moves[seat] if seat in position.engine_moves else chosen[seat] for seat in seats]
    changed = _copy(draft)
    changed.actions.append(step)
    changed.automatic.append(False)
    advance(table, changed)
    return changed


def undo(draft: Draft) -> Draft:
    """The draft before its last person's step (and the engine's steps after it), or before its deal."""
    changed = _copy(draft)
    while changed.automatic and changed.automatic[-1]:
        changed.actions.pop()
        changed.automatic.pop()
    if changed.actions:
        changed.actions.pop()
        changed.automatic.pop()
    elif changed.later:
        changed.later.pop()
    else:
        changed.start = None
    # A deck entered after the steps now undone was shuffled by play that may go otherwise this time.
    changed.later = [part for part in changed.later if part.at_step <= len(changed.actions)]
    return changed


def finished_record(table: Table, draft: Draft) -> dict[str, Any]:
    """The draft as a record the verifier accepts: the game must be over."""
    draft, position = advance(table, draft)
    if not position.over:
        raise DraftProblem("the game is not over yet: enter its remaining moves first")
    record = _record(table, draft)
    record.result = position.result
    return record.to_dict()


def _copy(draft: Draft) -> Draft:
    return Draft.from_json(draft.to_json())


# --- What the page shows ------------------------------------------------------------------------


def move_words(action: str) -> str:
    """An action as people read it: its verb in ordinary case, its cards as written ("PLAY KC" → "Play KC")."""
    return " ".join(word if _is_card(word) else word.capitalize() for word in action.split())


def _is_card(word: str) -> bool:
    try:
        parse_card(word)
    except CardError:
        return False
    return True


@dataclass(frozen=True)
class StepLine:
    number: int
    moves: list[tuple[str, str]]
    automatic: bool


def step_lines(table: Table, record: Record, automatic: Sequence[bool] | None = None) -> list[StepLine]:
    """Each step of a record as "who did what", numbered from 1."""
    flags = list(automatic) if automatic is not None else [False] * len(record.actions)
    lines = []
    for index, (step, seats) in enumerate(zip(record.actions, _acting_seats(table, record), strict=True)):
        named = [table.seat_name(seat) if seat is not None else "a seat" for seat in seats]
        moves = list(zip(named, map(move_words, step), strict=False))
        lines.append(StepLine(number=index + 1, moves=moves, automatic=flags[index]))
    return lines


def _acting_seats(table: Table, record: Record) -> list[Sequence[int | None]]:
    """The seats each step's actions belong to: a record lists them in seat order without naming the seats,
    and ``to_act`` before each step names them. A record that does not replay names none."""
    game = table.game
    seats: list[Sequence[int | None]] = []

    def remember(state: Any) -> None:
        if len(seats) < len(record.actions):
            seats.append(game.to_act(state))

    try:
        replay(record, on_step=remember)
    except (ReplayError, EngineError):
        return [[None] * len(step) for step in record.actions]
    return seats


def draft_record(table: Table, draft: Draft) -> Record:
    """The draft's record so far (no result yet), for listing its steps."""
    return _record(table, draft)
