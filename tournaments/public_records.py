"""A game's public record, built once and served from the cache (docs/records.md, "Public views").

Building one replays the whole game and takes the spectator's view after every
step: up to a third of a second for the largest game the options allow
(docs/records.md, "Size bounds"), which no request should pay twice. A game row
is written once, by the recording service, and never changed, so its public
record never changes either: it is cached as the encoded JSON the endpoint
sends, compressed, under the game's id and the time its row was written (a row
written again, which a reused id could be, gets a new key), and the format of
the view (``VIEW_FORMAT``: bump it when public views change shape).

Only the games of a done match are cached. The public record never holds a
seed, a deal or a salt (``engine.verify.public_record`` leaves them out), but
nothing of a match still in play is kept anywhere (DESIGN.md, "Seeds stay
secret until the end"). Beside it the entry keeps the record's seed and salt
when the record has a salt, which is what the endpoint reveals to everyone for a
done live match, so a request for the public record never reads the record.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from django.core.cache import cache

from engine.record import Record
from engine.verify import public_record
from tournaments.fields import encode_compact
from tournaments.models import Game, Match

#: Bump when what ``public_record`` builds changes, so no view of the old shape is served.
VIEW_FORMAT = 2
#: How long a built view stays cached: it never goes stale, so this only bounds the cache's memory.
RECORD_SECONDS = 3600


@dataclass(frozen=True)
class PublicRecord:
    #: The public record as compact JSON, UTF-8.
    text: bytes
    #: The record's seed and salt when it has a salt (a live match's game): the proof of a fair deal.
    proof: tuple[int, str] | None


def proof_of(record: dict[str, object]) -> tuple[int, str] | None:
    """A stored record's seed and salt, if it carries a salt (docs/fair-play.md)."""
    seed, salt = record.get("seed"), record.get("salt")
    return (seed, salt) if isinstance(seed, int) and isinstance(salt, str) else None


def public_game_record(game: Game) -> PublicRecord:
    """The game's public record, built at most once while it stays cached (a done match's games only)."""
    if game.match.status != Match.Status.DONE:
        return _build(game)
    key = f"cardclub:public-record:{VIEW_FORMAT}:{game.pk}:{game.recorded_at.isoformat()}"
    cached = cache.get(key)
    if isinstance(cached, tuple):
        packed, proof = cached
        return PublicRecord(zlib.decompress(packed), proof)
    built = _build(game)
    cache.set(key, (zlib.compress(built.text), built.proof), timeout=RECORD_SECONDS)
    return built


def _build(game: Game) -> PublicRecord:
    stored = game.record
    text = encode_compact(public_record(Record.from_dict(stored)))
    # As DRF's JSON renderer writes them: a page that embeds the JSON in a script must not see line breaks.
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return PublicRecord(text.encode(), proof_of(stored))
