"""A knockout's seeds and rounds: seeded at the start, each later round paired from the bracket once the
round before is over.

Called with the competition's lock held, like a Swiss's rounds (services/swiss_rounds.py): by the
start, and by recording when a round's last match is recorded. The bracket is replayed from the
seeds and the stored results (tournaments/knockout.py), so a round is the same whichever worker
records the match that ends the one before. A match in error holds the next round until an
organiser retries it. Matches are cancelled only with their competition, and the bracket stops at
the round that was cancelled (tournaments/knockout_selectors.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from django.core.exceptions import ValidationError

from tournaments.formats.values import text_setting, whole_setting
from tournaments.knockout_selectors import knockout_read
from tournaments.models import Competition, Entrant
from tournaments.selectors import competition_standings
from tournaments.services.ladder_seeding import ladder_seeding
from tournaments.services.round_rows import rounds_create


def knockout_next_round(competition: Competition, number: int) -> list[int]:
    """Write round ``number`` of the bracket (the round before is over) unless the bracket is; the new match
    ids (none otherwise)."""
    upcoming = knockout_read(competition).bracket.next_round
    if upcoming is None or upcoming.number != number:
        return []  # finished, or stopped at a round cancelled with the competition
    return rounds_create(competition, number, [[table.entrants for table in upcoming.tables]])


def knockout_seeds(competition: Competition, entrants: list[int], order: Sequence[int] | None) -> list[int]:
    """Entrant ids, best seed first: by hand (``order``), else as the competition's ``seeding`` says; stored
    on the entrants."""
    if order is not None:
        if sorted(order) != sorted(entrants) or len(set(order)) != len(order):
            raise ValidationError({"order": "list every entrant's id exactly once, best seed first"})
        seeds = list(order)
    elif text_setting(competition, "seeding") == Competition.Seeding.RATING:
        seeds = ladder_seeding(competition, entrants)
    elif text_setting(competition, "seeding") == Competition.Seeding.STANDINGS:
        seeds = _by_standings(competition, entrants)
    else:
        seeds = list(entrants)
    Entrant.objects.bulk_update(
        [Entrant(pk=entrant, seed=place) for place, entrant in enumerate(seeds, start=1)], ["seed"]
    )
    return seeds


def _by_standings(competition: Competition, entrants: list[int]) -> list[int]:
    """In the order of the standings of ``seeded_from`` (the same person, or any version of the same bot);
    entrants not in it follow in entry order."""
    source_id = whole_setting(competition, "seeded_from")
    source = None if source_id is None else Competition.objects.filter(pk=source_id).first()
    if source is None:
        raise ValidationError({"seeded_from": "seeding by standings needs the competition to seed from"})
    rank_of = {row.standing.entrant_id: row.rank for row in competition_standings(source)}
    place: dict[tuple[str, int], int] = {}
    for entrant, identity in _identities(list(rank_of)).items():
        place[identity] = min(place.get(identity, rank_of[entrant]), rank_of[entrant])
    ours = _identities(entrants)
    key = {e: place.get(ours[e]) for e in entrants}
    return sorted(entrants, key=lambda e: (key[e] is None, key[e] or 0, entrants.index(e)))


def _identities(entrants: list[int]) -> dict[int, tuple[str, int]]:
    """Entrant id -> who it is across competitions: the person, or the bot whatever its version."""
    rows = Entrant.objects.filter(pk__in=entrants).values_list("id", "player_id", "bot_version__bot_id")
    return {e: ("player", player) if player is not None else ("bot", bot) for e, player, bot in rows}
