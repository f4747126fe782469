"""The 95% interval that standings show for a score rate (Wilson).

Pure functions, no Django: the standings serializer calls them for each row, and the offline gauntlet
(engine/gauntlet.py) for each opponent, so both show the same interval for the same games.
"""

from __future__ import annotations

import math
from fractions import Fraction

#: The two-sided 95% quantile of the standard normal distribution.
Z95 = 1.959963984540054


def wilson_interval(points: Fraction | float, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a score rate of ``points`` in ``games``, clipped to [0, 1].

    With p = points / games and n = games, the interval is

        (p + z²/2n ± z·√(p(1−p)/n + z²/4n²)) / (1 + z²/n)

    Draws count half a point, so ``points`` may be fractional. The Wilson interval is built for
    successes and failures only, and p(1−p) is the variance of a score that is 0 or 1. A score
    with draws has mean p and a variance no larger than that (a draw sits between the two), so the
    interval is the one for a fictitious all-decisive record with the same rate: never too narrow,
    and a little wide when many games are drawn. No games means nothing is known: (0, 1).
    """
    if games < 0:
        raise ValueError(f"games: {games} is negative")
    if z < 0:
        raise ValueError(f"z: {z} is negative")
    if games == 0:
        return 0.0, 1.0
    if not 0 <= points <= games:
        raise ValueError(f"points: {points} is outside [0, {games}]")
    n = games
    p = float(points) / n
    z2 = z * z
    centre = p + z2 / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    scale = 1 + z2 / n
    # The formula stays inside [0, 1]; clipping only absorbs rounding at the ends (p = 0 or 1).
    return max(0.0, (centre - spread) / scale), min(1.0, (centre + spread) / scale)
