"""Writing rounds of matches: the Round, Match and MatchParticipant rows of tables of entrants, in bulk.

Every format makes its rounds here: a round robin's whole schedule at its start, a Swiss round and a
rating ladder's round when the last one is over, a challenge's round of one match. The caller holds
the competition's lock and sends the matches to the workers (services/scheduling.py).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from engine.rng import derive_seed
from tournaments.models import Competition, Match, MatchParticipant, Round

Table = tuple[int, ...]


def rounds_create(competition: Competition, first: int, schedule: Sequence[Sequence[Table]]) -> list[int]:
    """Rounds ``first``, ``first + 1``, ... holding ``schedule``'s tables (entrant ids in seat order); the new
    match ids in (round, table) order."""
    rounds = Round.objects.bulk_create(
        Round(competition=competition, number=number) for number in range(first, first + len(schedule))
    )
    people = set(competition.entrants.filter(player__isnull=False).values_list("id", flat=True))
    matches = Match.objects.bulk_create(
        Match(
            competition=competition,
            round=round_,
            number=number,
            seed=match_seed(competition, round_.number, number, seats_a_person=not people.isdisjoint(table)),
        )
        for round_, tables in zip(rounds, schedule, strict=True)
        for number, table in enumerate(tables, start=1)
    )
    tables = [table for tables in schedule for table in tables]
    MatchParticipant.objects.bulk_create(
        MatchParticipant(match=match, entrant_id=entrant, seat=seat)
        for match, table in zip(matches, tables, strict=True)
        for seat, entrant in enumerate(table)
    )
    return [match.pk for match in matches]


def round_over(competition: Competition, number: int) -> bool:
    """Whether every match of round ``number`` is done or cancelled (a round that does not exist is over):
    the formats that pair a round from the last one's results wait for this."""
    return not (
        Match.objects.filter(competition=competition, round__number=number).exclude(status__in=Match.OVER).exists()
    )


def match_seed(competition: Competition, round_number: int, number: int, *, seats_a_person: bool) -> int:
    """A bot-only match's seed derives from the competition's, so a chosen seed replays the competition.

    A match that seats a person gets a fresh secret seed instead (DESIGN.md, "Seeds stay secret until
    the end"): an organiser may choose the competition's seed, and must learn nothing of a person's deal.
    """
    if seats_a_person:
        return secrets.randbits(62)
    return derive_seed(competition.seed, f"round/{round_number}/match/{number}")
