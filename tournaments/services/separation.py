"""Play to separation: two entrants play one match a round until the sequential test decides.

After each round (called with the competition's lock held, by recording, services/scheduling.py), the
first entrant's wins, draws and losses over every game so far go into the SPRT (engine/sprt.py):
while it says "continue" another round is made, seats swapped; once it accepts a hypothesis or the
games reach the cap, no round follows and the competition finishes. This is how engine testers decide
which of two bots is stronger, with known error rates, in as few games as the gap allows.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db.models import Count, Q

from engine.match import round_order
from engine.sprt import SprtSettings, SprtState, SprtVerdict, sprt
from tournaments.formats.values import number_setting, whole_setting
from tournaments.models import Competition, Entrant, Game, Match
from tournaments.services.round_rows import rounds_create


def separation_settings(*, elo0: float, elo1: float, alpha: float, beta: float, max_games: int) -> SprtSettings:
    """The test's settings, or a ValidationError naming the field (``sprt_elo1``, ...) that is wrong."""
    try:
        return SprtSettings(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, max_games=max_games)
    except ValueError as exc:
        field, _, message = str(exc).partition(": ")
        raise ValidationError({f"sprt_{field}": message}) from None


def competition_settings(competition: Competition) -> SprtSettings:
    return separation_settings(
        elo0=number_setting(competition, "sprt_elo0"),
        elo1=number_setting(competition, "sprt_elo1"),
        alpha=number_setting(competition, "sprt_alpha"),
        beta=number_setting(competition, "sprt_beta"),
        max_games=whole_setting(competition, "sprt_max_games") or 1,
    )


@dataclass(frozen=True)
class Separation:
    """The test as it stands: who is counted against whom, their results, the settings and the verdict."""

    first: Entrant
    second: Entrant
    state: SprtState
    settings: SprtSettings
    verdict: SprtVerdict

    @property
    def decision(self) -> str:
        """What the decision means, in words, for the pages."""
        elo0, elo1 = f"{self.settings.elo0:g} Elo", f"{self.settings.elo1:g} Elo"
        return {
            "H0": f"H0 accepted: {self.first.name}'s edge is {elo0}, not {elo1}",
            "H1": f"H1 accepted: {self.first.name}'s edge is {elo1}, not {elo0}",
            "continue": "undecided: more games to play",
            "cap": f"stopped undecided after {self.settings.max_games} games",
        }[self.verdict.decision]


def separation_report(competition: Competition) -> Separation | None:
    """Where the test stands; None before there are two entrants. Three queries.

    The first entrant (by entry) is the one counted; a game without one winner is a draw.
    """
    entrants = list(competition.entrants.order_by("id")[:2])
    if len(entrants) != 2:
        return None
    first, second = entrants
    counts = Game.objects.filter(match__competition=competition, match__status=Match.Status.DONE).aggregate(
        games=Count("id"), wins=Count("id", filter=Q(winner=first)), losses=Count("id", filter=Q(winner=second))
    )
    state = SprtState(
        wins=counts["wins"], draws=counts["games"] - counts["wins"] - counts["losses"], losses=counts["losses"]
    )
    settings = competition_settings(competition)
    return Separation(first=first, second=second, state=state, settings=settings, verdict=sprt(state, settings))


def separation_next_round(competition: Competition, number: int) -> list[int]:
    """Round ``number`` (the round before is over) if the test has not decided; the new match ids."""
    report = separation_report(competition)
    if report is None or report.verdict.decision != "continue":
        return []
    # Seats swap every round (and rotate within each match), so neither plays every deal from one side.
    entrants = (report.first.pk, report.second.pk)
    return rounds_create(competition, number, [[tuple(entrants[who] for who in round_order(number))]])
