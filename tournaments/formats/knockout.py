"""Single and double elimination: a bracket re-seeded every round (tournaments/knockout.py), each round paired
from it once the one before is over (services/knockout_rounds.py), ranked by the place it gives."""

from __future__ import annotations

from collections.abc import Sequence

from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.template.loader import render_to_string

from tournaments.formats.base import Draft, FormatBase, Ranking, RoundByes
from tournaments.formats.knockout_settings import DOUBLE_ELIMINATION, SINGLE_ELIMINATION, knockout_settings
from tournaments.formats.scheduled import first_rounds_create
from tournaments.formats.spec import Choice, CompetitionRef, Flag, Spec, Value, WholeNumber
from tournaments.knockout import Settings, bracket, settings_errors
from tournaments.knockout_selectors import BracketView, bracket_view, knockout_places, knockout_read
from tournaments.models import Competition, Standing
from tournaments.pairing import PairingError, Table
from tournaments.services.knockout_rounds import knockout_next_round, knockout_seeds

KNOCKOUT_SETTINGS: Spec = (
    WholeNumber(
        name="advance_count",
        label="Going on from each table",
        help="players going on from each table: 1 at tables of two; at bigger tables a number that divides the "
        "table size",
        default=1,
        minimum=1,
        maximum=11,
        from_stage=True,
    ),
    Flag(
        name="third_place",
        label="Play for third place",
        help="at tables of two, the losing semi-finalists play for third",
        default=False,
        from_stage=True,
    ),
    Choice(
        name="seeding",
        label="Starting order",
        help="who counts as strongest when the bracket is drawn (the seeds), unless the order is set by hand at "
        "the start",
        default=Competition.Seeding.ENTRY.value,
        choices=tuple((value, str(label)) for value, label in Competition.Seeding.choices),
    ),
    CompetitionRef(
        name="seeded_from",
        label="Order from the results of",
        help="with the order taken from another competition's final table: that competition (of the same club and "
        "game)",
        default=None,
        nullable=True,
    ),
)


class Knockout(FormatBase):
    pairs_round_by_round = True
    start_order = "the seeds by hand: every entrant's id once, the best seed first"
    settings = KNOCKOUT_SETTINGS

    def __init__(self, *, key: str, label: str, summary: str, double: bool) -> None:
        self.key, self.label, self.summary, self.double = key, label, summary, double

    def check(self, draft: Draft) -> dict[str, str]:
        refused = settings_errors(
            Settings(
                draft.players_per_match,
                int(draft.settings["advance_count"] or 1),
                self.double,
                bool(draft.settings["third_place"]),
            )
        )
        seeding, source = draft.settings["seeding"], draft.settings["seeded_from"]
        if (seeding == Competition.Seeding.STANDINGS) != (source is not None):
            refused["seeded_from"] = 'give the competition to seed from exactly when seeding is "standings"'
        elif source is not None and source == draft.pk:
            refused["seeded_from"] = "a competition cannot be seeded by its own standings"
        elif (
            isinstance(source, int)
            and not Competition.objects.filter(pk=source, club_id=draft.club_id, game=draft.game).exists()
        ):
            refused["seeded_from"] = f"seed from a competition of the same club and game ({draft.game})"
        return refused

    def start(self, competition: Competition, entrants: list[int], order: Sequence[int] | None) -> None:
        size = competition.players_per_match
        if len(entrants) < size:
            raise ValidationError({"entrants": f"a knockout of tables of {size} needs as many entrants"})
        seeds = knockout_seeds(competition, entrants, order)
        first_rounds_create(competition, lambda: _first_round(seeds, knockout_settings(competition)))

    def after_stage(self, stage: Competition) -> dict[str, Value]:
        # Seeded by the stage's final standings.
        return {"seeding": Competition.Seeding.STANDINGS.value, "seeded_from": stage.pk}

    def next_round(self, competition: Competition, number: int) -> list[int]:
        return knockout_next_round(competition, number)

    def best_of(self, competition: Competition) -> bool:
        # At tables of two games_per_match is a best-of-N; at bigger tables every place counts, so all are played.
        return competition.players_per_match == 2

    def ranking(self, competition: Competition) -> Ranking:
        places = knockout_places(competition)

        def place(row: Standing) -> tuple[int]:
            return (places.get(row.entrant_id, 0),)

        return Ranking(first_key=place, resort=bool(places), settled=lambda row: bool(places.get(row.entrant_id)))

    def order_note(self, labels: list[str]) -> str:
        return (
            "Ordered by the place in the bracket (those still in first, then by the round they went out in), "
            "then " + ", then ".join(labels)
        )

    def round_byes(self, competition: Competition) -> RoundByes:
        # A knockout's byes are its bracket's: those knocked out are not sitting a round out.
        rounds = knockout_read(competition).bracket.rounds
        return RoundByes(by_round={r.number: sorted(e for b in r.byes.values() for e in b) for r in rounds})

    def page_part(self, competition: Competition, *, admin: bool, request: HttpRequest | None = None) -> str:
        drawn = bracket_view(competition) if competition.started_at is not None else None
        return render_to_string("formats/knockout.html", {"bracket": drawn, "admin": admin})


def _first_round(seeds: list[int], settings: Settings) -> list[list[Table]]:
    try:
        first = bracket(seeds, settings).next_round
    except ValueError as exc:
        raise PairingError(str(exc)) from None
    return [[table.entrants for table in first.tables]] if first is not None else []


def knockout_bracket(competition: Competition) -> BracketView | None:
    """The bracket of a knockout that has started; None for another format or before the start."""
    if competition.format not in (SINGLE_ELIMINATION, DOUBLE_ELIMINATION) or competition.started_at is None:
        return None
    return bracket_view(competition)


SINGLE = Knockout(
    key=SINGLE_ELIMINATION,
    label="Single elimination",
    summary="a cup: a clear winner in few matches, and everyone knows what is at stake",
    double=False,
)
DOUBLE = Knockout(
    key=DOUBLE_ELIMINATION,
    label="Double elimination",
    summary="a cup where one bad deal does not knock anyone out: a loss sends a player to a second bracket",
    double=True,
)
