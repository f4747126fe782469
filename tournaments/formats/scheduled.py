"""What the formats made of rounds share: writing the rounds known at the start, with a pairing's refusal
said as the entrants' problem."""

from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import ValidationError

from tournaments.formats.registry import format_of
from tournaments.models import Competition
from tournaments.pairing import PairingError, Table
from tournaments.services.round_rows import rounds_create


def first_rounds_create(competition: Competition, schedule: Callable[[], list[list[Table]]]) -> list[int]:
    """Rounds 1, 2, ... of ``schedule()``'s tables; a pairing that cannot be made is a 400 on ``entrants``.

    The start sends them all to the workers (services/competitions.py), or only the first round when the
    format pairs round by round: rounds made ahead of their turn wait, unsent, for theirs."""
    try:
        tables = schedule()
    except PairingError as exc:
        raise ValidationError({"entrants": str(exc)}) from None
    if not format_of(competition).pairs_round_by_round:
        return rounds_create(competition, 1, tables)
    ahead = rounds_create(competition, 2, tables[1:], sent=False) if len(tables) > 1 else []
    return rounds_create(competition, 1, tables[:1]) + ahead
