"""Round robin and double round robin: every group of a table's size meets once (twice, seats swapped), all
made at the start and sent to the workers at once."""

from __future__ import annotations

from collections.abc import Sequence

from tournaments.formats.base import FormatBase
from tournaments.formats.scheduled import first_rounds_create
from tournaments.models import Competition
from tournaments.pairing import round_robin


class RoundRobin(FormatBase):
    def __init__(self, *, key: str, label: str, summary: str, cycles: int) -> None:
        self.key, self.label, self.summary, self.cycles = key, label, summary, cycles

    def start(self, competition: Competition, entrants: list[int], order: Sequence[int] | None) -> None:
        first_rounds_create(
            competition, lambda: round_robin(entrants, competition.players_per_match, cycles=self.cycles)
        )


ROUND_ROBIN = RoundRobin(
    key="round_robin",
    label="Round robin",
    summary="everyone meets everyone once: a small group with time for it",
    cycles=1,
)
DOUBLE_ROUND_ROBIN = RoundRobin(
    key="double_round_robin",
    label="Double round robin",
    summary="everyone meets everyone twice, seats swapped the second time, so the first seat's edge evens out",
    cycles=2,
)
