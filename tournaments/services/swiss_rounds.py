"""A Swiss competition's rounds after the first: paired from the standings once the round before is over.

Called with the competition's lock held: by recording, when a round's last match is recorded
(services/scheduling.py ``next_round_release_if_done``), and by the start for the first round's byes.
A round is over when every match of it is done or cancelled; a match in error holds the next round
(as it holds the ratings) until an organiser retries it, so that no round is paired from a standings
table missing a result. The pairing itself is tournaments/swiss.py, a pure function of what is read
here, with a random stream derived from the competition's seed: the same results pair the same rounds.

An entrant without a table in a round has a bye, scored as the competition's ``bye_points`` say:
its match points go into its standings row when the round is made.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from fractions import Fraction

from django.db.models import F

from engine.rng import derive_seed
from tournaments.formats.values import text_setting, whole_setting
from tournaments.models import Competition, Match, MatchParticipant, Round, Standing, units_per_point
from tournaments.services.challenge_decisions import table_changed
from tournaments.services.round_rows import rounds_create
from tournaments.swiss import SwissEntrant, pair_swiss, seat_balance_change


def bye_units(competition: Competition) -> int:
    """A bye's match points, in the standings' exact units."""
    per_point = units_per_point(competition.players_per_match)
    return {
        Competition.ByePoints.WIN: per_point,
        Competition.ByePoints.DRAW: per_point // 2,
        Competition.ByePoints.NONE: 0,
    }[Competition.ByePoints(text_setting(competition, "bye_points"))]


def swiss_next_round(competition: Competition, number: int) -> list[int]:
    """Pair and write round ``number`` (the round before it is over) if the Swiss has rounds left; the new
    match ids (none otherwise)."""
    rounds = whole_setting(competition, "round_count")
    if rounds is not None and number > rounds:
        return []
    entrants = swiss_state(competition)
    paired = pair_swiss(
        entrants,
        table_size=competition.players_per_match,
        rng_seed=derive_seed(competition.seed, f"swiss/round/{number}"),
    )
    match_ids = rounds_create(competition, number, [paired.tables])
    byes_award(competition, paired.byes)
    return match_ids


def byes_award(competition: Competition, entrants: Iterable[int]) -> None:
    """Each of ``entrants`` had a bye: its points into its standings row (a new results version)."""
    byes = list(entrants)
    units = bye_units(competition)
    if byes and units:
        Standing.objects.filter(entrant_id__in=byes).update(
            match_units=F("match_units") + units, bye_units=F("bye_units") + units
        )
        table_changed(competition.pk)


def swiss_state(competition: Competition) -> list[SwissEntrant]:
    """What the pairing knows of each entrant: score, place, opponents met, byes and seats so far."""
    per_point = units_per_point(competition.players_per_match)
    standings = list(
        Standing.objects.filter(competition=competition).values_list("entrant_id", "match_units").order_by("entrant_id")
    )
    tables: dict[int, list[tuple[int, int]]] = defaultdict(list)
    rounds_of: dict[int, set[int]] = defaultdict(set)
    seated = (
        MatchParticipant.objects.filter(match__competition=competition)
        .exclude(match__status=Match.Status.CANCELLED)
        .values_list("match_id", "entrant_id", "seat", "match__round__number")
    )
    for match_id, entrant, seat, round_number in seated:
        tables[match_id].append((seat, entrant))
        rounds_of[entrant].add(round_number)
    opponents: dict[int, set[int]] = defaultdict(set)
    balance: dict[int, int] = defaultdict(int)
    for table in tables.values():
        size = len(table)
        for seat, entrant in table:
            opponents[entrant].update(other for _, other in table if other != entrant)
            balance[entrant] += seat_balance_change(seat, size)
    rounds_made = Round.objects.filter(competition=competition).count()
    # Seeding within a score: entry order, as the first round was seeded.
    order = sorted(standings, key=lambda row: (-row[1], row[0]))
    return [
        SwissEntrant(
            id=entrant,
            score=Fraction(units, per_point),
            rank=place,
            opponents=frozenset(opponents[entrant]),
            byes=rounds_made - len(rounds_of[entrant]),
            seat_balance=balance[entrant],
        )
        for place, (entrant, units) in enumerate(order, start=1)
    ]
