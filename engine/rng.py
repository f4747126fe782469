"""Deterministic random streams (RULES.md, "Determinism").

CPython's ``random.Random`` seeded with an int and read through ``getrandbits``
is the Mersenne Twister, which every supported Python version reproduces bit
for bit. The higher-level helpers (``shuffle``, ``choice``, ``randrange``) have
changed between versions in the past, so this module draws indices itself
with rejection sampling on ``getrandbits``: the stream, and so every deal, is
fixed by this file alone.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")


class Rng:
    """A seeded stream with the few draws the games need."""

    __slots__ = ("_random",)

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        bits = n.bit_length()
        getrandbits = self._random.getrandbits
        value = getrandbits(bits)
        while value >= n:
            value = getrandbits(bits)
        return value

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher-Yates, last position first, drawing as :meth:`below` does.

        The draw is inlined: a shuffle per game is a measurable part of War's budget.
        """
        getrandbits = self._random.getrandbits
        for i in range(len(items) - 1, 0, -1):
            n = i + 1
            bits = n.bit_length()
            j = getrandbits(bits)
            while j >= n:
                j = getrandbits(bits)
            items[i], items[j] = items[j], items[i]

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def copy(self) -> Rng:
        clone = Rng.__new__(Rng)
        # Seeding with 0 first skips the OS entropy read that Random() would do.
        clone._random = random.Random(0)
        clone._random.setstate(self._random.getstate())
        return clone

    def __deepcopy__(self, memo: dict[int, object]) -> Rng:
        return self.copy()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rng) and self._random.getstate() == other._random.getstate()

    def __hash__(self) -> int:  # pragma: no cover - states are not used as keys
        raise TypeError("Rng is mutable and unhashable")


def derive_seed(seed: int, label: str) -> int:
    """A seed for an independent stream, e.g. one bot's, from the game seed and a label."""
    digest = hashlib.sha256(f"{seed}/{label}".encode()).digest()
    # 63 bits: derived seeds are stored in signed 64-bit database columns.
    return int.from_bytes(digest[:8], "big") >> 1


def bot_rng(seed: int, seat: int) -> Rng:
    """The stream a seat's bot draws on: never the engine's (RULES.md, "Determinism")."""
    return Rng(derive_seed(seed, f"bot/{seat}"))
