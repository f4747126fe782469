"""Ratings with openskill's Plackett-Luce model: 2 to 10 players, shared places allowed.

A pure function of (ratings before, ranks): the service applies it to matches
in a fixed order, so the same results always give the same ratings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from openskill.models import PlackettLuce

DEFAULT_MU = 25.0
DEFAULT_SIGMA = DEFAULT_MU / 3


@dataclass(frozen=True)
class Skill:
    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA

    @property
    def ordinal(self) -> float:
        """The displayed rating: a conservative estimate, mu - 3 sigma."""
        return self.mu - 3 * self.sigma


@cache
def _model() -> PlackettLuce:
    return PlackettLuce(mu=DEFAULT_MU, sigma=DEFAULT_SIGMA)


def rate(skills: Sequence[Skill], ranks: Sequence[int]) -> list[Skill]:
    """New skills after one match; ``ranks`` are places (1 first), equal places shared."""
    if len(skills) != len(ranks) or len(skills) < 2:
        raise ValueError("rate() needs one rank per player and at least two players")
    model = _model()
    teams = [[model.rating(mu=s.mu, sigma=s.sigma)] for s in skills]
    rated = model.rate(teams, ranks=[float(r) for r in ranks])
    return [Skill(mu=team[0].mu, sigma=team[0].sigma) for team in rated]
