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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

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


def _key(game: Game) -> str:
    return f"cardclub:public-record:{VIEW_FORMAT}:{game.pk}:{game.recorded_at.isoformat()}"


def public_game_record(game: Game) -> PublicRecord:
    """The game's public record, built at most once while it stays cached (a done match's games only)."""
    if game.match.status != Match.Status.DONE:
        return _build(game)
    key = _key(game)
    cached = cache.get(key)
    if isinstance(cached, tuple):
        packed, proof = cached
        return PublicRecord(zlib.decompress(packed), proof)
    built = _build(game)
    cache.set(key, (zlib.compress(built.text), built.proof), timeout=RECORD_SECONDS)
    return built


def public_game_records(games: Sequence[Game], match_done: Callable[[Game], bool]) -> list[PublicRecord]:
    """Many games' public records, in their order, for one read of the cache and at most one of the database.

    ``games`` come without their records (deferred): those the cache does not hold are read in one
    query, built and cached (a done match's only, as ``public_game_record`` does), so an export of a
    competition's games costs no query per game. ``match_done`` says whether a game's match is done.
    """
    keys = {game.pk: _key(game) for game in games if match_done(game)}
    cached = cache.get_many(list(keys.values())) if keys else {}
    found: dict[int, PublicRecord] = {}
    for pk, key in keys.items():
        entry = cached.get(key)
        if isinstance(entry, tuple):
            found[pk] = PublicRecord(zlib.decompress(entry[0]), entry[1])
    missing = [game.pk for game in games if game.pk not in found]
    if missing:
        # The field turns the text into the record's dict (tournaments/fields.py), whatever the stubs say.
        records: dict[int, Any] = dict(Game.objects.filter(pk__in=missing).values_list("pk", "record"))
        fresh: dict[str, object] = {}
        for game in games:
            if game.pk in found:
                continue
            built = _build_from(records[game.pk])
            found[game.pk] = built
            if game.pk in keys:
                fresh[keys[game.pk]] = (zlib.compress(built.text), built.proof)
        if fresh:
            cache.set_many(fresh, timeout=RECORD_SECONDS)
    return [found[game.pk] for game in games]


def _build(game: Game) -> PublicRecord:
    return _build_from(game.record)


def _build_from(stored: dict[str, Any]) -> PublicRecord:
    text = encode_compact(public_record(Record.from_dict(stored)))
    # As DRF's JSON renderer writes them: a page that embeds the JSON in a script must not see line breaks.
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return PublicRecord(text.encode(), proof_of(stored))
