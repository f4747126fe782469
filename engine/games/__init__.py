"""The game registry and the interface every game module implements.

A game is a module of plain functions over a state object, in the shape of
OpenSpiel's Game/State split (DESIGN.md, "The engine's shape"):

* ``apply`` validates every action of the step before it changes anything, so
  an illegal action raises :class:`~engine.errors.IllegalAction` and leaves
  the state untouched. No undo is ever needed; ``state.copy()`` gives an
  independent state for look-ahead.
* ``to_act`` may name several seats at once (simultaneous decisions).
* ``result`` may be called on a running game: it gives the provisional
  ranking a forfeit needs.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol, cast

from engine.errors import EngineError
from engine.options import OptionSet
from engine.result import Result


class Game(Protocol):
    """What a game module provides (docs/engine-interface.md); mypy checks every module against it below."""

    NAME: str
    MIN_PLAYERS: int
    MAX_PLAYERS: int
    #: False when no seat ever decides (War): nothing needs a bot, and a match asks no one anything.
    DECISIONS: bool
    OPTIONS: OptionSet

    def extra_seats(self, raw_options: Mapping[str, object]) -> int:
        """Seats the engine plays beyond the people (Punk's dummy), from options not yet parsed."""
        ...

    def parse_options(self, raw: Mapping[str, object] | None, players: int) -> dict[str, Any]: ...

    def parse_deal(self, raw: object, options: Mapping[str, Any], players: int) -> dict[str, Any]: ...

    def new_state(
        self, options: Mapping[str, Any], players: int, seed: int, deal: Mapping[str, Any] | None = None
    ) -> Any: ...

    def auto_seats(self, options: Mapping[str, Any], players: int) -> frozenset[int]: ...

    def auto_action(self, state: Any, seat: int) -> str: ...

    def to_act(self, state: Any) -> tuple[int, ...]: ...

    def legal_actions(self, state: Any, seat: int) -> list[str]: ...

    def observation(self, state: Any, seat: int | None) -> dict[str, Any]: ...

    def apply(self, state: Any, actions: Mapping[int, str]) -> None: ...

    def is_over(self, state: Any) -> bool: ...

    def result(self, state: Any) -> Result: ...

    def full_deck(self, options: Mapping[str, Any], players: int) -> list[str]:
        """Every card the game is dealt from, for conservation checks."""
        ...

    def cards_in_play(self, state: Any) -> list[str]:
        """Every card of the state, wherever it is: always ``full_deck``'s cards (a 1923 set's deck)."""
        ...


GAME_NAMES = ("war", "1923", "banter", "punk")
_MODULES = {
    "war": "engine.games.war",
    "1923": "engine.games.nineteen23",
    "banter": "engine.games.banter",
    "punk": "engine.games.punk",
}


_loaded: dict[str, ModuleType] = {}


class UnknownGame(EngineError, ValueError):
    pass


def get_game(name: str) -> Game:
    """The game module for ``name`` (``war``, ``1923``, ``banter`` or ``punk``)."""
    key = str(name).strip().lower()
    if key not in _MODULES:
        raise UnknownGame(f"unknown game {name!r}: choose one of {', '.join(GAME_NAMES)}")
    module = _loaded.get(key)
    if module is None:
        # Imported on first use: a game module pulls in only what that game needs.
        module = _loaded[key] = importlib.import_module(_MODULES[key])
    return cast(Game, module)


def seats_for(game: Game, people: int, options: Mapping[str, object] | None) -> int:
    """Seats at the table for ``people`` players: games with an engine-played seat add it."""
    return people + game.extra_seats(options or {})


if TYPE_CHECKING:
    # mypy holds each game module to the protocol: a missing or mistyped function is a type error here.
    from engine.games import banter, nineteen23, punk, war

    _WAR: Game = war
    _NINETEEN23: Game = nineteen23
    _BANTER: Game = banter
    _PUNK: Game = punk
