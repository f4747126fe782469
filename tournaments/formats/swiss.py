"""Swiss: round one from the entry order, each later round paired from the standings once the one before is
over (tournaments/swiss.py, services/swiss_rounds.py), ranked by match points and then by Buchholz cut 1,
Buchholz and Sonneborn-Berger (tournaments/swiss_standings.py)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from league.standings import Tiebreak
from tournaments.formats.base import FormatBase, Ranking
from tournaments.formats.scheduled import first_rounds_create
from tournaments.formats.spec import Choice, Spec, WholeNumber
from tournaments.formats.values import whole_setting
from tournaments.models import Competition
from tournaments.pairing import PairingError, Table
from tournaments.services.swiss_rounds import byes_award, swiss_next_round
from tournaments.swiss import SwissEntrant, pair_swiss, swiss_rounds
from tournaments.swiss_standings import SWISS_ORDER, swiss_tiebreaks


class Swiss(FormatBase):
    key = "swiss"
    label = "Swiss"
    summary = "a big field in one evening: a few rounds, each pairing players on equal scores, and a clear winner"
    pairs_round_by_round = True
    settings: Spec = (
        WholeNumber(
            name="round_count",
            label="Rounds",
            help="rounds to play; empty for the usual number, just enough to leave one clear winner",
            default=None,
            nullable=True,
            minimum=1,
            maximum=1000,
        ),
        Choice(
            name="bye_points",
            label="Sitting out a round scores",
            help="what a player left without a table in a round (a bye) scores",
            default=Competition.ByePoints.WIN.value,
            choices=tuple((value, str(label)) for value, label in Competition.ByePoints.choices),
        ),
    )

    def start(self, competition: Competition, entrants: list[int], order: Sequence[int] | None) -> None:
        table_size = competition.players_per_match
        paired: list[Table] = []

        def first_round() -> list[list[Table]]:
            if table_size < 2 or len(entrants) < table_size:
                raise PairingError(f"a Swiss of tables of {table_size} needs at least {table_size} entrants")
            seeded = [
                SwissEntrant(id=e, score=Fraction(0), rank=i, opponents=frozenset(), byes=0, seat_balance=0)
                for i, e in enumerate(entrants, start=1)
            ]
            paired.extend(pair_swiss(seeded, table_size=table_size, rng_seed=0).tables)
            return [paired]

        first_rounds_create(competition, first_round)
        seated = {entrant for table in paired for entrant in table}
        byes_award(competition, [e for e in entrants if e not in seated])
        rounds = whole_setting(competition, "round_count") or swiss_rounds(len(entrants))
        competition.settings = {**competition.settings, "round_count": rounds}

    def next_round(self, competition: Competition, number: int) -> list[int]:
        return swiss_next_round(competition, number)

    def standings_figures(self, game_order: tuple[Tiebreak, ...]) -> tuple[Tiebreak, ...]:
        return (game_order[0], *SWISS_ORDER, *game_order[1:])

    def ranking(self, competition: Competition) -> Ranking:
        figures = swiss_tiebreaks(competition)
        computed = {
            entrant: {tiebreak.key: getattr(values, tiebreak.key) for tiebreak in SWISS_ORDER}
            for entrant, values in figures.items()
        }
        return Ranking(computed=computed, resort=True)


SWISS = Swiss()
