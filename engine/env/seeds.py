"""Which engine seed each new game gets: the one the caller gives, or the next of the environment's stream."""

from __future__ import annotations

import numpy as np

from engine.errors import EngineError

#: Seeds are stored in signed 64-bit columns by the service (engine/rng.py derive_seed).
_SEED_BOUND = 2**63 - 1


class SeedError(EngineError, ValueError):
    pass


def whole_seed(seed: object) -> int:
    """A seed as the engine takes it: a whole number from 0 (NumPy's included, never a bool) that the
    service's 64-bit seed column holds."""
    # __index__ is what makes a value a whole number for Python (int, NumPy's integers), and not a float's.
    index = getattr(seed, "__index__", None)
    number = -1 if isinstance(seed, bool) or index is None else int(index())
    if not 0 <= number <= _SEED_BOUND:
        raise SeedError(f"a seed is a whole number from 0 up to 2**63 - 1, not {seed!r}")
    return number


class SeedStream:
    """``reset(seed=s)`` deals the engine's game ``s`` (the deal ``python -m engine play --seed s`` gives) and
    restarts the stream from ``s``; ``reset()`` takes the stream's next seed, so a seeded run repeats whole."""

    def __init__(self) -> None:
        self._stream = np.random.default_rng()

    def next(self, seed: int | None) -> int:
        if seed is None:
            return int(self._stream.integers(0, _SEED_BOUND))
        number = whole_seed(seed)
        self._stream = np.random.default_rng(number)
        return number
