"""Playing a match through the engine: the body of the worker task."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from engine.agents import Agent
from engine.bots import make_bot
from engine.errors import EngineError
from engine.games import get_game, seats_for
from engine.match import MatchResult, play_match
from league.models import BotVersion
from tournaments.models import Competition, Match, MatchParticipant
from tournaments.services.results import match_record_result

log = logging.getLogger(__name__)


class NotPlayable(Exception):
    """The match cannot be played by the engine alone (a person sits at it)."""


def match_claim(*, match_id: int) -> bool:
    """pending → running, for exactly one caller: the conditional UPDATE is the lock."""
    claimed = Match.objects.filter(id=match_id, status=Match.Status.PENDING).update(
        status=Match.Status.RUNNING, started_at=timezone.now()
    )
    return claimed == 1


def match_play(*, match_id: int) -> Match | None:
    """Claim, play and record one match; None if another worker already has it."""
    if not match_claim(match_id=match_id):
        return None
    match = Match.objects.select_related("competition").get(pk=match_id)
    try:
        result = match_simulate(match=match)
    except (EngineError, NotPlayable) as exc:
        return match_mark_error(match=match, error=str(exc))
    return match_record_result(match=match, result=result)


def match_simulate(*, match: Match) -> MatchResult:
    competition: Competition = match.competition
    participants = list(match.participants.select_related("entrant__bot_version__bot").order_by("seat"))
    versions = [_bot_version(p) for p in participants]
    game = get_game(competition.game)
    seats = seats_for(game, len(participants), competition.options)
    options = competition.options

    def agents_for_game(number: int, seating: Sequence[int | None], seed: int) -> list[Agent | None]:
        return [
            None
            if who is None
            else _agent(versions[who], game=competition.game, seat=seat, players=seats, options=options, seed=seed)
            for seat, who in enumerate(seating)
        ]

    return play_match(
        competition.game,
        participants=len(participants),
        agents_for_game=agents_for_game,
        seats=seats,
        games=competition.games_per_match,
        seed=match.seed,
        options=options,
    )


def _bot_version(participant: MatchParticipant) -> BotVersion:
    version = participant.entrant.bot_version
    if version is None:
        raise NotPlayable(f"{participant.entrant.name} is a person: this match is played as a refereed game")
    return version


def _agent(version: BotVersion, *, game: str, seat: int, players: int, options: dict[str, object], seed: int) -> Agent:
    if version.kind != BotVersion.Kind.BUILTIN:
        raise NotPlayable(f"{version} is a {version.kind} bot: not playable yet")
    return make_bot(version.strategy, game=game, seat=seat, players=players, options=options, seed=seed)


def match_mark_error(*, match: Match, error: str) -> Match:
    log.warning("match %s failed: %s", match.pk, error)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.ERROR, error=error[:4000], finished_at=timezone.now())
    match.refresh_from_db()
    return match


def match_retry(*, match: Match) -> Match:
    """An organiser sends an errored match back to the queue."""
    with transaction.atomic():
        updated = Match.objects.filter(pk=match.pk, status=Match.Status.ERROR).update(
            status=Match.Status.PENDING, error="", started_at=None, finished_at=None
        )
    match.refresh_from_db()
    if updated != 1:
        from django.core.exceptions import ValidationError

        raise ValidationError({"status": f"only a match in error can be retried; this one is {match.status}"})
    return match


def competition_play_pending(*, competition: Competition) -> int:
    """Play every pending match now, in order (until matches move to workers); the number played."""
    played = 0
    for match_id in (
        competition.matches.filter(status=Match.Status.PENDING)
        .order_by("round__number", "id")
        .values_list("id", flat=True)
    ):
        if match_play(match_id=match_id) is not None:
            played += 1
    return played


def competition_play_now(*, competition: Competition) -> int:
    """An organiser's "play": every pending match of a running competition, synchronously, until workers do it."""
    competition.refresh_from_db(fields=["status"])
    if competition.status != Competition.Status.RUNNING:
        raise ValidationError(
            {"competition": f"only a running competition can be played; this one is {competition.status}"}
        )
    return competition_play_pending(competition=competition)
