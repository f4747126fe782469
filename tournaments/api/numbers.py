"""Exact figures on the wire: match points are fractions (1/3 has no exact decimal), shown both ways."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction

from tournaments.models import units_per_point

#: Decimal places of a non-terminating fraction's decimal form; the exact form is always sent beside it.
PLACES = Decimal("0.000001")


def decimal_string(value: Fraction) -> str:
    """``3/2`` → ``"1.5"``, ``1/3`` → ``"0.333333"``, ``2`` → ``"2"``."""
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    text = f"{exact.quantize(PLACES, rounding=ROUND_HALF_EVEN):f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def fraction_string(value: Fraction) -> str:
    """``3/2`` → ``"3/2"``, ``2`` → ``"2"``."""
    return str(value)


def match_points(match_units: int | None, players_per_match: int) -> Fraction | None:
    return None if match_units is None else Fraction(match_units, units_per_point(players_per_match))
