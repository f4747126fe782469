"""The sequential probability ratio test that decides which of two entrants is stronger ("play to separation").

Pure arithmetic, no Django: the server's play to separation (tournaments/services/separation.py) and the offline
gauntlet (engine/gauntlet.py) both decide with :func:`sprt`, so they give the same verdict for the same games.

After each game, :func:`sprt` weighs the wins, draws and losses so far:

- H0: the first entrant is ``elo0`` Elo stronger than the second; H1: it is ``elo1`` stronger
  (``elo0 < elo1``; a club asking "is A better?" might use 0 and 50).
- Wald's bounds: the test accepts H1 once the log-likelihood ratio reaches log((1-beta)/alpha), and
  H0 once it falls to log(beta/(1-alpha)). Accepting H1 when H0 holds then happens with
  probability about alpha at most, and accepting H0 when H1 holds about beta at most.
- Scores follow the logistic Elo model: an entrant ``elo`` stronger expects a score of
  1 / (1 + 10^(-elo/400)) per game (win 1, draw ½, loss 0).

Nothing is assumed about how often games are drawn: a game's score is 1, ½ or 0 with unknown
probabilities, and the test compares the likeliest such probabilities whose mean score is s1 (H1)
with the likeliest whose mean is s0 (H0), given the games so far: the generalised log-likelihood
ratio fishtest (the engine testers' framework) uses for win/draw/loss results. (cutechess-cli, the
other common tool, also takes the draw ratio from the data, but through the BayesElo draw model.)

- ``"exact"`` (the default): the maximum-likelihood probabilities under "mean score = s" are
  p_i / (1 + θ·(a_i − s)), where p_i are the observed frequencies of the scores a_i ∈ {1, ½, 0} and
  θ makes their mean s; the LLR is n · Σ p_i · [log(1 + θ0·(a_i − s0)) − log(1 + θ1·(a_i − s1))].
  With three outcomes the equation for θ is a quadratic, solved in closed form.
- ``"normal"``: M. Van den Bergh's approximation of the same ratio ("GSPRT approximation"), which
  fishtest used before computing the ratio exactly. With n games, mean score m and per-game variance v
  from the observed frequencies,

      LLR ≈ n · (s1 − s0) · (2m − s0 − s1) / (2v)

  the log-ratio of two normal likelihoods for the mean score, centred on s1 and on s0, with the
  variance the data show.

Why the exact form is the default: with bounds far apart (0 and 50 Elo, a gap a club's bots can
have) a test lasts only a couple of hundred games, and there the approximation accepts H1 at elo0
about 6.5% of the time against an alpha of 5%; the exact ratio keeps to 5%
(``tournaments/bench_sprt.py``, docs/performance.md "SPRT (issue 14)"). With close bounds and
thousands of games the two agree.

While one of the three outcomes has not happened yet, the frequencies the data show are degenerate
(three straight wins say the variance is zero), and the ratio would leap past a bound after a handful
of games. So, as fishtest regularises empty counts, an outcome not seen yet counts as half a game.
Fishtest puts a tiny count there, enough in runs of thousands of games; here a test starts from its
first game, where half a game keeps three straight wins from deciding anything.

A test that reaches ``max_games`` without crossing a bound stops undecided: ``"cap"``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

#: The weight of an outcome not seen yet, in games (see the module's docstring).
UNSEEN = 0.5

#: Beyond this gap the expected score is 1 or 0 to within 1e-5, and the test has nothing to tell apart.
MAX_ELO = 2000

Decision = Literal["H0", "H1", "continue", "cap"]
Method = Literal["exact", "normal"]
#: The score of a win, a draw and a loss.
_SCORES = (1.0, 0.5, 0.0)


@dataclass(frozen=True)
class SprtSettings:
    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    max_games: int = 2000
    method: Method = "exact"  # how the LLR is computed (see the module's docstring)

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1", "alpha", "beta"):
            if not math.isfinite(getattr(self, name)):
                raise ValueError(f"{name}: must be a finite number")
        for name in ("elo0", "elo1"):
            if abs(getattr(self, name)) > MAX_ELO:
                raise ValueError(f"{name}: must be between -{MAX_ELO} and {MAX_ELO}")
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo1: must be greater than elo0 ({self.elo0}), not {self.elo1}")
        if not 0 < self.alpha < 0.5:
            raise ValueError(f"alpha: must be between 0 and 0.5, not {self.alpha}")
        if not 0 < self.beta < 0.5:
            raise ValueError(f"beta: must be between 0 and 0.5, not {self.beta}")
        if self.max_games < 1:
            raise ValueError(f"max_games: must be at least 1, not {self.max_games}")
        if self.method not in ("exact", "normal"):
            raise ValueError(f"method: must be 'exact' or 'normal', not {self.method!r}")

    @property
    def lower(self) -> float:
        """At or below this LLR the test accepts H0."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """At or above this LLR the test accepts H1."""
        return math.log((1 - self.beta) / self.alpha)


@dataclass(frozen=True)
class SprtState:
    """The first entrant's results against the second so far."""

    wins: int
    draws: int
    losses: int

    def __post_init__(self) -> None:
        for name in ("wins", "draws", "losses"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name}: must not be negative")

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


@dataclass(frozen=True)
class SprtVerdict:
    llr: float
    lower: float
    upper: float
    decision: Decision
    games: int


def expected_score(elo: float) -> float:
    """The logistic Elo model's expected score per game of an entrant ``elo`` stronger."""
    return 1 / (1 + 10 ** (-elo / 400))


def llr(state: SprtState, elo0: float, elo1: float, method: Method = "exact") -> float:
    """The log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``); 0 before any game."""
    if state.games == 0:
        return 0.0
    counts = [float(count) if count else UNSEEN for count in (state.wins, state.draws, state.losses)]
    n = sum(counts)
    frequencies = [count / n for count in counts]
    s0, s1 = expected_score(elo0), expected_score(elo1)
    if method == "normal":
        mean = sum(p * a for p, a in zip(frequencies, _SCORES, strict=True))
        # E[score²] − mean²; with every outcome weighted above zero it is positive.
        variance = sum(p * a * a for p, a in zip(frequencies, _SCORES, strict=True)) - mean * mean
        return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)
    return n * (_log_likelihood(frequencies, s1) - _log_likelihood(frequencies, s0))


def _log_likelihood(frequencies: list[float], s: float) -> float:
    """Per game, the log-likelihood of the likeliest outcome probabilities with mean score ``s``,
    less that of the observed frequencies themselves (a constant that cancels in the ratio)."""
    theta = _theta(frequencies, s)
    return -sum(p * math.log1p(theta * (a - s)) for p, a in zip(frequencies, _SCORES, strict=True))


def _theta(frequencies: list[float], s: float) -> float:
    """The θ with Σ p_i·x_i / (1 + θ·x_i) = 0, x_i = a_i − s, and every 1 + θ·x_i > 0.

    The left side falls strictly from +∞ to −∞ over θ ∈ (−1/(1−s), 1/s), so exactly one θ there
    solves it. Multiplying out the three denominators turns it into c2·θ² + c1·θ + c0 = 0 with
    c0 = Σ p_i·x_i, c1 = Σ p_i·x_i·(x_j + x_k) (j, k the other two) and c2 = x_1·x_2·x_3 (as Σ p_i = 1).
    """
    x = [a - s for a in _SCORES]
    c0 = sum(p * xi for p, xi in zip(frequencies, x, strict=True))
    if c0 == 0:
        return 0.0
    c1 = sum(frequencies[i] * x[i] * (sum(x) - x[i]) for i in range(3))
    c2 = x[0] * x[1] * x[2]
    low, high = -1 / (1 - s), 1 / s
    # The numerically stable roots: q/c2 and c0/q; c2 is 0 when s is exactly ½ (a linear equation).
    q = -(c1 + math.copysign(math.sqrt(max(c1 * c1 - 4 * c2 * c0, 0.0)), c1)) / 2
    roots = [c0 / q] if q else []
    if c2:
        roots.append(q / c2)
    inside = [root for root in roots if low < root < high]
    if not inside:
        raise ArithmeticError(f"no root for theta at s={s}, frequencies {frequencies}")
    return inside[0]


def sprt(state: SprtState, settings: SprtSettings) -> SprtVerdict:
    """Where the test stands after ``state``'s games: accept H0, accept H1, play on, or stop at the cap."""
    ratio = llr(state, settings.elo0, settings.elo1, settings.method)
    lower, upper = settings.lower, settings.upper
    decision: Decision
    if ratio >= upper:
        decision = "H1"
    elif ratio <= lower:
        decision = "H0"
    elif state.games >= settings.max_games:
        decision = "cap"
    else:
        decision = "continue"
    return SprtVerdict(llr=ratio, lower=lower, upper=upper, decision=decision, games=state.games)


#: The settings a play to separation starts from (tournaments/formats/separation.py) and the offline gauntlet's
#: defaults (engine/gauntlet.py): "no edge" (H0) against "50 Elo stronger" (H1), 5% each way, at most 2,000 games.
DEFAULTS = SprtSettings(elo0=0.0, elo1=50.0)
