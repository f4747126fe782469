"""Reinforcement-learning environments over the engine's own rules (docs/training.md, "Environments").

Needs the ``train`` extra (PettingZoo, Gymnasium, NumPy): ``pip install -e '.[train]'``. Nothing else
in the engine or the service imports this package, so a server runs without them.

* :func:`aec_env`: PettingZoo's AEC API, one seat deciding at a time, for every game;
* :func:`parallel_env`: PettingZoo's parallel API, every seat the step asks deciding at once;
* :func:`gym_env`: Gymnasium's single-agent API, one learner against built-in, sandboxed or HTTP bots.

All three play through :class:`engine.referee.LiveGame`, so ``env.record()`` is the engine's own record,
and ``env.transcript()`` the same game with its deal written out as a table deals it.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.env.actions import WAIT, ActionSpace, ActionSpaceError
from engine.env.aec import CardGameAEC
from engine.env.encoding import ObservationEncoder, encoder_for
from engine.env.opponents import OpponentSpec
from engine.env.parallel import CardGameParallel
from engine.env.seeds import SeedError
from engine.env.single import CardGameEnv
from engine.env.table import TableError

__all__ = [
    "WAIT",
    "ActionSpace",
    "ActionSpaceError",
    "CardGameAEC",
    "CardGameEnv",
    "CardGameParallel",
    "ObservationEncoder",
    "SeedError",
    "TableError",
    "aec_env",
    "encoder_for",
    "gym_env",
    "parallel_env",
]


def aec_env(game: str, players: int | None = None, **options: object) -> CardGameAEC:
    """A PettingZoo AEC environment of ``game`` with ``players`` seats (every seat, Punk's dummy included;
    the game's least by default) under the ruleset ``options``."""
    return CardGameAEC(game, players, **options)


def parallel_env(game: str, players: int | None = None, **options: object) -> CardGameParallel:
    """A PettingZoo parallel environment: the seats a step asks send their actions together."""
    return CardGameParallel(game, players, **options)


def gym_env(
    game: str,
    opponents: Sequence[OpponentSpec] | str = ("random",),
    *,
    seat: int = 0,
    players: int | None = None,
    **options: object,
) -> CardGameEnv:
    """A Gymnasium environment: the learner at ``seat`` against ``opponents`` (built-in names, bot files,
    http(s) URLs or agents), one per other person's seat, in seat order."""
    return CardGameEnv(game, opponents, seat=seat, players=players, **options)
