"""Play to separation: two entrants play one match a round until the sequential test decides.

After each round (called with the competition's lock held, by recording, services/scheduling.py), the
first entrant's wins, draws and losses over every game so far go into the SPRT (tournaments/sprt.py):
while it says "continue" another round is made, seats swapped; once it accepts a hypothesis or the
games reach the cap, no round follows and the competition finishes. This is how engine testers decide
which of two bots is stronger, with known error rates, in as few games as the gap allows.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db.models import Count, Q

from tournaments.models import Competition, Entrant, Game, Match
from tournaments.services.round_rows import rounds_create
from tournaments.sprt import SprtSettings, SprtState, SprtVerdict, sprt

#: A round is over once each of its matches is in one of these.
SETTLED = (Match.Status.DONE, Match.Status.CANCELLED)


def separation_settings(*, elo0: float, elo1: float, alpha: float, beta: float, max_games: int) -> SprtSettings:
    """The test's settings, or a ValidationError naming the field (``sprt_elo1``, ...) that is wrong."""
    try:
        return SprtSettings(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, max_games=max_games)
    except ValueError as exc:
        field, _, message = str(exc).partition(": ")
        raise ValidationError({f"sprt_{field}": message}) from None


def competition_settings(competition: Competition) -> SprtSettings:
    return separation_settings(
        elo0=competition.sprt_elo0,
        elo1=competition.sprt_elo1,
        alpha=competition.sprt_alpha,
        beta=competition.sprt_beta,
        max_games=competition.sprt_max_games,
    )


def separation_pair(competition: Competition) -> tuple[Entrant, Entrant] | None:
    """The two entrants, the first (by entry) being the one whose results the test counts."""
    entrants = list(competition.entrants.order_by("id")[:2])
    return (entrants[0], entrants[1]) if len(entrants) == 2 else None


def separation_state(competition: Competition) -> SprtState:
    """The first entrant's wins, draws and losses in the games recorded so far (a game without one
    winner is a draw)."""
    pair = separation_pair(competition)
    if pair is None:
        return SprtState(wins=0, draws=0, losses=0)
    first, second = pair
    counts = Game.objects.filter(match__competition=competition, match__status=Match.Status.DONE).aggregate(
        games=Count("id"), wins=Count("id", filter=Q(winner=first)), losses=Count("id", filter=Q(winner=second))
    )
    return SprtState(
        wins=counts["wins"], draws=counts["games"] - counts["wins"] - counts["losses"], losses=counts["losses"]
    )


def separation_verdict(competition: Competition) -> SprtVerdict:
    return sprt(separation_state(competition), competition_settings(competition))


def separation_next_round(competition: Competition, number: int) -> list[int]:
    """Round ``number`` if the round before is over and the test has not decided; the new match ids."""
    if Match.objects.filter(competition=competition, round__number=number - 1).exclude(status__in=SETTLED).exists():
        return []
    if competition.rounds.filter(number=number).exists():
        return []  # made already (a second recording of the round's match)
    pair = separation_pair(competition)
    if pair is None or separation_verdict(competition).decision != "continue":
        return []
    first, second = pair
    # Seats swap every round (and rotate within each match), so neither plays every deal from one side.
    table = (first.pk, second.pk) if number % 2 else (second.pk, first.pk)
    return rounds_create(competition, number, [[table]])


def separation_page(competition: Competition) -> dict[str, object]:
    """The test as it stands, for the admin competition page; nothing for other formats."""
    pair = separation_pair(competition) if competition.format == Competition.Format.SEPARATION else None
    if pair is None:
        return {}
    verdict = separation_verdict(competition)
    settings = competition_settings(competition)
    return {
        "separation": {
            "first": pair[0],
            "second": pair[1],
            "state": separation_state(competition),
            "settings": settings,
            "verdict": verdict,
            "decision": decision_words(verdict, settings, pair[0].name),
        }
    }


def decision_words(verdict: SprtVerdict, settings: SprtSettings, first: str) -> str:
    """What the decision means, in words, for the pages."""
    elo0, elo1 = f"{settings.elo0:g} Elo", f"{settings.elo1:g} Elo"
    return {
        "H0": f"H0 accepted: {first}'s edge is {elo0}, not {elo1}",
        "H1": f"H1 accepted: {first}'s edge is {elo1}, not {elo0}",
        "continue": "undecided: more games to play",
        "cap": f"stopped undecided after {settings.max_games} games",
    }[verdict.decision]
