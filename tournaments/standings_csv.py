"""A competition's standings as CSV: the JSON standings' rows, one line each, for a spreadsheet.

Built from the rows exactly as the JSON standings serialise them, so the two can never disagree:
the same order, the same figures written the same way (``match_points`` as the decimal string,
``mu`` as the float JSON gives). The game's own tiebreaks become columns named by each tiebreak's
``field``, as the JSON names them; ``match_points``, which the JSON lists among the tiebreaks too,
is one column, not two.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from typing import Any

#: The columns before the game's own tiebreaks, each a key of the JSON row (``entrant_*``: of its entrant).
LEADING = (
    "rank",
    "entrant_id",
    "entrant_name",
    "bot_version",
    "player",
    "played",
    "won",
    "drawn",
    "lost",
    "match_points",
    "match_points_exact",
)
#: The columns after them.
TRAILING = ("score_rate", "score_interval_low", "score_interval_high", "mu", "sigma", "ordinal")


def tiebreak_fields(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The tiebreak columns, in the table's order: every row lists the same tiebreaks in the same order."""
    if not rows:
        return []
    return [t["field"] for t in rows[0]["tiebreaks"] if t["field"] != "match_points"]


def _cell(value: Any) -> str:
    """A figure written as JSON writes it (``0.5``, ``25.0``, ``true``); nothing at all for null."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value)


def _line(row: Mapping[str, Any], fields: Sequence[str]) -> list[str]:
    entrant = row["entrant"]
    tiebreaks = {t["field"]: t["value"] for t in row["tiebreaks"]}
    low, high = row["score_interval"]
    values = [
        row["rank"],
        entrant["id"],
        entrant["name"],
        entrant["bot_version"],
        entrant["player"],
        row["played"],
        row["won"],
        row["drawn"],
        row["lost"],
        row["match_points"],
        row["match_points_exact"],
        *(tiebreaks.get(field) for field in fields),
        row["score_rate"],
        low,
        high,
        row["mu"],
        row["sigma"],
        row["ordinal"],
    ]
    return [_cell(value) for value in values]


def standings_csv(rows: Sequence[Mapping[str, Any]]) -> bytes:
    """The rows as serialised for the JSON standings, as CSV in UTF-8 with a header line."""
    fields = tiebreak_fields(rows)
    out = io.StringIO()
    # Excel and the csv module both read \r\n line ends (RFC 4180).
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([*LEADING, *fields, *TRAILING])
    writer.writerows(_line(row, fields) for row in rows)
    return out.getvalue().encode()
