"""Writing a match's game rows in bulk: COPY on PostgreSQL, bulk_create elsewhere.

A War game takes well under a millisecond to play, so the rows are most of what
a match costs the service. COPY takes the whole match in one stream with the
JSON already encoded, instead of one model instance and one escaped array
element per field and game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.utils import timezone

from tournaments.fields import encode_compact as _encode
from tournaments.models import Game, Match

_COLUMNS = ("match_id", "number", "seating", "seed", "deal", "options", "record", "result", "winner_id", "recorded_at")


@dataclass(frozen=True)
class GameRow:
    number: int
    #: Entrant ids by seat; None for a seat the engine plays.
    seating: list[int | None]
    seed: int
    deal: dict[str, Any] | None
    options: dict[str, Any]
    record: dict[str, Any]
    result: dict[str, Any]
    winner_id: int | None


def insert_games(*, match: Match, rows: Sequence[GameRow]) -> dict[int, int]:
    """Insert the rows inside the caller's transaction; game ids by game number."""
    if not rows:
        return {}
    if connection.vendor == "postgresql":
        return _copy(match, rows)
    games = Game.objects.bulk_create(
        Game(
            match=match,
            number=row.number,
            seating=row.seating,
            seed=row.seed,
            deal=row.deal,
            options=row.options,
            record=row.record,
            result=row.result,
            winner_id=row.winner_id,
        )
        for row in rows
    )
    return {game.number: game.pk for game in games}


def _copy(match: Match, rows: Sequence[GameRow]) -> dict[int, int]:
    now = timezone.now()
    options = _encode(rows[0].options)  # one ruleset per match: encode it once
    with connection.cursor() as cursor:
        raw = cursor.cursor  # the psycopg cursor under Django's wrapper
        with raw.copy(f"COPY {Game._meta.db_table} ({', '.join(_COLUMNS)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(
                    (
                        match.pk,
                        row.number,
                        _encode(row.seating),
                        row.seed,
                        None if row.deal is None else _encode(row.deal),
                        options if row.options == rows[0].options else _encode(row.options),
                        _encode(row.record),
                        _encode(row.result),
                        row.winner_id,
                        now,
                    )
                )
        cursor.execute(f"SELECT number, id FROM {Game._meta.db_table} WHERE match_id = %s", [match.pk])
        return dict(cursor.fetchall())
