"""Writing matches' game rows in bulk: COPY on PostgreSQL, bulk_create elsewhere.

A War game takes well under a millisecond to play, so the rows are most of what
a match costs the service. Each row is encoded once, straight from the engine's
record, into the text the database stores:

- the record's text is laid out from a template: what every game of a match
  shares (format, game, seats, ruleset) is encoded once per match, and the
  result, which the record holds too, is encoded once and used for both columns;
- a seating repeats every few games (seats rotate), so each is encoded once;
- on PostgreSQL the rows go to COPY as ready-made lines of its text format,
  instead of one escaped field at a time.

The stored text is exactly what ``encode_compact(record.to_dict())`` gives
(tests/tournaments/test_game_rows.py holds every game to that).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from django.db import connection

from engine.match import GamePlayed
from engine.record import FORMAT, Record, without_bot_text
from tournaments.fields import EncodedJSON
from tournaments.fields import encode_compact as _encode
from tournaments.models import Game

#: Every column but the id and recorded_at, which the database fills in.
_COLUMNS = ("match_id", "number", "seating", "seed", "deal", "options", "record", "result", "winner_id")

#: The keys of ``Record.to_dict()`` in its order, which the template below spells out. A record
#: with a salt (a live match's game, revealed at its end) also has "salt" right after "seed".
_RECORD_KEYS = ("format", "game", "players", "options", "seed", "deal", "actions", "forfeit", "result")


def _template_fits() -> bool:
    """If the engine's record ever gains or reorders a field, every record is encoded whole instead."""
    try:
        plain = tuple(Record(game="", players=0, options={}, seed=0, deal=None).to_dict())
        salted = tuple(Record(game="", players=0, options={}, seed=0, deal=None, salt="").to_dict())
    except TypeError:  # a new required field
        return False
    return plain == _RECORD_KEYS and salted == (*_RECORD_KEYS[:5], "salt", *_RECORD_KEYS[5:])


_TEMPLATE_FITS = _template_fits()

#: COPY's text format for a null.
_NULL = "\\N"

#: COPY's rows go out in chunks of this many, so a long match of big records is never one huge string.
_CHUNK = 500


class EncodedGame(NamedTuple):
    """One game row, its JSON columns already encoded."""

    number: int
    seating: str
    seed: int
    #: The deal as a document (a jsonb column), None when the game was dealt from its seed.
    deal: dict[str, Any] | None
    options: str
    record: str
    result: str
    winner_id: int | None


class GameEncoder:
    """Encodes the games of one match; keeps what repeats from game to game."""

    def __init__(self, entrant_of: Sequence[int]) -> None:
        #: Entrant ids by participant index.
        self.entrant_of = list(entrant_of)
        self._seatings: dict[tuple[int | None, ...], str] = {}
        self._ruleset: tuple[str, int, dict[str, Any]] | None = None
        self._options = ""
        self._prefix = ""

    def encode(self, played: GamePlayed) -> EncodedGame:
        return EncodedGame(*self._columns(played))

    def copy_line(self, played: GamePlayed, head: str) -> str:
        """The row as a line of COPY's text format, after ``head`` (the match id and a tab)."""
        number, seating, seed, deal, options, record, result, winner_id = self._columns(played)
        # Of the characters COPY's text format escapes, JSON text can hold only the backslash
        # (it writes tabs and newlines as \t and \n); the result sits inside the record, so one
        # look covers both. Seatings are numbers.
        if "\\" in record:
            record, result = _escape(record), _escape(result)
        deal_text = _NULL if deal is None else _escape(_encode(deal))
        winner = _NULL if winner_id is None else winner_id
        return f"{head}{number}\t{seating}\t{seed}\t{deal_text}\t{_escape(options)}\t{record}\t{result}\t{winner}\n"

    def _columns(self, played: GamePlayed) -> tuple[int, str, int, dict[str, Any] | None, str, str, str, int | None]:
        # What the bot sent stays out of the public record (engine.record.without_bot_text).
        record = without_bot_text(played.record)
        result = record.result
        result_text = "null" if result is None else _encode(result)
        seating = self._seatings.get(played.seating)
        if seating is None:
            entrant_of = self.entrant_of
            seating = _encode([None if who is None else entrant_of[who] for who in played.seating])
            self._seatings[played.seating] = seating
        winner = None if result is None else result.get("winner")
        ruleset = self._ruleset
        if ruleset is None or not (
            ruleset[2] == record.options and ruleset[0] == record.game and ruleset[1] == record.players
        ):
            self._new_ruleset(record)
        return (
            played.number,
            seating,
            record.seed,
            record.deal,
            self._options,
            self._record_text(record, result_text),
            # The result column holds {} for a game without one (the record keeps its null).
            "{}" if not result else result_text,
            None if winner is None else self.entrant_of[played.seating[winner]],
        )

    def _new_ruleset(self, record: Record) -> None:
        self._ruleset = (record.game, record.players, record.options)
        self._options = _encode(record.options)
        self._prefix = (
            f'{{"format":{_encode(FORMAT)},"game":{_encode(record.game)},'
            f'"players":{_encode(record.players)},"options":{self._options},"seed":'
        )

    def _record_text(self, record: Record, result_text: str) -> str:
        if not _TEMPLATE_FITS:
            return _encode(record.to_dict())
        seed = record.seed
        actions = record.actions
        forfeit = record.forfeit
        deal = record.deal
        # Only a live match's games carry a salt; it sits between the seed and the deal, as in to_dict.
        salt = "" if record.salt is None else f',"salt":{_encode(record.salt)}'
        return (
            f"{self._prefix}{seed if type(seed) is int else _encode(seed)}{salt}"
            f',"deal":{"null" if deal is None else _encode(deal)}'
            # War never asks a seat anything: its one step is always empty.
            f',"actions":{"[[]]" if actions == [[]] else _encode(actions)}'
            f',"forfeit":{_encode(forfeit.to_json()) if forfeit else "null"}'
            f',"result":{result_text}}}'
        )


class MatchGames(NamedTuple):
    """One match's games to insert, with the encoder that knows its entrants."""

    match_id: int
    encoder: GameEncoder
    games: Sequence[GamePlayed]


def insert_games(matches: Sequence[MatchGames], *, return_ids: bool = False) -> dict[tuple[int, int], int]:
    """Insert the rows of these matches inside the caller's transaction, in one COPY on PostgreSQL.

    Game ids by (match id, game number) if asked for, else {}.
    """
    matches = [match for match in matches if match.games]
    if not matches:
        return {}
    if connection.vendor == "postgresql":
        return _copy(matches, return_ids)
    created = Game.objects.bulk_create(
        Game(
            match_id=match.match_id,
            number=game.number,
            seating=EncodedJSON(game.seating),
            seed=game.seed,
            deal=game.deal,
            options=EncodedJSON(game.options),
            record=EncodedJSON(game.record),
            result=EncodedJSON(game.result),
            winner_id=game.winner_id,
        )
        for match in matches
        for game in map(match.encoder.encode, match.games)
    )
    return {(game.match_id, game.number): game.pk for game in created} if return_ids else {}


def _copy(matches: Sequence[MatchGames], return_ids: bool) -> dict[tuple[int, int], int]:
    with connection.cursor() as cursor, connection.wrap_database_errors:
        raw = cursor.cursor  # the psycopg cursor under Django's wrapper, whose errors Django's become
        with raw.copy(f"COPY {Game._meta.db_table} ({', '.join(_COLUMNS)}) FROM STDIN") as copy:
            for match in matches:
                head, line, games = f"{match.match_id}\t", match.encoder.copy_line, match.games
                for start in range(0, len(games), _CHUNK):
                    copy.write("".join([line(game, head) for game in games[start : start + _CHUNK]]))
        if not return_ids:
            return {}
        cursor.execute(
            f"SELECT match_id, number, id FROM {Game._meta.db_table} WHERE match_id = ANY(%s)",
            [[match.match_id for match in matches]],
        )
        return {(match_id, number): game_id for match_id, number, game_id in cursor.fetchall()}


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\") if "\\" in text else text
