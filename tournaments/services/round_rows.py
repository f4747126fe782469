"""Writing rounds of matches: the Round, Match and MatchParticipant rows of tables of entrants, in bulk.

Every format makes its rounds here: a round robin's whole schedule at its start, a Swiss round and a
rating ladder's round when the last one is over, a challenge's round of one match. The caller holds
the competition's lock and sends the matches to the workers (services/scheduling.py).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from engine.match import round_match_seed
from tournaments.models import Competition, Match, MatchParticipant, Round
from tournaments.services.statements import insert_rows, transaction_time

Table = tuple[int, ...]


def rounds_create(
    competition: Competition, first: int, schedule: Sequence[Sequence[Table]], *, sent: bool = True
) -> list[int]:
    """Rounds ``first``, ``first + 1``, ... holding ``schedule``'s tables (entrant ids in seat order); the new
    match ids in (round, table) order. One statement per kind of row, whatever the schedule's size.

    ``sent``: the caller sends the matches to the workers in this transaction (scheduling.matches_release),
    so they are written queued, and the release need not write every row again. Rounds made ahead of their
    turn are not sent: they are queued when they are released.
    """
    numbers = list(range(first, first + len(schedule)))
    round_ids = insert_rows(
        Round, {"competition_id": [competition.pk] * len(numbers), "number": numbers}, return_ids=True
    )
    people = set(competition.entrants.filter(player__isnull=False).values_list("id", flat=True))
    placed = [
        (round_id, round_number, number, table)
        for round_id, round_number, tables in zip(round_ids, numbers, schedule, strict=True)
        for number, table in enumerate(tables, start=1)
    ]
    match_ids = insert_rows(
        Match,
        {
            "competition_id": [competition.pk] * len(placed),
            "round_id": [round_id for round_id, *_ in placed],
            "number": [number for _, _, number, _ in placed],
            "seed": [
                match_seed(competition, round_number, number, seats_a_person=not people.isdisjoint(table))
                for _, round_number, number, table in placed
            ],
        },
        fixed={"queued_at": transaction_time() if sent else None},
        return_ids=True,
    )
    seated = [
        (match_id, entrant, seat)
        for match_id, (*_, table) in zip(match_ids, placed, strict=True)
        for seat, entrant in enumerate(table)
    ]
    insert_rows(
        MatchParticipant,
        {
            "match_id": [match_id for match_id, _, _ in seated],
            "entrant_id": [entrant for _, entrant, _ in seated],
            "seat": [seat for *_, seat in seated],
        },
    )
    return match_ids


def round_over(competition_id: int, number: int) -> bool:
    """Whether every match of round ``number`` is done or cancelled (a round that does not exist is over):
    the formats that pair a round from the last one's results wait for this."""
    open_matches = Match.objects.filter(competition_id=competition_id, round__number=number)
    return not open_matches.exclude(status__in=Match.OVER).exists()


def match_seed(competition: Competition, round_number: int, number: int, *, seats_a_person: bool) -> int:
    """A bot-only match's seed derives from the competition's, so a chosen seed replays the competition.

    A match that seats a person gets a fresh secret seed instead (DESIGN.md, "Seeds stay secret until
    the end"): an organiser may choose the competition's seed, and must learn nothing of a person's deal.
    """
    if seats_a_person:
        return secrets.randbits(62)
    return round_match_seed(competition.seed, round_number, number)
