"""Play to separation: two entrants play one match a round, seats swapped, until a sequential probability
ratio test decides which is stronger (services/separation.py, engine/sprt.py)."""

from __future__ import annotations

from collections.abc import Sequence

from django.http import HttpRequest
from django.template.loader import render_to_string

from engine.sprt import DEFAULTS, MAX_ELO, SprtSettings
from tournaments.formats.base import Draft, FormatBase
from tournaments.formats.scheduled import first_rounds_create
from tournaments.formats.spec import Number, Spec, WholeNumber
from tournaments.models import Competition
from tournaments.pairing import PairingError, Table
from tournaments.services.separation import Separation, separation_next_round, separation_report

KEY = "separation"


class PlayToSeparation(FormatBase):
    key = KEY
    label = "Play to separation"
    summary = "which of two bots (or players) is really stronger, in as few games as the gap allows"
    pairs_round_by_round = True
    settings: Spec = (
        Number(
            name="sprt_elo0",
            label="No real difference below (Elo)",
            help="the first player's edge, in Elo rating points, that still counts as no real difference (H0)",
            default=DEFAULTS.elo0,
            minimum=-MAX_ELO,
            maximum=MAX_ELO,
        ),
        Number(
            name="sprt_elo1",
            label="A real difference from (Elo)",
            help="the first player's edge, in Elo rating points, that counts as really stronger (H1); above H0",
            default=DEFAULTS.elo1,
            minimum=-MAX_ELO,
            maximum=MAX_ELO,
        ),
        Number(
            name="sprt_alpha",
            label="Chance of a false 'stronger'",
            help="the chance of accepting H1 wrongly, between 0 and 0.5",
            default=DEFAULTS.alpha,
            minimum=0.0,
            maximum=0.5,
            exclusive=True,
        ),
        Number(
            name="sprt_beta",
            label="Chance of a false 'no difference'",
            help="the chance of accepting H0 wrongly, between 0 and 0.5",
            default=DEFAULTS.beta,
            minimum=0.0,
            maximum=0.5,
            exclusive=True,
        ),
        WholeNumber(
            name="sprt_max_games",
            label="Most games",
            help="past this many games the test stops undecided",
            default=DEFAULTS.max_games,
            minimum=1,
            maximum=1_000_000,
        ),
    )

    def check(self, draft: Draft) -> dict[str, str]:
        refused: dict[str, str] = {}
        if draft.players_per_match != 2:
            refused["players_per_match"] = "play to separation is between two entrants at a table of two"
        try:
            SprtSettings(
                elo0=float(draft.settings["sprt_elo0"] or 0),
                elo1=float(draft.settings["sprt_elo1"] or 0),
                alpha=float(draft.settings["sprt_alpha"] or 0),
                beta=float(draft.settings["sprt_beta"] or 0),
                max_games=int(draft.settings["sprt_max_games"] or 0),
            )
        except ValueError as exc:
            field, _, message = str(exc).partition(": ")
            refused[f"sprt_{field}"] = message
        return refused

    def start(self, competition: Competition, entrants: list[int], order: Sequence[int] | None) -> None:
        first_rounds_create(competition, lambda: _first_round(entrants, competition.players_per_match))

    def next_round(self, competition: Competition, number: int) -> list[int]:
        return separation_next_round(competition, number)

    def page_part(self, competition: Competition, *, admin: bool, request: HttpRequest | None = None) -> str:
        report = separation_report(competition)
        if report is None:
            return ""
        return render_to_string(
            "formats/separation.html", {"separation": report, "admin": admin, "words": _in_words(report.settings)}
        )


def _in_words(settings: SprtSettings) -> dict[str, str]:
    """The test's settings as the page says them: each hypothesis an edge, each error rate a percentage."""

    def edge(elo: float) -> str:
        return "no edge" if elo == 0 else f"an edge of {elo:g} Elo"

    return {
        "edge0": edge(settings.elo0),
        "edge1": edge(settings.elo1),
        "alpha": f"{settings.alpha * 100:g}%",
        "beta": f"{settings.beta * 100:g}%",
    }


def _first_round(entrants: list[int], table_size: int) -> list[list[Table]]:
    if table_size != 2 or len(entrants) != 2:
        raise PairingError(f"play to separation is between exactly two entrants at a table of two, not {len(entrants)}")
    return [[(entrants[0], entrants[1])]]


def separation_of(competition: Competition) -> Separation | None:
    """Where a play to separation's test stands; None for another format or before there are two entrants."""
    return separation_report(competition) if competition.format == KEY else None


SEPARATION = PlayToSeparation()
