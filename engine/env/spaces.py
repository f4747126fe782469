"""The Gymnasium spaces of one ruleset's environments: the masked observation and the action index."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from engine.env.table import Table

#: 2**24: the largest float32 below which every whole number is exact.
BOUND = float(2**24)


def observation_space(table: Table) -> spaces.Dict:
    """``{"observation": float32 vector, "action_mask": 0/1 int8 per action}`` (PettingZoo's convention).

    The vector's numbers are the observation's own (scores, counts), not scaled; every game's figures stay
    well inside float32's exact whole numbers, which bound the box.
    """
    return spaces.Dict(
        {
            "observation": spaces.Box(low=-BOUND, high=BOUND, shape=(table.encoder.size,), dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(len(table.actions),), dtype=np.int8),
        }
    )


def action_space(table: Table) -> spaces.Discrete:
    return spaces.Discrete(len(table.actions))
