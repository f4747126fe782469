"""Which engine seed each new game gets: the one the caller gives, or the next of the environment's stream."""

from __future__ import annotations

import numpy as np

#: Seeds are stored in signed 64-bit columns by the service (engine/rng.py derive_seed).
_SEED_BOUND = 2**63 - 1


class SeedStream:
    """``reset(seed=s)`` deals the engine's game ``s`` (the deal ``python -m engine play --seed s`` gives) and
    restarts the stream from ``s``; ``reset()`` takes the stream's next seed, so a seeded run repeats whole."""

    def __init__(self) -> None:
        self._stream = np.random.default_rng()

    def next(self, seed: int | None) -> int:
        if seed is None:
            return int(self._stream.integers(0, _SEED_BOUND))
        self._stream = np.random.default_rng(seed)
        return seed
