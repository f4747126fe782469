"""A Swiss competition's tiebreaks, from its recorded matches and byes (the arithmetic: tournaments/swiss_tiebreaks.py).

A Swiss ranks by match points, then Buchholz cut 1, Buchholz and Sonneborn-Berger, and only then by the
game's own figures: in a Swiss not everyone meets everyone, so whom one met says how much a score is worth.
Computed when the table is read (and cached with it, tournaments/standings_cache.py): they change with
every result of every opponent, which no running sum in a standings row could follow.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from typing import Any, cast

from league.standings import Tiebreak
from tournaments.formats.values import whole_setting
from tournaments.models import Competition, Game, LiveMove, Match, MatchParticipant, units_per_point
from tournaments.services.swiss_rounds import bye_units
from tournaments.swiss_tiebreaks import Result, Tiebreaks, tiebreaks

#: The Swiss tiebreaks, in the order they decide, after match points. No standings column holds them.
SWISS_ORDER = (
    Tiebreak("buchholz_cut1", "Buchholz cut 1", True, ""),
    Tiebreak("buchholz", "Buchholz", True, ""),
    Tiebreak("sonneborn_berger", "Sonneborn-Berger", True, ""),
)


def no_shows(competition: Competition) -> set[tuple[int, int]]:
    """(match, entrant) for each person who never came to a live match: lost a game of it on time without taking
    a single decision at its tables. Their rounds are forfeits in the tiebreaks (FIDE C.07 Article 16), not games
    played. A bot that timed out, or a person who played and then ran out of time, played the match."""
    if competition.people_play != Competition.PeoplePlay.LIVE:
        # A transcript records the real table's play, not the server's clock: it has no no-shows to find.
        return set()
    people_matches = MatchParticipant.objects.filter(
        match__competition=competition, match__status=Match.Status.DONE, entrant__player__isnull=False
    ).values_list("match_id", flat=True)
    timed_out: set[tuple[int, int]] = set()
    for match_id, seating, result in Game.objects.filter(match_id__in=people_matches).values_list(
        "match_id", "seating", "result"
    ):
        forfeit: dict[str, Any] = cast(dict[str, Any], result or {}).get("forfeit") or {}
        who: list[int | None] = cast(list[int | None], seating)
        if forfeit.get("cause") == "timeout" and (entrant := who[forfeit["seat"]]) is not None:
            timed_out.add((match_id, entrant))
    if not timed_out:
        return set()
    moved = set(LiveMove.objects.filter(match_id__in={m for m, _ in timed_out}).values_list("match_id", "entrant_id"))
    people = set(competition.entrants.filter(player__isnull=False).values_list("id", flat=True))
    return {(match, entrant) for match, entrant in timed_out - moved if entrant in people}


def swiss_tiebreaks(competition: Competition) -> dict[int, Tiebreaks]:
    """Each entrant's tiebreaks over the rounds played so far; a handful of queries, whatever the field."""
    per_point = units_per_point(competition.players_per_match)
    tables: dict[int, list[tuple[int, int, int | None, int | None]]] = defaultdict(list)
    for match_id, round_number, entrant, units, rank in MatchParticipant.objects.filter(
        match__competition=competition, match__status=Match.Status.DONE
    ).values_list("match_id", "match__round__number", "entrant_id", "match_units", "rank"):
        tables[match_id].append((round_number, entrant, units, rank))
    results: list[Result] = []
    seated: dict[int, set[int]] = defaultdict(set)
    absent = no_shows(competition)
    for match_id, table in tables.items():
        places = {entrant: rank or 0 for _, entrant, _, rank in table}
        missing = {entrant for entrant in places if (match_id, entrant) in absent}
        for round_number, entrant, units, _ in table:
            seated[round_number].add(entrant)
            # Those who came played whoever else came; with nobody else there, theirs is a forfeit win.
            others = tuple(other for other in places if other != entrant)
            came = tuple(other for other in others if other not in missing)
            stayed_away = entrant in missing
            results.append(
                Result(
                    round=round_number,
                    entrant=entrant,
                    opponents=came if came and not stayed_away else others,
                    points=Fraction(units or 0, per_point),
                    forfeit_loss=stayed_away,
                    forfeit_win=bool(missing) and not stayed_away and not came,
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
    return tiebreaks(
        results, bye_points=bye, rounds=max(whole_setting(competition, "round_count") or 0, max(seated, default=0))
    )
