"""The fixed action space of one ruleset: action strings numbered once, and masks over them.

The numbering is the game's own ``all_actions(options, players)`` (docs/engine-interface.md), so an
index means the same action in every game of that ruleset. A game that lists no action at all (War:
nobody ever decides) gets one placeholder, :data:`WAIT`, so that its seats still have a space to act in:
an environment of such a game is each seat waiting once while the engine plays the deal out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.errors import EngineError
from engine.games import Game

#: The one action of a game without decisions; never an engine action, never recorded.
WAIT = "WAIT"


class ActionSpaceError(EngineError, ValueError):
    """An action index or string outside the ruleset's space, or a game whose list breaks the contract."""


class ActionSpace:
    """``labels[i]`` is action ``i``; ``index_of`` goes back."""

    def __init__(self, game: Game, options: Mapping[str, Any], players: int) -> None:
        listed = list(game.all_actions(options, players))
        duplicated = sorted({action for action in listed if listed.count(action) > 1})
        if duplicated:
            # An index must name one action: a game listing one twice breaks the contract, not the learner.
            raise ActionSpaceError(f"{game.NAME}: all_actions lists {', '.join(duplicated[:5])} more than once")
        #: True when the game lists no action ever and the space is the single placeholder WAIT.
        self.placeholder = not listed
        self.labels: tuple[str, ...] = (WAIT,) if self.placeholder else tuple(listed)
        self._index = {action: index for index, action in enumerate(self.labels)}

    def __len__(self) -> int:
        return len(self.labels)

    def index_of(self, action: str) -> int:
        try:
            return self._index[action]
        except KeyError:
            raise ActionSpaceError(f"{action!r} is not in this game's action space") from None

    def label(self, index: object) -> str:
        """The action string of an index (an int or a NumPy integer); a clear error for anything else."""
        if isinstance(index, bool) or not isinstance(index, int | np.integer):
            raise ActionSpaceError(f"an action is an index from 0 to {len(self.labels) - 1}, not {index!r}")
        if not 0 <= int(index) < len(self.labels):
            raise ActionSpaceError(f"action {int(index)} is outside 0 to {len(self.labels) - 1}")
        return self.labels[int(index)]

    def mask(self, legal: Iterable[str]) -> npt.NDArray[np.int8]:
        """1 for each legal action, 0 elsewhere; an action outside the space is the game's error, said plainly."""
        mask = np.zeros(len(self.labels), dtype=np.int8)
        for action in legal:
            index = self._index.get(action)
            if index is None:
                raise ActionSpaceError(f"legal action {action!r} is missing from the game's all_actions")
            mask[index] = 1
        return mask
