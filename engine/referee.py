"""A refereed game played one decision at a time, for people (and bots) whose moves arrive apart.

:func:`engine.runner.play_game` asks every agent in turn and plays a game to its
end in one call. A live table cannot: a person's move arrives minutes later,
over HTTP, in another process. :class:`LiveGame` holds everything between two
moves (the state, the steps so far, the choices already made for a
simultaneous step, a forfeit) as plain data, so the service can store it after
every applied step and pick it up in any process.

Simultaneous decisions (Punk's tricks, 1923's draw ticks) are collected seat by
seat and applied together once every seat that must act has chosen; until then
a seat's choice is known only to the referee. Seats the engine plays (Punk's
dummy) are filled in when the step is applied, exactly as the runner does, so a
live game's record replays and verifies like any other.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field
from typing import Any

from engine.cards import normalise_action
from engine.errors import EngineError
from engine.games import Game, get_game
from engine.record import Record
from engine.result import FORFEIT_CAUSES, Forfeit, Result
from engine.runner import check_players, final_result


class MoveRefused(EngineError):
    """A move the referee does not take: the game is over, the seat need not act, or it already has."""


class IllegalMove(MoveRefused):
    """An action the rules do not allow here; ``legal_actions`` says what would be."""

    def __init__(self, seat: int, action: str, legal_actions: list[str]) -> None:
        shown = ", ".join(legal_actions[:12]) + (", ..." if len(legal_actions) > 12 else "")
        super().__init__(f"seat {seat}: illegal action {action!r}: expected one of {shown}")
        self.seat = seat
        self.action = action


@dataclass
class LiveGame:
    game_name: str
    players: int
    options: dict[str, Any]
    seed: int
    deal: dict[str, Any] | None
    state: Any
    steps: list[list[str]] = field(default_factory=list)
    #: Choices made for the current step by seats that have acted, waiting for the others.
    pending: dict[int, str] = field(default_factory=dict)
    forfeit: Forfeit | None = None

    @classmethod
    def start(
        cls, game_name: str, *, players: int, options: dict[str, Any], seed: int, deal: object = None
    ) -> LiveGame:
        """Deal a new game; ``options`` are parsed (and so checked) by the engine here."""
        game = get_game(game_name)
        check_players(game, players)
        parsed = game.parse_options(options, players)
        parsed_deal = None if deal is None else game.parse_deal(deal, parsed, players)
        live = cls(
            game_name=game.NAME,
            players=players,
            options=parsed,
            seed=seed,
            deal=parsed_deal,
            state=game.new_state(parsed, players, seed, parsed_deal),
        )
        live._advance()
        return live

    @property
    def game(self) -> Game:
        return get_game(self.game_name)

    @property
    def engine_seats(self) -> frozenset[int]:
        return self.game.auto_seats(self.options, self.players)

    def is_over(self) -> bool:
        return self.forfeit is not None or self.game.is_over(self.state)

    def to_act(self) -> tuple[int, ...]:
        """The seats (people or bots, never the engine's) whose decision the current step needs."""
        if self.is_over():
            return ()
        engine = self.engine_seats
        return tuple(seat for seat in self.game.to_act(self.state) if seat not in engine)

    def awaiting(self) -> tuple[int, ...]:
        """The seats that must still act before the current step is applied."""
        return tuple(seat for seat in self.to_act() if seat not in self.pending)

    def legal_actions(self, seat: int) -> list[str]:
        """``seat``'s legal actions now; empty when it has nothing (more) to decide."""
        if seat not in self.awaiting():
            return []
        return self.game.legal_actions(self.state, seat)

    def observation(self, seat: int | None) -> dict[str, Any]:
        """Exactly what ``seat`` may see (RULES.md, "What a seat sees"); None for a spectator."""
        return self.game.observation(self.state, seat)

    def submit(self, seat: int, action: str) -> str:
        """Take ``seat``'s choice for the current step, in its canonical spelling; the step is applied
        (``steps`` grows) once every seat that must act has chosen.

        Raises :class:`MoveRefused` (or :class:`IllegalMove`) and changes nothing if the move is not taken.
        """
        if self.is_over():
            raise MoveRefused("the game is over")
        if seat not in self.to_act():
            raise MoveRefused(f"seat {seat} has no decision to make now")
        if seat in self.pending:
            raise MoveRefused(f"seat {seat} has already chosen for this step")
        legal = self.game.legal_actions(self.state, seat)
        # RULES.md: card notation is case-insensitive and 10 means T; accept any spelling.
        chosen = action if action in legal else normalise_action(action)
        if chosen not in legal:
            raise IllegalMove(seat, action, legal)
        self.pending[seat] = chosen
        if not self.awaiting():
            self._apply_pending()
            self._advance()
        return chosen

    def forfeit_seat(self, seat: int, cause: str, detail: str = "") -> None:
        """``seat`` loses the game at once (a timeout, a failed bot): the record ends with the forfeit."""
        if cause not in FORFEIT_CAUSES:
            raise ValueError(f"unknown forfeit cause {cause!r}")
        if seat not in self.to_act():
            raise MoveRefused(f"seat {seat} has no decision to make now, so it cannot forfeit")
        self.pending.clear()
        self.forfeit = Forfeit(seat, cause, len(self.steps), detail)

    def result(self) -> Result:
        return final_result(self.game, self.state, self.forfeit, self.engine_seats)

    def record(self) -> Record:
        """The game's record so far; complete, with its result, once the game is over."""
        return Record(
            game=self.game_name,
            players=self.players,
            options=self.options,
            seed=self.seed,
            deal=self.deal,
            actions=[list(step) for step in self.steps],
            forfeit=self.forfeit,
            result=self.result().to_json() if self.is_over() else None,
        )

    def dumps(self) -> bytes:
        """The whole game as bytes for the service to store; never shown to anyone (it holds the deal)."""
        return pickle.dumps(self, protocol=pickle.HIGHEST_PROTOCOL)

    @staticmethod
    def loads(data: bytes | memoryview) -> LiveGame:
        # Only ever bytes this module wrote into the service's own database, never a client's.
        live = pickle.loads(data)
        if not isinstance(live, LiveGame):
            raise TypeError("not a stored live game")
        return live

    def _apply_pending(self) -> None:
        game, engine = self.game, self.engine_seats
        seats = game.to_act(self.state)
        step = [game.auto_action(self.state, seat) if seat in engine else self.pending[seat] for seat in seats]
        game.apply(self.state, dict(zip(seats, step, strict=True)))
        self.steps.append(step)
        self.pending.clear()

    def _advance(self) -> None:
        """Apply every step nobody decides (War's rounds, a step of engine seats only) until a seat must act."""
        while not self.is_over() and not self.to_act():
            self._apply_pending()
