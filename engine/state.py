"""What every game's state shares: a copy derived from its fields, never written out by hand.

A hand-written ``copy`` listed each field and silently missed a field added later (issue 12).
"""

from __future__ import annotations

import copy
from typing import Self


class GameState:
    """Base of each game's state dataclass: ``copy()`` gives an independent state for look-ahead."""

    __slots__ = ()

    def copy(self) -> Self:
        # Every field, nested lists and the seeded stream included: nothing the copy changes reaches this one.
        return copy.deepcopy(self)
