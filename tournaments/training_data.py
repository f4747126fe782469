"""A bot's finished games as training data: one JSON line per decision its versions made (docs/training-data.md).

Each line is one decision from the bot's own seat, as the engine replays the game's record
(``engine.decisions``): the observation the seat was sent then, its legal actions, the action it
took, and how the game ended for that seat. Nothing else of the record is sent: not its seed, its
deal, nor another seat's cards (the observation is the engine's own view for the seat).

A bot may have played a hundred thousand games, so nothing here grows with their number: the games
are read a chunk at a time, in match order, each chunk picking up after the last game of the one
before (as the competition exports do, tournaments/game_exports.py: one short query a chunk, no
cursor held open for the whole download), and the lines go out in pieces of about
``PIECE_BYTES``, never a chunk's or a game's at once. Only a done match's games are read: nothing
of a match still in play leaves the server.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from django.db.models import QuerySet

from engine.decisions import SeatOutcome, seat_decisions, seat_outcome
from engine.errors import EngineError
from engine.record import Record
from engine.verify import ReplayError
from league.models import Bot
from tournaments.fields import encode_compact
from tournaments.game_exports import GameKey, after_game, game_chunks
from tournaments.models import Entrant, Game, Match, MatchParticipant

logger = logging.getLogger(__name__)

#: Games read at once: as the exports read them (a chunk of the largest records stays bounded).
CHUNK = 200
#: The lines are sent in pieces of about this many bytes: a long game's lines never sit in memory whole.
PIECE_BYTES = 64 * 1024


@dataclass(frozen=True)
class BotEntry:
    """One of the bot's entrants: the competition it played in and with which version."""

    competition_id: int
    version: int


@dataclass(frozen=True)
class TrainingFilter:
    competition_id: int | None = None
    version: int | None = None
    #: Games recorded at or after this moment.
    since: datetime | None = None


def bot_entries(bot: Bot, wanted: TrainingFilter) -> dict[int, BotEntry]:
    """The bot's entrants (by id) the filter keeps: one query, however many games they played."""
    entrants = Entrant.objects.filter(bot_version__bot=bot)
    if wanted.competition_id is not None:
        entrants = entrants.filter(competition_id=wanted.competition_id)
    if wanted.version is not None:
        entrants = entrants.filter(bot_version__number=wanted.version)
    rows = entrants.order_by().values_list("id", "competition_id", "bot_version__number")
    return {entrant: BotEntry(competition, version) for entrant, competition, version in rows}


def _games(entrant_ids: list[int], since: datetime | None, after: GameKey | None) -> QuerySet[Game]:
    # A subquery rather than a join through the participants: one row per game even where two of the
    # bot's versions sat at one table.
    matches = MatchParticipant.objects.filter(entrant_id__in=entrant_ids)
    games = Game.objects.filter(match__status=Match.Status.DONE)
    if after is not None:
        # The subquery starts where the chunk does too, for the same reason as after_game's own condition.
        matches = matches.filter(match_id__gte=after[0])
        games = after_game(games, after)
    games = games.filter(match_id__in=matches.values("match_id"))
    if since is not None:
        games = games.filter(recorded_at__gte=since)
    return games.only("id", "match_id", "number", "seating", "record").order_by("match_id", "number")


def training_game_chunks(
    entrant_ids: list[int], since: datetime | None, *, chunk: int | None = None
) -> Iterator[list[Game]]:
    """The done games these entrants played, chunk by chunk in match order (one query a chunk)."""
    if not entrant_ids:
        return iter(())
    return game_chunks(lambda after: _games(entrant_ids, since, after), chunk or CHUNK)


def training_lines(bot: Bot, wanted: TrainingFilter, *, chunk: int | None = None) -> Iterator[bytes]:
    """Every decision of the bot's versions in their done games the filter keeps, as JSON lines, in pieces."""
    entries = bot_entries(bot, wanted)
    piece: list[bytes] = []
    size = 0
    for games in training_game_chunks(list(entries), wanted.since, chunk=chunk):
        for game in games:
            for line in _game_lines(game, entries):
                piece.append(line)
                size += len(line)
                if size >= PIECE_BYTES:
                    yield b"".join(piece)
                    piece, size = [], 0
    if piece:
        yield b"".join(piece)


def _game_lines(game: Game, entries: dict[int, BotEntry]) -> Iterator[bytes]:
    """The lines of one game: for each seat the bot sat in, each of that seat's decisions."""
    seating: list[int | None] = game.seating
    record: Record | None = None
    for seat, entrant in enumerate(seating):
        entry = None if entrant is None else entries.get(entrant)
        if entry is None:
            continue
        head = (
            f'{{"game":{game.pk},"competition":{entry.competition_id},"match":{game.match_id},'
            f'"game_number":{game.number},"version":{entry.version},"seat":{seat},'
        ).encode()
        try:
            record = record or Record.from_dict(game.record)
            tail = b',"result":' + _outcome_json(seat_outcome(record, seat)) + b"}\n"
            for decision in seat_decisions(record, seat):
                yield (
                    head
                    + f'"decision":{decision.number},"step":{decision.step},"observation":'.encode()
                    + _json(decision.observation)
                    + b',"legal_actions":'
                    + _json(decision.legal_actions)
                    + b',"action":'
                    + _json(decision.action)
                    + tail
                )
        except EngineError as exc:
            # A stored record replayed when it was recorded: one that no longer does is the engine's
            # fault, and the download says where, rather than stop short or leave the game out unsaid.
            # Where only: the engine's reason can name a card no one saw (an engine seat's, an unplayed
            # one), so it stays out of the line and the log; `python -m engine verify` on the record tells it.
            where = f"step {exc.step}" if isinstance(exc, ReplayError) and exc.step is not None else "its start"
            logger.error("training data: game %s no longer replays, from %s", game.pk, where)
            yield head + b'"error":' + _json(f"this game's record no longer replays, from {where}") + b"}\n"


def _outcome_json(outcome: SeatOutcome) -> bytes:
    rate = outcome.score_rate
    return _json(
        {
            "rank": outcome.rank,
            "players": outcome.players,
            "score_rate": round(float(rate), 6),
            "score_rate_exact": str(rate),
            "score": outcome.score,
            "forfeited": outcome.forfeited,
        }
    )


def _json(value: object) -> bytes:
    text = encode_compact(value)
    # U+2028 and U+2029 end a line for some readers (Python's splitlines): written escaped, as the exports do.
    if "\u2028" in text or "\u2029" in text:
        text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return text.encode()
