"""How the admin writes figures: match points as people write them."""

from __future__ import annotations

from fractions import Fraction

from tournaments.models import units_per_point


def points_text(value: Fraction | int | float) -> str:
    """Match points read as people write them: 3, 1.5, 2.33."""
    if isinstance(value, Fraction) and value.denominator == 1:
        return str(value.numerator)
    if isinstance(value, int):
        return str(value)
    return f"{float(value):.2f}".rstrip("0").rstrip(".")


def match_points_text(units: int, players_per_match: int) -> str:
    """Match points from the whole units they are stored in (see ``units_per_point``)."""
    return points_text(Fraction(units, units_per_point(players_per_match)))
