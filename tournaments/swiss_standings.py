"""A Swiss competition's tiebreaks, from its recorded matches and byes (the arithmetic: tournaments/swiss_tiebreaks.py).

A Swiss ranks by match points, then Buchholz cut 1, Buchholz and Sonneborn-Berger, and only then by the
game's own figures: in a Swiss not everyone meets everyone, so whom one met says how much a score is worth.
Computed when the table is read (and cached with it, tournaments/standings_cache.py): they change with
every result of every opponent, which no running sum in a standings row could follow.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

from league.standings import Tiebreak
from tournaments.models import Competition, Match, MatchParticipant, units_per_point
from tournaments.services.swiss_rounds import bye_units
from tournaments.swiss_tiebreaks import Result, Tiebreaks, tiebreaks

#: The Swiss tiebreaks, in the order they decide, after match points. No standings column holds them.
SWISS_ORDER = (
    Tiebreak("buchholz_cut1", "Buchholz cut 1", True, ""),
    Tiebreak("buchholz", "Buchholz", True, ""),
    Tiebreak("sonneborn_berger", "Sonneborn-Berger", True, ""),
)


def swiss_tiebreaks(competition: Competition) -> dict[int, Tiebreaks]:
    """Each entrant's tiebreaks over the rounds played so far; three queries."""
    per_point = units_per_point(competition.players_per_match)
    tables: dict[int, list[tuple[int, int, int | None, int | None]]] = defaultdict(list)
    for match_id, round_number, entrant, units, rank in MatchParticipant.objects.filter(
        match__competition=competition, match__status=Match.Status.DONE
    ).values_list("match_id", "match__round__number", "entrant_id", "match_units", "rank"):
        tables[match_id].append((round_number, entrant, units, rank))
    results: list[Result] = []
    seated: dict[int, set[int]] = defaultdict(set)
    for table in tables.values():
        places = {entrant: rank or 0 for _, entrant, _, rank in table}
        for round_number, entrant, units, _ in table:
            seated[round_number].add(entrant)
            results.append(
                Result(
                    round=round_number,
                    entrant=entrant,
                    opponents=tuple(other for other in places if other != entrant),
                    points=Fraction(units or 0, per_point),
                    places=places,
                )
            )
    entrants = list(competition.entrants.values_list("id", flat=True))
    bye = Fraction(bye_units(competition), per_point)
    # A round whose matches are all recorded, in which an entrant had no table: its bye.
    open_rounds = set(
        Match.objects.filter(competition=competition)
        .exclude(status__in=Match.OVER)
        .values_list("round__number", flat=True)
    )
    finished_rounds = set(seated) - open_rounds
    for round_number in sorted(finished_rounds):
        results += [
            Result(round=round_number, entrant=e, opponents=(), points=bye)
            for e in entrants
            if e not in seated[round_number]
        ]
    return tiebreaks(results, bye_points=bye, rounds=max(competition.round_count or 0, max(seated, default=0)))
