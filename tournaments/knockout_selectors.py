"""Reads of a knockout: its bracket replayed from the seeds and the matches played (tournaments/knockout.py),
and the same bracket with names and match ids for the API, the admin site and the public page.

Two queries however big the bracket: the seeds, and every match's participants.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction

from tournaments.formats.knockout_settings import knockout_settings
from tournaments.knockout import Bracket, Played, Side, bracket
from tournaments.models import Competition, Entrant, Match, MatchParticipant


@dataclass(frozen=True)
class KnockoutRead:
    bracket: Bracket
    #: Entrant id -> (seed, name).
    entrants: dict[int, tuple[int, str]]
    #: (round number, table index) -> the match's id and status.
    matches: dict[tuple[int, int], tuple[int, str]]


def knockout_read(competition: Competition) -> KnockoutRead:
    """The bracket as the matches played so far make it (rounds still being played are not applied)."""
    seeded = list(
        Entrant.objects.filter(competition=competition, seed__isnull=False)
        .order_by("seed")
        .values_list("id", "seed", "name")
    )
    if not seeded:
        # Not started: no seeds, so no bracket yet.
        return KnockoutRead(bracket=Bracket(rounds=(), places={}, finished=False), entrants={}, matches={})
    rows = (
        MatchParticipant.objects.filter(match__competition=competition)
        .order_by("match__round__number", "match__number", "seat")
        .values_list(
            "match__round__number", "match__number", "match_id", "match__status", "entrant_id", "rank", "score"
        )
    )
    tables: dict[int, dict[int, list[tuple[int, int | None, Fraction]]]] = defaultdict(lambda: defaultdict(list))
    matches: dict[tuple[int, int], tuple[int, str]] = {}
    for round_number, number, match_id, status, entrant, rank, score in rows:
        matches[(round_number, number - 1)] = (match_id, status)
        tables[round_number][number].append((entrant, rank, Fraction(score or 0)))
    played: list[list[Played]] = []
    for round_number in sorted(tables):
        by_number = tables[round_number]
        statuses = {n: matches[(round_number, n - 1)][1] for n in by_number}
        # A round still being played, or cancelled with its competition: the bracket stops before it, so no
        # one is placed by results that were never played.
        if any(s != Match.Status.DONE for s in statuses.values()):
            break
        played.append([_played(by_number[n]) for n in sorted(by_number)])
    state = bracket([entrant for entrant, _, _ in seeded], knockout_settings(competition), played)
    return KnockoutRead(bracket=state, entrants={e: (seed or 0, name) for e, seed, name in seeded}, matches=matches)


def _played(seats: list[tuple[int, int | None, Fraction]]) -> Played:
    return Played(
        entrants=tuple(e for e, _, _ in seats),
        ranks=tuple(rank or 0 for _, rank, _ in seats),
        scores=tuple(score for _, _, score in seats),
    )


def knockout_places(competition: Competition) -> dict[int, int]:
    """Entrant id -> place, for those placed so far (everyone once the knockout is over)."""
    return knockout_read(competition).bracket.places


#: How the bracket's sides are named on pages.
SIDE_NAMES = {
    Side.UPPER: "Upper bracket",
    Side.LOWER: "Lower bracket",
    Side.FINAL: "Final",
    Side.THIRD: "Third place",
    Side.GRAND_FINAL: "Grand final",
    Side.RESET: "Grand final (reset)",
}


@dataclass(frozen=True)
class EntrantRef:
    id: int
    name: str
    seed: int


@dataclass(frozen=True)
class SeatView:
    entrant: EntrantRef
    #: Once the table is played: where the entrant finished at it (1 best, level ranks split by seed).
    finish: int | None
    advanced: bool


@dataclass(frozen=True)
class TableView:
    side: str
    side_name: str
    #: The match playing the table; None until its round is paired.
    match_id: int | None
    status: str
    #: Seat order until the table is played, then best first.
    seats: list[SeatView]


@dataclass(frozen=True)
class RoundView:
    number: int
    played: bool
    tables: list[TableView]
    #: (side name, entrants) for each bracket side with byes this round.
    byes: list[tuple[str, list[EntrantRef]]]
    wildcards: list[EntrantRef]
    dropped: list[EntrantRef]
    eliminated: list[EntrantRef]


@dataclass(frozen=True)
class BracketView:
    double: bool
    finished: bool
    rounds: list[RoundView]
    #: (place, entrant), best first: everyone placed so far.
    places: list[tuple[int, EntrantRef]]
    #: The entrants by seed.
    seeds: list[EntrantRef]


def bracket_view(competition: Competition) -> BracketView:
    """The bracket with names, seeds and match ids: for the API, the admin site and the public page."""
    read = knockout_read(competition)
    ref = {e: EntrantRef(e, name, seed) for e, (seed, name) in read.entrants.items()}
    rounds = []
    for round_ in read.bracket.rounds:
        tables = []
        for index, table in enumerate(round_.tables):
            match_id, status = read.matches.get((round_.number, index), (None, "unpaired"))
            shown = table.order or table.entrants
            seats = [
                SeatView(ref[e], finish=place if table.order else None, advanced=e in table.advanced)
                for place, e in enumerate(shown, start=1)
            ]
            tables.append(TableView(table.side.value, SIDE_NAMES[table.side], match_id, status, seats))
        rounds.append(
            RoundView(
                number=round_.number,
                played=round_.played,
                tables=tables,
                byes=[(SIDE_NAMES[side], [ref[e] for e in byes]) for side, byes in round_.byes.items()],
                wildcards=[ref[e] for e in round_.wildcards],
                dropped=[ref[e] for e in round_.dropped],
                eliminated=[ref[e] for e in round_.eliminated],
            )
        )
    places = sorted(((place, ref[e]) for e, place in read.bracket.places.items()), key=lambda p: (p[0], p[1].seed))
    return BracketView(
        double=knockout_settings(competition).double,
        finished=read.bracket.finished,
        rounds=rounds,
        places=places,
        seeds=sorted(ref.values(), key=lambda r: r.seed),
    )
