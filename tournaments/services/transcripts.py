"""Transcripts: games played with real cards, written down by a participant and refereed by the engine.

A match of a competition with ``people_play="transcript"`` is ``live`` while its
people play at a real table. For each game a participant submits the engine's
record of it (docs/records.md, docs/transcripts.md): the hand-made deal, every
action and the stated result. The flow of one transcript::

    submitted --verify--> verified --confirm (all) / confirm (referee) / accept--> accepted
              \\-> rejected          \\--dispute--> disputed --accept--> accepted
                                                           \\--void--> voided

Once every game of the match has an accepted transcript, the match is recorded by
:func:`tournaments.services.results.match_record_result`, exactly as a bot match is:
standings and ratings follow. Nothing partial is ever recorded.

Every change of a transcript locks its match row first (FOR NO KEY UPDATE), so all
status changes of one match's transcripts are serialized: two confirmations racing
for the last games cannot both record the match, nor can both miss the other.
Each status change writes a :class:`TranscriptEvent` in the same transaction.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from itertools import takewhile
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from config.background import enqueue_on_commit, queue_lost_some, send_now
from engine.errors import EngineError
from engine.games import Game, get_game, seats_for
from engine.match import GamePlayed, decided_early, match_result, seating_for
from engine.record import Record
from engine.verify import ReplayError, replay, verify
from league.models import Player
from tournaments import notices
from tournaments.errors import Conflict
from tournaments.formats.registry import format_of
from tournaments.models import (
    Competition,
    Match,
    MatchParticipant,
    Transcript,
    TranscriptConfirmation,
    TranscriptEvent,
)
from tournaments.selectors import competition_referee
from tournaments.services.results import match_record_result

log = logging.getLogger(__name__)

#: The task that replays a submitted transcript (tournaments/tasks.py), sent by name: the tasks import this module.
VERIFY_TRANSCRIPT = "tournaments.tasks.verify_transcript"

Status = Transcript.Status

#: Transcripts still in play: one of these may yet be accepted for its game.
OPEN_STATUSES = (Status.SUBMITTED, Status.VERIFIED, Status.DISPUTED)


class TranscriptConflict(Conflict):
    """The transcript or its match is not in a state that allows this (a 409); nothing changed."""


# --- Who may do what ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Seat:
    """One participant of the match: ``index`` is its seat in game 0 (its participant index)."""

    index: int
    entrant_id: int
    player_id: int | None


def match_seats(match: Match) -> list[Seat]:
    rows = MatchParticipant.objects.filter(match=match).select_related("entrant").order_by("seat")
    return [Seat(index=row.seat, entrant_id=row.entrant_id, player_id=row.entrant.player_id) for row in rows]


def _seat_of(seats: list[Seat], player: Player | None) -> Seat | None:
    if player is None:
        return None
    return next((seat for seat in seats if seat.player_id == player.pk), None)


def transcript_settler(*, competition: Competition, player: Player | None) -> bool:
    """Who settles transcripts for everyone (confirm on behalf, accept, void): the competition's referees and
    organisers, while members of its club (tournaments.selectors.competition_role decides)."""
    return competition_referee(competition=competition, player=player)


def transcript_viewer(*, match: Match, player: Player | None) -> bool:
    """Who reads a match's transcripts and their audit trail: its people, bot owners, referees and organisers."""
    if player is None:
        return False
    in_match = MatchParticipant.objects.filter(match=match, entrant__player=player).exists() or (
        MatchParticipant.objects.filter(match=match, entrant__bot_version__bot__owner=player).exists()
    )
    return in_match or transcript_settler(competition=match.competition, player=player)


def _check_settler(match: Match, seats: list[Seat], player: Player) -> None:
    if not transcript_settler(competition=match.competition, player=player):
        raise PermissionDenied("only the competition's organisers and referees may settle transcripts")
    if _seat_of(seats, player) is not None:
        # Nobody settles their own game for the other side: a participant's word counts only for themself.
        raise PermissionDenied("you play in this match: another organiser or a referee must settle it")


# --- Checking what was submitted ----------------------------------------------------------------


def _invalid(message: str) -> ValidationError:
    return ValidationError({"record": message})


#: Far deeper than any record nests (a 1923 set table is six levels down), far shallower than where
#: json gives up (about a thousand) or stops short of it when the record is stored (about 900).
MAX_RECORD_DEPTH = 32


def _unstorable(raw: object) -> str:
    """Why a submitted document cannot be stored as it is, or "" when it can.

    It is stored before the worker replays it, and PostgreSQL's jsonb refuses NUL characters,
    lone surrogates (which JSON can spell, as ``"\\ud800"``) and NaN or Infinity (which a file
    upload can hold). Walked without recursion: the nesting is what may be hostile.
    """
    stack: list[tuple[object, int]] = [(raw, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_RECORD_DEPTH:
            return f"nested more than {MAX_RECORD_DEPTH} levels deep"
        if isinstance(value, Mapping):
            stack.extend((key, depth) for key in value)
            stack.extend((item, depth + 1) for item in value.values())
        elif isinstance(value, list):
            stack.extend((item, depth + 1) for item in value)
        elif isinstance(value, str):
            if "\x00" in value:
                return "text must not contain NUL characters (\\u0000)"
            try:
                value.encode()
            except UnicodeEncodeError:
                return "text must not contain lone surrogates (\\ud800 to \\udfff)"
        elif isinstance(value, float) and not math.isfinite(value):
            return "NaN and Infinity are not JSON numbers"
    return ""


def transcript_record(*, competition: Competition, people: int, raw: object) -> Record:
    """The engine's record for a submitted transcript, or a ValidationError naming the bad field.

    Checks the shape against the competition: its game, its seats, its ruleset (completed
    by the engine, so a transcript may list only the options that differ from the defaults,
    but none the competition does not play with) and an explicit deal. What the deal holds
    and every step are the verifier's to judge (:func:`transcript_verify`).
    """
    if not isinstance(raw, Mapping):
        raise _invalid("expected a JSON object in the engine's record format (docs/records.md)")
    problem = _unstorable(raw)
    if problem:
        raise _invalid(problem)
    try:
        record = Record.from_dict(dict(raw))
    except EngineError as exc:
        raise _invalid(str(exc)) from None
    if record.game.strip().lower() != competition.game:
        raise _invalid(f"game: this match plays {competition.game}, not {record.game!r}")
    game = get_game(competition.game)
    seats = seats_for(game, people, competition.options)
    if record.players != seats:
        raise _invalid(f"players: this match's table has {seats} seats, not {record.players}")
    try:
        options = dict(game.parse_options(record.options, seats))
    except EngineError as exc:
        raise _invalid(f"options: {exc}") from None
    if options != competition.options:
        differ = sorted(
            k for k in set(options) | set(competition.options) if options.get(k) != competition.options.get(k)
        )
        detail = ", ".join(f"{k}={competition.options.get(k)!r}, not {options.get(k)!r}" for k in differ)
        raise _invalid(f"options: this competition plays with {detail}")
    if record.deal is None:
        raise _invalid("deal: required: a game played with real cards lists its deal, top card first")
    if record.result is None:
        raise _invalid("result: required: state the result the game reached")
    if getattr(record, "salt", None) is not None:
        raise _invalid("salt: a game dealt by hand has no seed commitment: leave the salt out")
    record.game, record.options = competition.game, options
    return record


def _parse_table_deal(game: Game, record: Record) -> dict[str, Any]:
    """The deal in the engine's canonical form; a wrong card count or a duplicated card is named here."""
    try:
        deal = dict(game.parse_deal(record.deal, record.options, record.players))
    except EngineError as exc:
        raise ReplayError(f"deal: {exc}") from None
    problem = game.PROFILE.table_deal_problem(deal, record.options, record.players)
    if problem:
        raise ReplayError(f"deal: {problem}")
    return deal


def _unlisted_shuffles(game: Game, record: Record) -> str:
    """Why a valid record still is not a table game: a later deck its deal leaves to the seed ("" if none)."""
    _, state = replay(record)
    return game.PROFILE.unlisted_shuffles(record.result or {}, state)


def _seating_problem(game: Game, record: Record, game_number: int, people: int) -> str:
    """The seats the engine plays must be exactly those no participant sits in (engine.match.seating_for)."""
    seating = seating_for(game_number, people, record.players)
    empty = {seat for seat, who in enumerate(seating) if who is None}
    engine_seats = set(game.auto_seats(record.options, record.players))
    if empty != engine_seats:
        return f"players: seats {sorted(empty)} have no participant but the engine plays seats {sorted(engine_seats)}"
    return ""


def judge(*, competition: Competition, people: int, game_number: int, raw: object) -> tuple[Record | None, str]:
    """Referee a transcript: its record with a canonical deal, or None and the first reason it fails."""
    try:
        record = transcript_record(competition=competition, people=people, raw=raw)
    except ValidationError as exc:
        return None, " ".join(exc.message_dict.get("record", exc.messages))
    game = get_game(record.game)
    try:
        record.deal = _parse_table_deal(game, record)
    except ReplayError as exc:
        return None, exc.reason
    verdict = verify(record)
    if not verdict.ok:
        return None, str(verdict)
    problem = _seating_problem(game, record, game_number, people) or _unlisted_shuffles(game, record)
    return (None, problem) if problem else (record, "")


# --- Changing a transcript ----------------------------------------------------------------------


def _lock(transcript_id: int) -> tuple[Match, Transcript]:
    """Lock the match row, then the transcript: every change to one match's transcripts queues here."""
    match_id = Transcript.objects.values_list("match_id", flat=True).get(pk=transcript_id)
    match = Match.objects.select_for_update(no_key=True).select_related("competition").get(pk=match_id)
    transcript = Transcript.objects.select_for_update(no_key=True).get(pk=transcript_id)
    return match, transcript


def _change(transcript: Transcript, *, to: str, actor: Player | None, action: str, note: str = "") -> None:
    """A status change and its audit event, in the caller's transaction."""
    event = TranscriptEvent(
        transcript=transcript, actor=actor, action=action, from_status=transcript.status, to_status=to, note=note
    )
    transcript.status = to
    fields = ["status", "updated_at"]
    if to in (Status.REJECTED, Status.VOIDED):
        transcript.reason = note
        fields.append("reason")
    transcript.save(update_fields=fields)
    event.save()


def _check_match_open(match: Match) -> None:
    competition = match.competition
    if competition.people_play != Competition.PeoplePlay.TRANSCRIPT:
        raise TranscriptConflict("this match is played at a live table, not from transcripts")
    if match.status != Match.Status.LIVE:
        raise TranscriptConflict(f"only a live match takes transcripts; this one is {match.status}")
    if competition.status != Competition.Status.RUNNING:
        raise TranscriptConflict(f"the competition is {competition.status}")


def transcript_submit(*, match: Match, player: Player, game_number: object, record: object) -> Transcript:
    """A participant submits a game; it is stored as submitted and verified by a worker after commit."""
    seats = match_seats(match)
    if _seat_of(seats, player) is None:
        raise PermissionDenied("only a person playing in this match may submit its transcripts")
    games = match.competition.games_per_match
    if isinstance(game_number, bool) or not isinstance(game_number, int):
        raise ValidationError({"game_number": "expected a whole number"})
    if not 0 <= game_number < games:
        raise ValidationError({"game_number": f"this match plays games 0 to {games - 1}, not {game_number}"})
    transcript_record(competition=match.competition, people=len(seats), raw=record)
    with transaction.atomic():
        locked = Match.objects.select_for_update(no_key=True).select_related("competition").get(pk=match.pk)
        _check_match_open(locked)
        if locked.transcripts.filter(game_number=game_number, status=Status.ACCEPTED).exists():
            raise TranscriptConflict(f"game {game_number} already has an accepted transcript")
        last = locked.transcripts.order_by("-number").values_list("number", flat=True).first()
        transcript = Transcript.objects.create(
            match=locked, number=(last or 0) + 1, game_number=game_number, submitted_by=player, record=record
        )
        TranscriptEvent.objects.create(
            transcript=transcript, actor=player, action="submit", from_status="", to_status=Status.SUBMITTED
        )
        _verify_release(transcript.pk)
    return transcript


def _verify_release(transcript_id: int) -> None:
    """Send the transcript's verification to the workers once the current transaction commits."""
    # A replay is the engine's work, like a match: it goes where the games go, not to the quick tasks.
    enqueue_on_commit(VERIFY_TRANSCRIPT, transcript_id, queue=settings.CELERY_GAMES_QUEUE)


def transcript_verify(*, transcript_id: int) -> Transcript | None:
    """The verifier task's body: replay a submitted transcript and mark it verified or rejected.

    The replay runs outside any lock; a transcript no longer submitted (a duplicate
    task, or an organiser voided it meanwhile) is left as it is.
    """
    transcript = Transcript.objects.select_related("match__competition").filter(pk=transcript_id).first()
    if transcript is None or transcript.status != Status.SUBMITTED:
        return transcript
    match = transcript.match
    people = MatchParticipant.objects.filter(match=match).count()
    _, reason = judge(
        competition=match.competition, people=people, game_number=transcript.game_number, raw=transcript.record
    )
    with transaction.atomic():
        _, locked = _lock(transcript_id)
        if locked.status != Status.SUBMITTED:
            return locked
        if reason:
            _change(locked, to=Status.REJECTED, actor=None, action="reject", note=reason)
        else:
            _change(locked, to=Status.VERIFIED, actor=None, action="verify")
    return locked


def transcript_confirm(*, transcript: Transcript, player: Player) -> Transcript:
    """A participant confirms a verified transcript; a referee or organiser confirms it for everyone.

    It is accepted once every participant who is a person, other than its submitter
    (whose confirmation is implied), has confirmed it.
    """
    with transaction.atomic():
        match, locked = _lock(transcript.pk)
        seats = match_seats(match)
        seat = _seat_of(seats, player)
        if seat is None and not transcript_settler(competition=match.competition, player=player):
            raise PermissionDenied("only the match's participants, its referees and organisers may confirm")
        if locked.status != Status.VERIFIED:
            raise TranscriptConflict(f"only a verified transcript can be confirmed; this one is {locked.status}")
        _check_match_open(match)
        if seat is None:
            _accept(match, locked, actor=player, action="confirm", note="confirmed by a referee for everyone")
            return locked
        if locked.submitted_by_id == player.pk:
            raise TranscriptConflict("you submitted this transcript: your confirmation is implied")
        if TranscriptConfirmation.objects.filter(transcript=locked, entrant_id=seat.entrant_id).exists():
            raise TranscriptConflict("you have already confirmed this transcript")
        TranscriptConfirmation.objects.create(transcript=locked, entrant_id=seat.entrant_id)
        confirmed = set(TranscriptConfirmation.objects.filter(transcript=locked).values_list("entrant_id", flat=True))
        submitter = _seat_of(seats, locked.submitted_by)
        submitter_entrant = None if submitter is None else submitter.entrant_id
        waiting = [
            s
            for s in seats
            if s.player_id is not None and s.entrant_id not in confirmed and s.entrant_id != submitter_entrant
        ]
        if waiting:
            # Not a status change, but the trail says who has vouched for the transcript so far.
            TranscriptEvent.objects.create(
                transcript=locked, actor=player, action="confirm", from_status=locked.status, to_status=locked.status
            )
        else:
            _accept(match, locked, actor=player, action="confirm", note="confirmed by every participant")
    return locked


def transcript_dispute(*, transcript: Transcript, player: Player, note: str) -> Transcript:
    """A participant says a verified transcript is not what was played; organisers and referees settle it."""
    note = (note or "").strip()
    with transaction.atomic():
        match, locked = _lock(transcript.pk)
        if _seat_of(match_seats(match), player) is None:
            raise PermissionDenied("only a person playing in this match may dispute its transcripts")
        if not note:
            raise ValidationError({"note": "say what is wrong with the transcript"})
        if locked.status != Status.VERIFIED:
            raise TranscriptConflict(f"only a verified transcript can be disputed; this one is {locked.status}")
        _check_match_open(match)
        _change(locked, to=Status.DISPUTED, actor=player, action="dispute", note=note)
        notices.dispute_opened(locked, match, player.display_name, note)
    return locked


def transcript_void(*, transcript: Transcript, player: Player, reason: str) -> Transcript:
    """An organiser or referee voids a transcript that has not been accepted; its game awaits another."""
    reason = (reason or "").strip()
    with transaction.atomic():
        match, locked = _lock(transcript.pk)
        _check_settler(match, match_seats(match), player)
        if not reason:
            raise ValidationError({"reason": "say why the transcript is void"})
        if locked.status not in OPEN_STATUSES:
            raise TranscriptConflict(f"only a transcript not yet settled can be voided; this one is {locked.status}")
        _change(locked, to=Status.VOIDED, actor=player, action="void", note=reason)
    return locked


def transcript_accept(*, transcript: Transcript, player: Player, note: str = "") -> Transcript:
    """An organiser or referee accepts a verified or disputed transcript (never one the engine has not passed)."""
    with transaction.atomic():
        match, locked = _lock(transcript.pk)
        _check_settler(match, match_seats(match), player)
        if locked.status not in (Status.VERIFIED, Status.DISPUTED):
            raise TranscriptConflict(
                f"only a verified or disputed transcript can be accepted; this one is {locked.status}"
            )
        _check_match_open(match)
        _accept(match, locked, actor=player, action="accept", note=(note or "").strip())
    return locked


def _accept(match: Match, transcript: Transcript, *, actor: Player, action: str, note: str) -> None:
    """Accept under the match lock; other open transcripts of the game are voided; record a complete match."""
    number = transcript.game_number
    if match.transcripts.filter(game_number=number, status=Status.ACCEPTED).exists():
        raise TranscriptConflict(f"game {number} already has an accepted transcript")
    _change(transcript, to=Status.ACCEPTED, actor=actor, action=action, note=note)
    others = match.transcripts.filter(game_number=number, status__in=OPEN_STATUSES).exclude(pk=transcript.pk)
    for other in others.select_for_update(no_key=True).order_by("number"):
        _change(
            other,
            to=Status.VOIDED,
            actor=actor,
            action="void",
            note=f"transcript {transcript.number} was accepted for game {number}",
        )
    _record_if_complete(match)


def _record_if_complete(match: Match) -> None:
    """When every game has an accepted transcript (or, in a best-of-N, the games so far decide the match),
    record the match as the workers record a bot match."""
    competition = match.competition
    accepted = {t.game_number: t for t in match.transcripts.filter(status=Status.ACCEPTED).order_by("game_number")}
    games = competition.games_per_match
    # Games 0, 1, ... with an accepted transcript, up to the first without one.
    in_order = list(takewhile(accepted.__contains__, range(games)))
    early = format_of(competition).best_of(competition)
    if len(in_order) < games and not early:
        return
    people = MatchParticipant.objects.filter(match=match).count()
    played: list[GamePlayed] = []
    for number in in_order:
        record, reason = judge(competition=competition, people=people, game_number=number, raw=accepted[number].record)
        if record is None:  # pragma: no cover - it was verified with the same checks
            raise TranscriptConflict(f"game {number}'s transcript no longer verifies: {reason}")
        played.append(GamePlayed(number, seating_for(number, people, record.players), record))
        if early and decided_early(played, participants=people, games=games, duplicate=False):
            break
    else:
        if len(played) < games:
            return
    recorded = match_record_result(match=match, result=match_result(played, participants=people))
    if recorded.status != Match.Status.DONE:  # pragma: no cover - the match row is locked and live
        raise TranscriptConflict(f"the match could not be recorded: it is {recorded.status}")
    if len(played) < games:
        # A best-of-N decided early: transcripts of the games after it stand for nothing now.
        later = match.transcripts.filter(game_number__gte=len(played), status__in=(*OPEN_STATUSES, Status.ACCEPTED))
        for transcript in later.select_for_update(no_key=True).order_by("number"):
            why = f"the match was decided after {len(played)} games"
            _change(transcript, to=Status.VOIDED, actor=None, action="void", note=why)


# --- Reads and the reaper -----------------------------------------------------------------------


def match_transcripts(*, match: Match) -> QuerySet[Transcript]:
    return (
        Transcript.objects.filter(match=match)
        .select_related("submitted_by")
        .prefetch_related("confirmations", "events__actor")
        .order_by("number")
    )


def competition_disputes(*, competition: Competition) -> QuerySet[Transcript]:
    return (
        Transcript.objects.filter(match__competition=competition, status=Status.DISPUTED)
        .select_related("submitted_by")
        .prefetch_related("confirmations", "events__actor")
        .order_by("match_id", "number")
    )


def transcripts_resend_stale() -> int:
    """Beat's sweep: re-send the verification of transcripts submitted long ago and still unverified,
    when the games queue holds fewer tasks than that (as the match reaper decides).

    The task is idempotent (only a submitted transcript is judged), so a duplicate costs one read.
    """
    cutoff = timezone.now() - timedelta(seconds=settings.MATCH_QUEUE_GRACE)
    stale = list(
        Transcript.objects.filter(status=Status.SUBMITTED, updated_at__lt=cutoff).values_list("pk", flat=True)[:500]
    )
    if not queue_lost_some(settings.CELERY_GAMES_QUEUE, waiting=len(stale)):
        return 0
    try:
        # Now, not on commit: the sweep writes nothing, so there is no transaction to wait for.
        for transcript_id in stale:
            send_now(VERIFY_TRANSCRIPT, (transcript_id,), queue=settings.CELERY_GAMES_QUEUE)
    except Exception:
        # A broker that is down now is the next sweep's problem, not the match reaper's.
        log.warning("reaper: could not re-send transcript verifications", exc_info=True)
        return 0
    log.warning("reaper: re-sent the verification of %s transcripts", len(stale))
    return len(stale)
