"""Importing a competition exported by another instance (tournaments/competition_export.py, docs/exports.md).

The structure is copied faithfully: the competition and its settings, its entrants, rounds, matches and
seats, in their original order, so that every format reads its table as it did there (a knockout's
bracket from its rounds and seeds, a challenge ladder's places from its entrants). The results are not
copied: each done match is recorded again through ``match_record_result``, from its games' records and
its participants' ranks, in the original (round, match) order. The recording service then computes the
standings, each game's figures and sets, and the ratings (a pure function of the results in that order,
DESIGN.md "Ratings") exactly as it did when the matches were first played, so the imported table is the
original's because it is computed the same way, not because it was written down. The one figure of a
table no match gives, a Swiss's byes, is copied from the export.

While its matches are recorded the competition is held out of play (cancelled), so recording pairs no new
round and finishes nothing; then it takes the status it had, if finished, and stays cancelled otherwise: an
imported competition is a record of what was played, never one the workers go on with. A match that was
not done is imported cancelled, without games.

People are matched by username, or created (without a password: they sign in once given one). A bot is
matched by its owner and name, or created; a built-in version by its strategy. An uploaded or HTTP version
comes without its code or address (they are its owner's alone): it is imported as a failed version, which
keeps its results and can never play.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from datetime import datetime
from fractions import Fraction
from typing import Any, NamedTuple

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import DataError, IntegrityError, transaction
from django.db.models import Max

from engine.errors import EngineError
from engine.match import GamePlayed, MatchResult, match_result
from engine.record import Record
from engine.result import score_rates
from league.models import Bot, BotVersion, Club, Player
from league.notifications.services import notifications_held
from league.services import bot_create, player_create, player_for_user
from tournaments.competition_export import FORMAT, VERSION
from tournaments.formats.registry import UnknownFormat, get_format
from tournaments.models import Competition, Entrant, Match, MatchParticipant, Round, Standing
from tournaments.services.competitions import validate_ruleset
from tournaments.services.results import match_record_result


class CompetitionFileError(ValueError):
    """The file is not a competition this instance can import: the message says why, for a person."""


def _need(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in data:
        raise CompetitionFileError(f"{where}: {key!r} is missing")
    value = data[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise CompetitionFileError(f"{where}.{key}: not the right kind of value ({value!r})")
    return value


def _when(text: object) -> datetime | None:
    return datetime.fromisoformat(text) if isinstance(text, str) else None


def check_header(document: object) -> Mapping[str, Any]:
    """The document, if it is a competition export of a version this instance reads."""
    if not isinstance(document, Mapping) or document.get("format") != FORMAT:
        raise CompetitionFileError(f'this is not a competition export (it has no "format": "{FORMAT}")')
    version = document.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise CompetitionFileError('the export has no "version" number')
    if version > VERSION:
        raise CompetitionFileError(
            f"the export is of version {version}, newer than this instance reads ({VERSION}): update this instance"
        )
    if version < 1:
        raise CompetitionFileError(f"the export's version {version} does not exist")
    return document


def competition_import(*, document: object, club: Club) -> Competition:
    """Recreate the exported competition in ``club``; a CompetitionFileError (nothing written) if it cannot."""
    checked = check_header(document)
    try:
        # Old results recorded again are history, not news: no player hears of them.
        with transaction.atomic(), notifications_held():
            return _import(checked, club)
    except ValidationError as exc:
        raise CompetitionFileError(f"the export cannot be imported: {'; '.join(exc.messages)}") from None
    except (EngineError, UnknownFormat) as exc:
        raise CompetitionFileError(f"the export cannot be imported: {exc}") from None
    except (IntegrityError, DataError) as exc:
        # Two rounds of one number, a number too large for its column: the database refused a row.
        raise CompetitionFileError(f"the export does not fit together: {exc}".strip()) from None
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        if isinstance(exc, CompetitionFileError):
            raise
        # A part of the file not shaped as an export is: say which value, not where in this code.
        raise CompetitionFileError(f"the export is malformed: {type(exc).__name__}: {exc}") from None


class _People:
    """Players by username: found, or created once."""

    def __init__(self) -> None:
        self.known: dict[str, Player] = {}

    def get(self, shown: object, where: str) -> Player:
        if not isinstance(shown, Mapping):
            raise CompetitionFileError(f"{where}: a person is an object with a username")
        username = _need(shown, "username", str, where)
        key = username.casefold()
        if key not in self.known:
            self.known[key] = self._find_or_create(username, str(shown.get("display_name") or ""))
        return self.known[key]

    @staticmethod
    def _find_or_create(username: str, display_name: str) -> Player:
        user = get_user_model().objects.filter(username__iexact=username).first()
        if user is not None:
            return player_for_user(user=user)
        try:
            return player_create(username=username, display_name=display_name)
        except ValidationError:
            # The display name is someone else's here: the username alone, as sign-up would give.
            return player_create(username=username)


def _import(document: Mapping[str, Any], club: Club) -> Competition:
    people = _People()
    shown = _need(document, "competition", Mapping, "export")
    game = _need(shown, "game", str, "competition")
    players_per_match = _need(shown, "players_per_match", int, "competition")
    format_key = _need(shown, "format", str, "competition")
    get_format(format_key)
    competition = Competition.objects.create(
        club=club,
        name=_need(shown, "name", str, "competition")[:120],
        game=game,
        options=validate_ruleset(
            game=game, options=_need(shown, "options", Mapping, "competition"), players_per_match=players_per_match
        ),
        format=format_key,
        settings=_need(shown, "settings", Mapping, "competition"),
        players_per_match=players_per_match,
        games_per_match=_need(shown, "games_per_match", int, "competition"),
        max_entrants=shown.get("max_entrants"),
        # An unfinished competition's seed is not exported (it fixes its bot matches' deals): a fresh one.
        seed=shown["seed"] if isinstance(shown.get("seed"), int) else secrets.randbits(62),
        # Out of play while its matches are recorded (the module's docstring says why).
        status=Competition.Status.CANCELLED,
        people_play=shown.get("people_play", Competition.PeoplePlay.LIVE),
        move_seconds=shown.get("move_seconds", 300),
        game_seconds=shown.get("game_seconds", 3600),
        live_tables_public=bool(shown.get("live_tables_public", True)),
        duplicate_deals=bool(shown.get("duplicate_deals", False)),
        created_by=people.get(shown.get("created_by"), "competition.created_by"),
    )
    competition.organisers.set(
        people.get(p, "competition.organisers") for p in _need(shown, "organisers", list, "competition")
    )
    competition.referees.set(people.get(p, "competition.referees") for p in shown.get("referees", []))
    entrants = _entrants(competition, _need(document, "entrants", list, "export"), people)
    matches = _matches(competition, _need(document, "rounds", list, "export"), entrants)
    games = _games(_need(document, "games", list, "export"), matches, entrants)
    for key, (match, seats, said) in matches.items():
        if match.status == Match.Status.PENDING:
            _record(match, seats, said, games.get(key, []))
    status = shown.get("status")
    Competition.objects.filter(pk=competition.pk).update(
        status=Competition.Status.FINISHED if status == Competition.Status.FINISHED else Competition.Status.CANCELLED,
        started_at=_when(shown.get("started_at")),
        finished_at=_when(shown.get("finished_at")),
    )
    # The places and seeds as they were: recording changes no place without a challenge, but says so here.
    for row, entrant in zip(document["entrants"], entrants.values(), strict=True):
        Entrant.objects.filter(pk=entrant.pk).update(
            position=row.get("position"), seed=row.get("seed"), left_at=_when(row.get("left_at"))
        )
    competition.refresh_from_db()
    return competition


def _entrants(competition: Competition, rows: list[Any], people: _People) -> dict[int, Entrant]:
    entrants: dict[int, Entrant] = {}
    used: set[int] = set()
    for index, row in enumerate(rows):
        where = f"entrants[{index}]"
        if not isinstance(row, Mapping):
            raise CompetitionFileError(f"{where}: an entrant is an object")
        key = _need(row, "key", int, where)
        name = _need(row, "name", str, where)[:120]
        if "person" in row:
            entrant = Entrant.objects.create(
                competition=competition, player=people.get(row["person"], f"{where}.person"), name=name
            )
        elif "bot" in row:
            version = _bot_version(competition.game, row["bot"], people, used, f"{where}.bot")
            used.add(version.pk)
            entrant = Entrant.objects.create(competition=competition, bot_version=version, name=name)
        else:
            raise CompetitionFileError(f"{where}: an entrant is a person or a bot")
        byes = row.get("bye_units", 0)
        if not isinstance(byes, int):
            raise CompetitionFileError(f"{where}.bye_units: not a whole number")
        Standing.objects.create(competition=competition, entrant=entrant, match_units=byes, bye_units=byes)
        entrants[key] = entrant
    return entrants


def _bot_version(game: str, shown: object, people: _People, used: set[int], where: str) -> BotVersion:
    if not isinstance(shown, Mapping):
        raise CompetitionFileError(f"{where}: a bot is an object")
    owner = people.get(shown.get("owner"), f"{where}.owner")
    name = _need(shown, "name", str, where)
    bot = Bot.objects.filter(owner=owner, name=name).first() or bot_create(owner=owner, name=name, game=game)
    if bot.game != game:
        raise CompetitionFileError(f"{where}: {owner}'s bot {name!r} here plays {bot.game}, not {game}")
    kind = _need(shown, "kind", str, where)
    fields: dict[str, Any]
    if kind == BotVersion.Kind.BUILTIN:
        fields = {"strategy": _need(shown, "strategy", str, where), "status": BotVersion.Status.READY}
    elif kind in (BotVersion.Kind.UPLOAD, BotVersion.Kind.HTTP):
        fields = {
            "status": BotVersion.Status.FAILED,
            "status_detail": "imported from another instance without its code",
        }
        if kind == BotVersion.Kind.UPLOAD:
            fields |= {
                "sha256": str(shown.get("sha256") or "unknown"),
                "entry": str(shown.get("entry") or "unknown"),
                "filename": str(shown.get("filename") or ""),
            }
        else:
            # A reserved name (RFC 2606) that never resolves: the address stayed with its owner.
            fields["url"] = "https://imported.invalid/"
    else:
        raise CompetitionFileError(f"{where}.kind: unknown kind {kind!r}")
    wanted = shown.get("version")
    same = bot.versions.filter(kind=kind, **{k: v for k, v in fields.items() if k in ("strategy", "sha256")})
    same = same.exclude(pk__in=used)
    # The version of the same number if it is the same program, else the first that is.
    found = same.filter(number=wanted).first() if isinstance(wanted, int) else None
    found = found or same.order_by("number").first()
    if found is not None:
        return found
    taken = isinstance(wanted, int) and (wanted < 1 or bot.versions.filter(number=wanted).exists())
    number = (
        wanted if isinstance(wanted, int) and not taken else (bot.versions.aggregate(n=Max("number"))["n"] or 0) + 1
    )
    return BotVersion.objects.create(bot=bot, number=number, kind=kind, **fields)


_Seats = dict[int, int]  # entrant key -> participant index (seat in the match's first game)


class _Shown(NamedTuple):
    """What the export says of a match beyond its rows: how each seat ranked and scored, and when it ended."""

    ranks: list[int | None]
    scores: list[str | None]
    finished_at: datetime | None


def _matches(
    competition: Competition, rounds: list[Any], entrants: Mapping[int, Entrant]
) -> dict[int, tuple[Match, _Seats, _Shown]]:
    """Every round and match, created in the original order (so recording rates them in that order)."""
    matches: dict[int, tuple[Match, _Seats, _Shown]] = {}
    for r, shown_round in enumerate(rounds):
        where = f"rounds[{r}]"
        round_ = Round.objects.create(competition=competition, number=_need(shown_round, "number", int, where))
        for m, shown in enumerate(_need(shown_round, "matches", list, where)):
            at = f"{where}.matches[{m}]"
            done = shown.get("status") == Match.Status.DONE
            seed = shown.get("seed")
            match = Match.objects.create(
                competition=competition,
                round=round_,
                number=_need(shown, "number", int, at),
                # A done match is recorded below, from pending; any other was never finished here.
                status=Match.Status.PENDING if done else Match.Status.CANCELLED,
                seed=seed if done and isinstance(seed, int) else 0,
                salt=str(shown.get("salt") or "") if done else "",
                commitments=shown.get("commitments") or [],
            )
            participants = sorted(_need(shown, "participants", list, at), key=lambda p: p["seat"])
            seats: _Seats = {}
            ranks: list[int | None] = []
            scores: list[str | None] = []
            for index, participant in enumerate(participants):
                key = participant["entrant"]
                if key not in entrants:
                    raise CompetitionFileError(f"{at}: entrant {key!r} is not among the entrants")
                MatchParticipant.objects.create(match=match, entrant=entrants[key], seat=participant["seat"])
                seats[key] = index
                ranks.append(participant.get("rank"))
                scores.append(participant.get("score"))
            finished_at = _when(shown.get("finished_at")) if done else None
            matches[_need(shown, "key", int, at)] = (match, seats, _Shown(ranks, scores, finished_at))
    return matches


def _games(
    rows: list[Any], matches: Mapping[int, tuple[Match, _Seats, _Shown]], entrants: Mapping[int, Entrant]
) -> dict[int, list[GamePlayed]]:
    games: dict[int, list[GamePlayed]] = {}
    for index, row in enumerate(rows):
        where = f"games[{index}]"
        key = _need(row, "match", int, where)
        if key not in matches:
            raise CompetitionFileError(f"{where}: match {key} is not among the rounds' matches")
        seats = matches[key][1]
        seating = tuple(None if e is None else seats[e] for e in _need(row, "seating", list, where))
        record = Record.from_dict(_need(row, "record", Mapping, where))
        games.setdefault(key, []).append(
            GamePlayed(number=_need(row, "number", int, where), seating=seating, record=record)
        )
    return games


def _record(match: Match, seats: _Seats, said: _Shown, played: list[GamePlayed]) -> None:
    """The match recorded by the service, from its games; ranked and scored as the export says it was (a
    match's ranks are its games' unless something beyond them decided it, as a forfeit without a game), or by
    its games where the export does not say."""
    played.sort(key=lambda g: g.number)
    by_games = match_result(played, participants=len(seats))
    ranks = [r for r in said.ranks if isinstance(r, int) and not isinstance(r, bool)]
    ranked = tuple(ranks) if len(ranks) == len(seats) else by_games.ranks
    scores = [Fraction(s) for s in said.scores if isinstance(s, str)]
    result = MatchResult(
        games=by_games.games,
        scores=tuple(scores) if len(scores) == len(seats) else by_games.scores,
        ranks=ranked,
        points=tuple(Fraction(p) for p in score_rates(ranked)),
    )
    recorded = match_record_result(match=match, result=result)
    if recorded.status == Match.Status.DONE and said.finished_at is not None:
        # When it was played, not when it was imported (a ladder's chart draws ratings over time).
        Match.objects.filter(pk=match.pk).update(finished_at=said.finished_at)
    if recorded.status != Match.Status.DONE:
        raise CompetitionFileError(
            f"match {match.number} of round {match.round.number} could not be recorded: {recorded.error}"
        )
