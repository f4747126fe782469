"""The SPRT engine (engine/sprt.py): hand-checked ratios, decisions, error rates on simulated matches."""

from __future__ import annotations

import itertools
import math
from dataclasses import replace
from typing import Any

import pytest

from engine.sprt import SprtSettings, SprtState, SprtVerdict, expected_score, llr, sprt

#: The Elo gap whose expected score is exactly 0.6: 400·log10(0.6/0.4) = 400·log10(1.5).
ELO_SIXTY = 400 * math.log10(1.5)


def test_wald_bounds() -> None:
    # alpha = beta = 0.05: log(0.05/0.95) = -log 19 = -2.944439, log(0.95/0.05) = log 19.
    verdict = sprt(SprtState(0, 0, 0), SprtSettings(0, 10))
    assert abs(verdict.lower + 2.944439) < 1e-6 and abs(verdict.upper - 2.944439) < 1e-6
    # alpha 0.05, beta 0.1: log(0.1/0.95) = -2.251292, log(0.9/0.05) = log 18 = 2.890372.
    verdict = sprt(SprtState(0, 0, 0), SprtSettings(0, 10, alpha=0.05, beta=0.1))
    assert abs(verdict.lower + 2.251292) < 1e-6 and abs(verdict.upper - 2.890372) < 1e-6
    assert verdict == SprtVerdict(0.0, verdict.lower, verdict.upper, "continue", 0)


def test_expected_score() -> None:
    assert expected_score(0) == 0.5
    assert expected_score(ELO_SIXTY) == pytest.approx(0.6)
    # 400 Elo: 1/(1 + 10^-1) = 10/11.
    assert expected_score(400) == pytest.approx(10 / 11)


def test_normal_approximation_by_hand() -> None:
    # 10 wins, 20 draws, 10 losses: mean m = ½; E[score²] = (10 + 20/4)/40 = 0.375, variance
    # v = 0.375 - 0.25 = 0.125. H0 0 Elo (s0 = ½), H1 Elo with s1 = 0.6.
    # LLR = 40 · (0.6 - 0.5) · (1 - 0.5 - 0.6) / (2 · 0.125) = 40 · 0.1 · (-0.1) / 0.25 = -1.6.
    assert llr(SprtState(10, 20, 10), 0, ELO_SIXTY, "normal") == pytest.approx(-1.6)
    # H1 10 Elo: s1 = 1/(1 + 10^-0.025) = 1/1.9440609 = 0.5143872;
    # LLR = 40 · 0.0143872 · (-0.0143872) / 0.25 = -160 · 0.00020699 = -0.033119.
    assert llr(SprtState(10, 20, 10), 0, 10, "normal") == pytest.approx(-0.033119, abs=2e-6)


def test_exact_ratio_by_hand() -> None:
    # Same games, frequencies p = (¼, ½, ¼) for scores (1, ½, 0). Under s0 = ½ (the observed mean)
    # θ0 = 0 and H0's term is 0. Under s1 = 0.6: x = (0.4, -0.1, -0.6); the quadratic's coefficients
    # c0 = m - s1 = -0.1, c1 = Σ p·x·(X - x) with X = -0.3: ¼·0.4·(-0.7) + ½·(-0.1)·(-0.2) +
    # ¼·(-0.6)·0.3 = -0.07 + 0.01 - 0.045 = -0.105, c2 = 0.4·(-0.1)·(-0.6) = 0.024.
    # 0.024θ² - 0.105θ - 0.1 = 0: θ = (0.105 - √0.020625)/0.048 = -0.8044609 (the other root, 5.18,
    # is outside (-2.5, 1/0.6)). 1 + θx = (0.6782156, 1.0804461, 1.4826765), whose logs are
    # (-0.3882899, 0.0773740, 0.3938489): H1's term -(¼·-0.3882899 + ½·0.0773740 + ¼·0.3938489)
    # = -0.0400767, and LLR = 40 · (-0.0400767 - 0) = -1.603068.
    assert llr(SprtState(10, 20, 10), 0, ELO_SIXTY) == pytest.approx(-1.603068, abs=2e-6)


def test_an_outcome_not_seen_yet_counts_half_a_game() -> None:
    # 3 wins and nothing else: counts (3, ½, ½), n = 4, m = (3 + ¼)/4 = 0.8125,
    # E[score²] = (3 + ⅛)/4 = 0.78125, v = 0.78125 - 0.66015625 = 0.12109375.
    # H0 0 Elo, H1 50 Elo: s1 = 1/(1 + 10^-0.125) = 0.5714631.
    # LLR = 4 · 0.0714631 · (1.625 - 1.0714631) / 0.2421875 = 0.653336: three wins decide nothing.
    assert llr(SprtState(3, 0, 0), 0, 50, "normal") == pytest.approx(0.653336, abs=2e-6)
    assert sprt(SprtState(3, 0, 0), SprtSettings(0, 50)).decision == "continue"
    assert sprt(SprtState(3, 0, 0), SprtSettings(0, 50, method="normal")).decision == "continue"


@pytest.mark.parametrize("method", ["exact", "normal"])
def test_more_wins_raise_the_ratio_and_more_losses_lower_it(method: Any) -> None:
    for draws in (0, 5, 30):
        for losses in (0, 4, 25):
            ratios = [llr(SprtState(wins, draws, losses), -10, 20, method) for wins in range(40)]
            assert all(a < b for a, b in itertools.pairwise(ratios)), (draws, losses)
        for wins in (1, 12):
            ratios = [llr(SprtState(wins, draws, losses), -10, 20, method) for losses in range(1, 40)]
            assert all(a > b for a, b in itertools.pairwise(ratios)), (draws, wins)


@pytest.mark.parametrize("method", ["exact", "normal"])
def test_mirrored_games_and_hypotheses_negate_the_ratio(method: Any) -> None:
    # Swapping wins with losses and H0 = e0, H1 = e1 with H0 = -e1, H1 = -e0 is the same test seen
    # from the other side: the ratio changes sign.
    for wins, draws, losses in [(7, 3, 2), (40, 0, 31), (1, 50, 9), (0, 2, 5)]:
        forward = llr(SprtState(wins, draws, losses), -5, 35, method)
        assert llr(SprtState(losses, draws, wins), -35, 5, method) == pytest.approx(-forward)


def test_both_methods_agree_on_long_matches_with_close_bounds() -> None:
    state = SprtState(4307, 8620, 4063)
    assert llr(state, 0, 3) == pytest.approx(llr(state, 0, 3, "normal"), rel=1e-3)


def test_decisions() -> None:
    settings = SprtSettings(0, 50)
    # 60 wins, 20 losses: a clear H1 (LLR about 4.96).
    assert sprt(SprtState(60, 0, 20), settings).decision == "H1"
    assert sprt(SprtState(20, 0, 60), settings).decision == "H0"
    assert sprt(SprtState(30, 10, 30), settings).decision == "continue"
    # At the cap without crossing a bound, the test stops undecided.
    capped = sprt(SprtState(3, 4, 3), replace(settings, max_games=10))
    assert (capped.decision, capped.games) == ("cap", 10)
    # A bound crossed on the last game allowed still decides.
    assert sprt(SprtState(60, 0, 20), replace(settings, max_games=80)).decision == "H1"


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"elo0": 10, "elo1": 10}, "elo1"),
        ({"elo0": 10, "elo1": 0}, "elo1"),
        ({"elo0": math.nan, "elo1": 0}, "elo0"),
        ({"elo0": 0, "elo1": 5000}, "elo1"),
        ({"elo0": 0, "elo1": 5, "alpha": 0}, "alpha"),
        ({"elo0": 0, "elo1": 5, "alpha": 0.5}, "alpha"),
        ({"elo0": 0, "elo1": 5, "beta": -0.1}, "beta"),
        ({"elo0": 0, "elo1": 5, "beta": 0.7}, "beta"),
        ({"elo0": 0, "elo1": 5, "max_games": 0}, "max_games"),
        ({"elo0": 0, "elo1": 5, "method": "bayes"}, "method"),
    ],
)
def test_bad_settings_name_the_field(kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(ValueError, match=f"^{field}:"):
        SprtSettings(**kwargs)


def test_negative_counts_are_refused() -> None:
    with pytest.raises(ValueError, match=r"^losses:"):
        SprtState(1, 0, -1)
