"""Validation: a new upload or HTTP version plays one game against a built-in bot before it may enter anything.

The game runs on a worker, in the same sandbox and under the same clock as a
competition match, so a version that passes has already shown it can start,
answer and finish. The verdict is written once, by a conditional update: a
validation delivered twice records the first verdict only.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from config.background import enqueue_on_commit, queue_lost_some
from engine.agents import Agent
from engine.bots import make_bot, seat_agents
from engine.errors import EngineError
from engine.games import get_game, seats_for
from engine.rng import derive_seed
from engine.runner import play_game
from engine.sandbox import SandboxUnavailable
from league.agents import VersionBots
from league.models import BotVersion
from league.notifications.kinds import Kind
from league.notifications.services import notify

log = logging.getLogger(__name__)

#: The opponent every validation game is played against.
OPPONENT = "random"
#: The version's own seat among the people's names (never a strategy's name).
VERSION = "<the version>"


@dataclass(frozen=True)
class Verdict:
    ready: bool
    detail: str
    log: str


def validation_game(version: BotVersion) -> Verdict:
    """Play the version at seat 0 of one game against ``random``: ready if it never forfeits."""
    game = get_game(version.bot.game)
    people_count = game.MIN_PLAYERS
    seats = seats_for(game, people_count, {})
    options = game.parse_options({}, seats)
    seed = derive_seed(version.pk, "validation")
    # Participant 0 is the version; the opponents are strategies by name, not versions.
    bots = VersionBots({0: version}, game=game.NAME, players=seats, options=options)
    bot = bots.remote(0)
    try:
        bot.start()
        if bot.failure is not None:
            return _failed(bot.failure.cause, bot.failure.detail, bot.owner_log())
        if not game.DECISIONS:
            return Verdict(True, f"started and answered; {game.NAME} asks bots nothing more", bot.owner_log())
        # The version takes the first seat; built-in opponents the others, as a match would seat them.
        people = [VERSION, *[OPPONENT] * (people_count - 1)]

        def placed(name: str, seat: int, seats: int, parsed: Mapping[str, Any]) -> Agent:
            if name == VERSION:
                return bots.agent(0, seat=seat, game_number=0, seed=seed)
            return make_bot(name, game=game.NAME, seat=seat, players=seats, options=parsed, seed=seed)

        agents = seat_agents(game.NAME, people, options, seed, make=placed)
        record = play_game(game.NAME, agents=agents, seed=seed, options=options)
    finally:
        bots.close()
    forfeit = record.forfeit
    if forfeit is not None and forfeit.seat == 0:
        return _failed(f"{forfeit.cause} at move {forfeit.move}", forfeit.detail, bot.owner_log())
    steps = len(record.actions)
    return Verdict(True, f"played a {game.NAME} game against {OPPONENT} to its end ({steps} steps)", bot.owner_log())


def _failed(public: str, detail: str, log: str) -> Verdict:
    """The public status names the cause (and move); the detail, which can repeat what the bot sent,
    goes to the owner-only log."""
    # First in the log, which is cut to its first BOT_LOG_BYTES.
    return Verdict(False, f"{public} (the log says more)" if detail else public, f"{public}: {detail}\n{log}")


def bot_version_validate(*, version_id: int) -> BotVersion | None:
    """Validate a pending version and record the verdict; None if the version is gone."""
    version = BotVersion.objects.select_related("bot").filter(pk=version_id).first()
    if version is None or version.status != BotVersion.Status.PENDING:
        return version
    try:
        verdict = validation_game(version)
    except SandboxUnavailable as exc:
        # The machine's fault, not the bot's: stay pending so a capable worker's retry can decide.
        log.error("cannot validate %s here: %s", version, exc)
        BotVersion.objects.filter(pk=version.pk, status=BotVersion.Status.PENDING).update(
            status_detail=f"waiting for a worker that can run sandboxed bots ({exc})"
        )
        return version
    except EngineError as exc:
        verdict = Verdict(False, f"cannot be played: {exc}", "")
    except Exception as exc:
        # Our bug, not the bot's; but a version left pending would be re-sent forever. Fail it, saying so.
        log.exception("validating %s failed", version)
        verdict = Verdict(
            False, f"the validation itself failed (internal error: {type(exc).__name__}); upload again", ""
        )
    status = BotVersion.Status.READY if verdict.ready else BotVersion.Status.FAILED
    with transaction.atomic():
        decided = BotVersion.objects.filter(pk=version.pk, status=BotVersion.Status.PENDING).update(
            status=status, status_detail=verdict.detail[:4000], log=verdict.log[: settings.BOT_LOG_BYTES + 200]
        )
        # Once, by whichever delivery of the task decided it.
        if decided and not verdict.ready:
            notify(
                players=[version.bot.owner_id],
                kind=Kind.BOT_REFUSED,
                title=f"Version {version.number} of {version.bot.name} failed its test game",
                body=verdict.detail[:300],
                link=reverse("site:bot", args=[version.bot_id]),
            )
    version.refresh_from_db()
    return version


#: The task that validates a version (league/tasks.py), sent by name: the tasks import this module.
VALIDATE_BOT_VERSION = "league.tasks.validate_bot_version"


def validation_release(*, version: BotVersion) -> None:
    """Send the version's validation to the workers once the transaction that made it commits."""
    BotVersion.objects.filter(pk=version.pk).update(queued_at=timezone.now())
    # The games queue: a validation runs the bot in the sandbox, as a match does.
    enqueue_on_commit(VALIDATE_BOT_VERSION, version.pk, queue=settings.CELERY_GAMES_QUEUE)


def validations_reap() -> int:
    """Re-send validations whose task a broker lost (Redis keeps nothing across a restart); the number sent.

    Pending long after it was sent is not enough: a busy games queue holds validations for a while.
    As for matches, only a queue holding fewer tasks than there are such versions has lost some.
    """
    cutoff = timezone.now() - timedelta(seconds=settings.BOT_VALIDATION_GRACE)
    stale = list(
        BotVersion.objects.filter(status=BotVersion.Status.PENDING, queued_at__lt=cutoff).values_list("pk", flat=True)
    )
    if not queue_lost_some(settings.CELERY_GAMES_QUEUE, waiting=len(stale)):
        return 0
    for pk in stale:
        with transaction.atomic():
            validation_release(version=BotVersion(pk=pk))
    return len(stale)
