"""What the formats made of rounds share: writing the rounds known at the start, with a pairing's refusal
said as the entrants' problem."""

from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import ValidationError

from tournaments.models import Competition
from tournaments.pairing import PairingError, Table
from tournaments.services.round_rows import rounds_create


def first_rounds_create(competition: Competition, schedule: Callable[[], list[list[Table]]]) -> list[int]:
    """Rounds 1, 2, ... of ``schedule()``'s tables; a pairing that cannot be made is a 400 on ``entrants``."""
    try:
        tables = schedule()
    except PairingError as exc:
        raise ValidationError({"entrants": str(exc)}) from None
    return rounds_create(competition, 1, tables)
