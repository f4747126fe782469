"""Score-rate and rating intervals (engine/intervals.py) against published and hand-worked values."""

from __future__ import annotations

from fractions import Fraction

import pytest

from engine.intervals import Z95, wilson_interval


def assert_interval(got: tuple[float, float], expected: tuple[float, float], tolerance: float) -> None:
    assert abs(got[0] - expected[0]) <= tolerance and abs(got[1] - expected[1]) <= tolerance, (got, expected)


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [
        # The worked examples of Newcombe (1998), "Two-sided confidence intervals for the single
        # proportion: comparison of seven methods", Statistics in Medicine 17, 857-872: the score
        # method without continuity correction, to the four places printed there.
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_published_examples(successes: int, n: int, low: float, high: float) -> None:
    assert_interval(wilson_interval(successes, n), (low, high), 5e-5)


def test_half_the_points_with_z_two_by_hand() -> None:
    # p = ½, n = 10, z = 2: centre ½ + 4/20 = 0.7; spread 2·√(¼/10 + 4/400) = 2·√0.035 = 0.3741657;
    # scale 1 + 4/10 = 1.4: (0.7 ∓ 0.3741657) / 1.4 = 0.2327388, 0.7672612.
    assert_interval(wilson_interval(5, 10, z=2), (0.2327388, 0.7672612), 1e-7)


def test_draws_give_fractional_points_by_hand() -> None:
    # 6 wins, 3 draws, 1 loss: 7½ points in 10, p = ¾, z = 2: centre ¾ + 0.2 = 0.95;
    # spread 2·√(3/16/10 + 0.01) = 2·√0.02875 = 0.3391165; (0.95 ∓ 0.3391165) / 1.4 = 0.4363454, 0.9207975.
    assert_interval(wilson_interval(Fraction(15, 2), 10, z=2), (0.4363454, 0.9207975), 1e-7)
    assert_interval(wilson_interval(7.5, 10, z=2), (0.4363454, 0.9207975), 1e-7)


def test_symmetric_about_a_half() -> None:
    mirror_low, mirror_high = wilson_interval(Fraction(11, 2), 7)
    assert_interval(wilson_interval(Fraction(3, 2), 7), (1 - mirror_high, 1 - mirror_low), 1e-12)


def test_all_points_reach_one_and_no_games_know_nothing() -> None:
    assert wilson_interval(20, 20)[1] == 1.0
    assert wilson_interval(20, 20)[0] == pytest.approx(1 - 0.16112515805, abs=1e-9)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_more_games_at_the_same_rate_narrow_the_interval() -> None:
    widths = [high - low for low, high in (wilson_interval(n // 2, n) for n in (10, 100, 1000))]
    assert widths == sorted(widths, reverse=True)


@pytest.mark.parametrize(
    ("points", "games", "z", "field"),
    [(1, -1, Z95, "games"), (11, 10, Z95, "points"), (-1, 10, Z95, "points"), (1, 10, -1.0, "z")],
)
def test_bad_input_names_the_field(points: float, games: int, z: float, field: str) -> None:
    with pytest.raises(ValueError, match=f"^{field}:"):
        wilson_interval(points, games, z)
