"""One game at a time, played through the engine's own referee: what every environment drives.

:class:`Table` holds an :class:`~engine.referee.LiveGame`, the same object a live table of people
plays through, so every rule, the seats the engine plays (Punk's dummy) and the record all come
from the engine: a game played here verifies and goes in as a transcript like any other (parity by
construction). The environments only translate: action indices to strings, observations to vectors,
a result to rewards.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy.typing as npt

from engine.env.actions import WAIT, ActionSpace
from engine.env.encoding import ObservationEncoder, encoder_for
from engine.env.seeds import whole_seed
from engine.errors import EngineError, shown
from engine.games import get_game
from engine.record import Record
from engine.referee import IllegalMove, LiveGame
from engine.result import ranks_from_keys, score_rates
from engine.runner import check_players


class TableError(EngineError, ValueError):
    """The environment was used out of order (no game dealt, a seat with nothing to decide)."""


def agent_name(seat: int) -> str:
    return f"seat_{seat}"


class Table:
    """A ruleset (game, seats, options) and the game being played under it."""

    def __init__(self, game_name: str, players: int | None, options: Mapping[str, object] | None) -> None:
        game = get_game(game_name)
        seats = game.MIN_PLAYERS if players is None else players
        check_players(game, seats)
        self.game = game
        self.players = seats
        self.options: dict[str, Any] = game.parse_options(dict(options or {}), seats)
        self.engine_seats = game.auto_seats(self.options, seats)
        #: The seats people (and so agents) play, ascending: never the engine's own.
        self.people: tuple[int, ...] = tuple(seat for seat in range(seats) if seat not in self.engine_seats)
        self.actions = ActionSpace(game, self.options, seats)
        self.encoder: ObservationEncoder = encoder_for(game, self.options, seats)
        self._live: LiveGame | None = None
        #: For a game without decisions: the seats that have not yet WAITed, and what they saw at the start.
        self._waiting: set[int] = set()
        self._start_views: dict[int, dict[str, Any]] = {}
        self._over: bool | None = None
        self._awaiting: tuple[int, ...] | None = None
        self._moved()

    # --- a game ---------------------------------------------------------------------------------

    def deal(self, seed: int, deal: object = None) -> None:
        """A new game from the engine's seeded deal (or an explicit one, which the game checks)."""
        number = whole_seed(seed)
        live = LiveGame.start(self.game.NAME, players=self.players, options=self.options, seed=number, deal=deal)
        self._live = live
        self._waiting.clear()
        if self.actions.placeholder:
            # No seat ever decides (War): LiveGame has already played the deal out. Each seat WAITs once,
            # seeing the start of the game, and only then learns the result.
            start = self.game.new_state(self.options, self.players, number, live.deal)
            self._start_views = {seat: self.game.observation(start, seat) for seat in self.people}
            self._waiting = set(self.people)
        self._moved()

    @property
    def live(self) -> LiveGame:
        if self._live is None:
            raise TableError("no game has been dealt yet: call reset() first")
        return self._live

    def is_over(self) -> bool:
        over = self._over
        if over is None:
            over = self._over = not self._waiting and self.live.is_over()
        return over

    def awaiting(self) -> tuple[int, ...]:
        """The people's seats whose decision the current step still needs, ascending."""
        # Asked several times a move by every environment; it changes only when a move is taken.
        awaiting = self._awaiting
        if awaiting is None:
            awaiting = self._awaiting = tuple(sorted(self._waiting)) if self._waiting else self.live.awaiting()
        return awaiting

    def _moved(self) -> None:
        self._over = None
        self._awaiting = None
        self._legal: dict[int, list[str]] = {}
        self._views: dict[int, dict[str, Any]] = {}

    def legal_actions(self, seat: int) -> list[str]:
        if self._waiting:
            return [WAIT] if seat in self._waiting else []
        legal = self._legal.get(seat)
        if legal is None:
            # LiveGame.legal_actions, with the seats still to act taken from this move's cache.
            live = self.live
            legal = live.game.legal_actions(live.state, seat) if seat in self.awaiting() else []
            self._legal[seat] = legal
        return list(legal)

    def observation(self, seat: int) -> dict[str, Any]:
        """The engine's own ``observation(state, seat)``: what that seat may see, and nothing more."""
        if self._waiting:
            return self._start_views[seat]
        view = self._views.get(seat)
        if view is None:
            view = self._views[seat] = self.live.observation(seat)
        return view

    def encoded(self, seat: int) -> dict[str, npt.NDArray[Any]]:
        """PettingZoo's masked observation: the vector and a 0/1 mask over the action space."""
        return {
            "observation": self.encoder.encode(self.observation(seat)),
            "action_mask": self.actions.mask(self.legal_actions(seat)),
        }

    def play(self, seat: int, index: object) -> None:
        """``seat`` takes action ``index``; one outside its legal actions forfeits the game, as on the server.

        An index outside the action space (or not a whole number) is the caller's mistake: ActionSpaceError.
        """
        action = self.actions.label(index)
        if seat not in self.awaiting():
            raise TableError(f"{agent_name(seat)} has no decision to make now")
        legal = self.legal_actions(seat)
        if action not in legal:
            # DESIGN.md "Forfeits are part of the record": the server forfeits an illegal action, and so do we.
            self.forfeit(seat, "illegal_action", f"{action!r} is not a legal action")
            return
        try:
            if self._waiting:
                self._waiting.discard(seat)
            else:
                self.live.submit(seat, action)
        finally:
            self._moved()

    def submit_text(self, seat: int, action: object) -> None:
        """A bot's answer, taken as the runner takes it: any spelling of a legal action; anything else
        forfeits (``bad_output`` for what is not text, ``illegal_action`` for text that is not legal)."""
        if not isinstance(action, str):
            self.forfeit(seat, "bad_output", f"{shown(action)} is not an action string")
            return
        if self._waiting:
            raise TableError(f"{self.game.NAME} has no decisions: no bot is asked anything")
        try:
            self.live.submit(seat, action)
        except IllegalMove:
            self.forfeit(seat, "illegal_action", f"{shown(action)} is not a legal action")
        finally:
            self._moved()

    def forfeit(self, seat: int, cause: str, detail: str = "") -> None:
        """An opponent bot that failed (crash, timeout, bad output): the game ends with its forfeit."""
        try:
            self.live.forfeit_seat(seat, cause, detail)
            self._waiting.clear()
        finally:
            self._moved()

    # --- the end --------------------------------------------------------------------------------

    def rewards(self) -> dict[int, float]:
        """Each person's score rate among the people once the game is over (DESIGN.md "Match points":
        win 1, draw ½, loss 0 between two; a fair share of places among more); 0 while it runs."""
        if not self.is_over():
            return dict.fromkeys(self.people, 0.0)
        ranks = self.live.result().ranks
        # Engine seats (Punk's dummy) are not participants: the people are rated among themselves,
        # as engine.match.match_result rates a match.
        people_ranks = ranks_from_keys([-ranks[seat] for seat in self.people])
        return {seat: float(rate) for seat, rate in zip(self.people, score_rates(people_ranks), strict=True)}

    def record(self) -> Record:
        """The engine's record of the game so far: complete, with its result, once it is over."""
        return self.live.record()

    def transcript(self) -> Record:
        """The same game with its deal written out as a table would have dealt it: every deck it has used so
        far, each later set and reshuffle included, in the form ``parse_deal`` takes (the game profile's
        ``table_deal``). It verifies with the same actions and result as :meth:`record`, and its deal is what
        the server asks of a transcript (docs/transcripts.md), so a game dealt from a seed goes in as one."""
        live = self.live
        profile = self.game.PROFILE
        if profile.table_deal is None:
            raise TableError(
                f"{self.game.NAME} cannot write down the deal of a game it dealt from a seed (its league profile "
                "has no table_deal): deal it from an explicit deal and use record()"
            )
        deal = self.game.parse_deal(profile.table_deal(live.state), self.options, self.players)
        return replace(live.record(), seed=profile.table_seed(live.state, live.seed), deal=deal)


class TableRecords:
    """What every environment hands out of the game it plays through its :class:`Table`."""

    table: Table

    def record(self) -> Record:
        """The engine's record of the game (complete once it is over): it verifies, and the server takes it."""
        return self.table.record()

    def transcript(self) -> Record:
        """The same record with the deal written out as a table deals it (every deck, later sets and reshuffles
        included), so a game dealt from a seed goes in as a transcript (docs/training.md, "Parity")."""
        return self.table.transcript()
