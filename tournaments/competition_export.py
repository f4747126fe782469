"""A whole competition as one JSON document that another instance imports (docs/exports.md).

``{"format": "cardclub-competition", "version": 1, ...}``: the competition and its settings, its
organisers and referees (by username), its entrants (a person by username; a bot by its owner's
username, its name, and its version: a built-in strategy by name, an uploaded or HTTP version by
its kind and checksum only, since its code and address are its owner's alone), its rounds and
matches with each participant's seat and rank, the competition's seed once it is over, and every
game of a done match with its stored record (seed included: the match is over). A match not done is
listed without its seed or games (DESIGN.md, "Seeds stay secret until the end"). Challenges, live
tables, transcripts and bot logs are not exported.

The document is written piece by piece (``competition_document``) so that a competition of a
hundred thousand games is never one string in memory: the games are read a chunk at a time.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from django.utils import timezone

from league.models import BotVersion, Player
from tournaments.game_exports import competition_game_chunks
from tournaments.models import Competition, Entrant, Match, Round

FORMAT = "cardclub-competition"
VERSION = 1
#: A competition whose seed may be shown (as the API and the admin show it: tournaments/admin/seeds.py).
_OVER = (Competition.Status.FINISHED, Competition.Status.CANCELLED)


def _when(at: datetime | None) -> str | None:
    return None if at is None else at.isoformat()


def _person(player: Player) -> dict[str, str]:
    return {"username": player.user.get_username(), "display_name": player.display_name}


def _bot_version(version: BotVersion) -> dict[str, Any]:
    shown: dict[str, Any] = {
        "name": version.bot.name,
        "owner": _person(version.bot.owner),
        "version": version.number,
        "kind": version.kind,
    }
    if version.kind == BotVersion.Kind.BUILTIN:
        shown["strategy"] = version.strategy
    elif version.kind == BotVersion.Kind.UPLOAD:
        shown |= {"sha256": version.sha256, "filename": version.filename, "entry": version.entry}
    return shown


def _competition(competition: Competition) -> dict[str, Any]:
    people = Player.objects.select_related("user")
    return {
        "name": competition.name,
        "game": competition.game,
        "format": competition.format,
        "settings": competition.settings,
        "options": competition.options,
        "players_per_match": competition.players_per_match,
        "games_per_match": competition.games_per_match,
        "max_entrants": competition.max_entrants,
        # Bot-only matches' seeds derive from it: hidden until the competition is over, as everywhere.
        "seed": competition.seed if competition.status in _OVER else None,
        "status": competition.status,
        "people_play": competition.people_play,
        "move_seconds": competition.move_seconds,
        "game_seconds": competition.game_seconds,
        "live_tables_public": competition.live_tables_public,
        "duplicate_deals": competition.duplicate_deals,
        "created_at": _when(competition.created_at),
        "started_at": _when(competition.started_at),
        "finished_at": _when(competition.finished_at),
        "created_by": _person(people.get(pk=competition.created_by_id)),
        "organisers": [_person(p) for p in people.filter(organised_competitions=competition).order_by("id")],
        "referees": [_person(p) for p in people.filter(refereed_competitions=competition).order_by("id")],
    }


def _entrants(competition: Competition) -> list[dict[str, Any]]:
    entrants = (
        Entrant.objects.filter(competition=competition)
        .select_related("player__user", "bot_version__bot__owner__user", "standing")
        .order_by("id")
    )
    shown = []
    for entrant in entrants:
        row: dict[str, Any] = {
            "key": entrant.pk,
            "name": entrant.name,
            "position": entrant.position,
            "seed": entrant.seed,
            "left_at": _when(entrant.left_at),
            # A Swiss's byes are no match: the one figure of the table not computed from the games.
            "bye_units": getattr(getattr(entrant, "standing", None), "bye_units", 0),
        }
        if entrant.player is not None:
            row["person"] = _person(entrant.player)
        elif entrant.bot_version is not None:
            row["bot"] = _bot_version(entrant.bot_version)
        shown.append(row)
    return shown


def _rounds(competition: Competition) -> list[dict[str, Any]]:
    rounds: dict[int, dict[str, Any]] = {}
    for round_ in Round.objects.filter(competition=competition).order_by("number"):
        rounds[round_.pk] = {"number": round_.number, "matches": []}
    matches = (
        Match.objects.filter(competition=competition).prefetch_related("participants").order_by("round__number", "id")
    )
    for match in matches:
        done = match.status == Match.Status.DONE
        rounds[match.round_id]["matches"].append(
            {
                "key": match.pk,
                "number": match.number,
                "status": match.status,
                # Only a done match's seed and salt: a match still to play keeps them secret.
                "seed": match.seed if done else None,
                "salt": match.salt if done else "",
                "commitments": match.commitments,
                "finished_at": _when(match.finished_at) if done else None,
                "participants": [
                    {
                        "entrant": p.entrant_id,
                        "seat": p.seat,
                        "rank": p.rank if done else None,
                        "score": None if p.score is None or not done else str(p.score),
                    }
                    for p in sorted(match.participants.all(), key=lambda p: p.seat)
                ],
            }
        )
    return list(rounds.values())


def competition_document(competition: Competition) -> Iterator[bytes]:
    """The export, as UTF-8 JSON in pieces: the header and everything but the games first, then the games
    a chunk at a time (in match order, each with its match's key, its number, its seating by entrant key
    and its stored record)."""
    head = {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": timezone.now().isoformat(),
        "source": {"competition": competition.pk},
        "competition": _competition(competition),
        "entrants": _entrants(competition),
        "rounds": _rounds(competition),
    }
    text = json.dumps(head, ensure_ascii=False, separators=(",", ":"))
    yield text[:-1].encode() + b',"games":['
    first = True
    for chunk in competition_game_chunks(competition, with_records=True):
        pieces = []
        for game in chunk:
            line = {"match": game.match_id, "number": game.number, "seating": game.seating, "record": game.record}
            pieces.append(json.dumps(line, ensure_ascii=False, separators=(",", ":")))
        yield (("" if first else ",") + ",".join(pieces)).encode()
        first = False
    yield b"]}"
