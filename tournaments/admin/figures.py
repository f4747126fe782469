"""How the admin writes figures: match points and scores as people write them, games counted from 1."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from tournaments.models import units_per_point


def points_text(value: Fraction | Decimal | int | float) -> str:
    """Match points and scores read as people write them: 3, 1.5, 2.33 (never 1.000000)."""
    if isinstance(value, Fraction) and value.denominator == 1:
        return str(value.numerator)
    if isinstance(value, int):
        return str(value)
    return f"{float(value):.2f}".rstrip("0").rstrip(".")


def match_points_text(units: int, players_per_match: int) -> str:
    """Match points from the whole units they are stored in (see ``units_per_point``)."""
    return points_text(Fraction(units, units_per_point(players_per_match)))


def shown_game_number(number: int) -> int:
    """A game's number as people count: games are stored from 0 (the engine's index, which seeds and seat
    rotation use), and the admin shows the first game as game 1."""
    return number + 1


def rating_text(value: float) -> str:
    """A rating (μ, σ, the ordinal) to two places, as the competition page shows it: 29.48, not 29.47918472838506."""
    return f"{value:.2f}"
