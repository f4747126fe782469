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
import os
import re
import threading
from collections.abc import Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol, cast

from engine.errors import EngineError
from engine.games.profile import LeagueProfile
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
    #: How a league orders, breaks down and referees the game (engine/games/profile.py).
    PROFILE: LeagueProfile

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

    def all_actions(self, options: Mapping[str, Any], players: int) -> list[str]:
        """Every action ``legal_actions`` could ever list under these options, in a fixed order, each once.

        An action's index in this list is stable for the ruleset, so a learner can number its outputs by it
        (engine/env, docs/training.md "Environments"). Empty for a game without decisions.
        """
        ...

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


#: What a game module must define: the protocol's attributes and functions.
_FUNCTIONS = tuple(sorted(name for name, value in vars(Game).items() if callable(value) and name[0] != "_"))
_MEMBERS = tuple(sorted({*Game.__annotations__, *_FUNCTIONS}))

#: The games the engine ships: name → (rules module, module of its built-in bots or None).
_BUILT_IN: dict[str, tuple[str, str | None]] = {
    "war": ("engine.games.war", None),
    "1923": ("engine.games.nineteen23", "engine.bots.nineteen23_bots"),
    "banter": ("engine.games.banter", "engine.bots.banter_bots"),
    "punk": ("engine.games.punk", "engine.bots.punk_bots"),
}
#: Games registered from outside the engine's own modules (``ENGINE_GAMES``, :func:`register_game`).
ENGINE_GAMES_VARIABLE = "ENGINE_GAMES"
#: Stored in a 10-character column by the service; lower case so that lookups can fold case.
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,9}")

_registered: dict[str, tuple[str, str | None]] = {}
_loaded: dict[str, ModuleType] = {}
#: Held while the registry changes; reads need no lock (a dict lookup is atomic).
_changing = threading.RLock()


class UnknownGame(EngineError, ValueError):
    pass


class GameRegistrationError(EngineError, ValueError):
    pass


def _registry() -> dict[str, tuple[str, str | None]]:
    if not _registered:
        with _changing:
            if not _registered:
                _registered.update(_from_environment())
    return _registered


def _from_environment() -> dict[str, tuple[str, str | None]]:
    # All or nothing: a bad entry fails every use alike, rather than leaving the games before it.
    games = dict(_BUILT_IN)
    for name, module, bots in parse_engine_games(os.environ.get(ENGINE_GAMES_VARIABLE, "")):
        try:
            _check(games, name, module, bots)
        except GameRegistrationError as exc:
            raise GameRegistrationError(f"{ENGINE_GAMES_VARIABLE}: {exc}") from None
        games[name] = (module, bots)
    return games


def parse_engine_games(text: str) -> list[tuple[str, str, str | None]]:
    """``name=rules.module[:bots.module]``, comma-separated, as the ``ENGINE_GAMES`` variable holds them."""
    entries = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, equals, modules = item.partition("=")
        rules, _, bots = modules.partition(":")
        if not equals or not rules.strip():
            raise GameRegistrationError(
                f"{ENGINE_GAMES_VARIABLE}: {item!r} is not name=rules.module or name=rules.module:bots.module"
            )
        entries.append((name.strip(), rules.strip(), bots.strip() or None))
    return entries


def register_game(name: str, module: str, bots: str | None = None) -> Game:
    """Add a game whose rules live in ``module`` (and built-in bots in ``bots``, a module with ``BOTS``).

    The module is imported and checked now, so a broken game fails here rather than mid-match.
    The registration holds for this process; other processes (workers) learn of the game
    from the ``ENGINE_GAMES`` variable.
    """
    with _changing:
        registry = _registry()
        game = _check(registry, name, module, bots)
        registry[name] = (module, bots)
    return game


def _check(registry: Mapping[str, tuple[str, str | None]], name: str, module: str, bots: str | None) -> Game:
    """The game module, imported and held to the protocol; GameRegistrationError saying what is wrong."""
    if not _NAME.fullmatch(name):
        raise GameRegistrationError(
            f"game name {name!r}: use 1 to 10 lower-case letters, digits, '-' or '_', starting with a letter or digit"
        )
    known = registry.get(name)
    if known is not None and known != (module, bots):
        raise GameRegistrationError(f"game {name!r} is already registered, to {known[0]}")
    loaded = _import(name, module)
    problem = _protocol_problem(loaded)
    if problem:
        raise GameRegistrationError(f"game {name!r}: {module} {problem} (docs/engine-interface.md)")
    if name != loaded.NAME:
        raise GameRegistrationError(f"game {name!r}: {module} names itself {loaded.NAME!r}")
    if bots is not None and not isinstance(getattr(_import(name, bots), "BOTS", None), Mapping):
        raise GameRegistrationError(f"game {name!r}: {bots} has no BOTS mapping of bot names to factories")
    _loaded[name] = loaded
    return cast(Game, loaded)


def unregister_game(name: str) -> None:
    """Forget a game registered with :func:`register_game` (tests); the engine's own games stay."""
    if name in _BUILT_IN:
        raise GameRegistrationError(f"game {name!r} is one of the engine's own")
    with _changing:
        _registered.pop(name, None)
        _loaded.pop(name, None)


def _import(name: str, module: str) -> ModuleType:
    # Whatever importing the module raises (its own bugs too), the registration says which game and module.
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise GameRegistrationError(f"game {name!r}: cannot import {exc.name or module}: {exc}") from None
    except Exception as exc:
        raise GameRegistrationError(f"game {name!r}: importing {module} failed: {type(exc).__name__}: {exc}") from None


def missing_members(module: ModuleType) -> list[str]:
    """The members of the :class:`Game` protocol that ``module`` does not define."""
    return [member for member in _MEMBERS if not hasattr(module, member)]


def _protocol_problem(module: ModuleType) -> str:
    """What keeps ``module`` from being a game: missing or mistyped members of the protocol, or ""."""
    missing = missing_members(module)
    if missing:
        return f"lacks {', '.join(missing)}"
    if not isinstance(module.PROFILE, LeagueProfile):
        return "has a PROFILE that is not an engine.games.profile.LeagueProfile"
    if not isinstance(module.OPTIONS, OptionSet):
        return "has OPTIONS that are not an engine.options.OptionSet"
    not_callable = [member for member in _FUNCTIONS if not callable(getattr(module, member))]
    return f"has {', '.join(not_callable)} that cannot be called" if not_callable else ""


def game_names() -> tuple[str, ...]:
    """Every game's name: the engine's four, then the registered ones in the order they came."""
    return tuple(_registry())


def bots_module(name: str) -> str | None:
    """The module holding the built-in bots of game ``name`` (a ``BOTS`` mapping), if it has one."""
    return _registry()[get_game(name).NAME][1]


def get_game(name: str) -> Game:
    """The game module for ``name`` (one of :func:`game_names`)."""
    # The hot path: the referee asks for its game's module by its exact name several times a move.
    if type(name) is str and name in _registered:
        loaded = _loaded.get(name)
        if loaded is not None:
            return cast(Game, loaded)
    key = str(name).strip().lower()
    registry = _registry()
    if key not in registry:
        raise UnknownGame(f"unknown game {name!r}: choose one of {', '.join(registry)}")
    module = _loaded.get(key)
    if module is None:
        # Imported on first use: a game module pulls in only what that game needs.
        module = _loaded[key] = importlib.import_module(registry[key][0])
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
