"""The SPRT's error rates on simulated matches (tournaments/bench_sprt.py over engine/sprt.py), and that the check
would catch a broken test. The arithmetic itself: tests/engine/test_sprt.py."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from engine.sprt import Decision, SprtSettings, SprtState, SprtVerdict, sprt
from tournaments import bench_sprt

# The statistical check: seeded, so it gives the same answer every run (about 2 s).
SETTINGS = SprtSettings(elo0=0, elo1=50, alpha=0.05, beta=0.05)
TESTS = 400
MARGIN = 0.03  # about two and a half standard errors of a rate near 0.05 over 400 tests


def _simulate(elo: float) -> bench_sprt.Summary:
    return bench_sprt.simulate(SETTINGS, elo, draw_rate=0.3, tests=TESTS, rng=random.Random(1414))


@pytest.mark.slow
def test_error_rates_on_simulated_matches_keep_to_alpha_and_beta() -> None:
    at_elo0 = _simulate(SETTINGS.elo0)
    assert at_elo0.h1_rate <= SETTINGS.alpha + MARGIN, at_elo0
    at_elo1 = _simulate(SETTINGS.elo1)
    assert at_elo1.h0_rate <= SETTINGS.beta + MARGIN, at_elo1
    assert at_elo0.cap == at_elo1.cap == 0


def _swapped_bounds(state: SprtState, settings: SprtSettings) -> SprtVerdict:
    right = sprt(state, settings)
    lower, upper = right.upper, right.lower
    decision: Decision = "H1" if right.llr >= upper else "H0" if right.llr <= lower else "continue"
    return replace(right, lower=lower, upper=upper, decision=decision)


def _flipped_ratio(state: SprtState, settings: SprtSettings) -> SprtVerdict:
    mirrored = sprt(SprtState(state.losses, state.draws, state.wins), settings)
    swapped: dict[Decision, Decision] = {"H0": "H1", "H1": "H0"}
    return replace(mirrored, llr=-mirrored.llr, decision=swapped.get(mirrored.decision, "continue"))


@pytest.mark.parametrize("broken", [_swapped_bounds, _flipped_ratio])
def test_the_statistical_check_catches_a_broken_engine(broken: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench_sprt, "sprt", broken)
    assert _simulate(SETTINGS.elo0).h1_rate > SETTINGS.alpha + MARGIN
