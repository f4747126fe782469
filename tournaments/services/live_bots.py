"""Bot seats at live tables: the workers decide for them as soon as it is their turn.

A bot decides outside the match's lock (an uploaded bot may think for its whole
move time, and the people at the table must not wait on it to be refused or
answered), then its decision is applied only if the table has not moved on
meanwhile (services/live.py, ``live_bot_move``).

How a bot lives between decisions that may be minutes apart (docs/bot-protocol.md,
"Live tables"): a built-in strategy is made afresh for each decision, with its own
random stream derived from the game's seed, the seat and the step; an uploaded or
HTTP bot is started for each run of its consecutive decisions and closed after it,
so no sandbox waits on a worker for a person to move.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from engine.agents import AgentFailure
from engine.match import game_seed
from engine.referee import LiveGame
from engine.rng import derive_seed
from league.agents import BotReport, VersionBots
from league.models import BotVersion
from tournaments.models import BotRun, LiveTable, Match, MatchParticipant
from tournaments.services.live import live_bot_move
from tournaments.services.live_tables import Participant, advance_release, current_table, match_participants

#: Decisions one task makes before handing on to a fresh task: a long run of bot-only steps cannot hog a worker.
_RUN = 500


def live_bots_play(*, match_id: int) -> int:
    """Decide for every bot the table waits on, until it waits on people only; the decisions made."""
    participants = match_participants(match_id)
    match_seed = Match.objects.values_list("seed", flat=True).get(pk=match_id)
    versions = BotVersion.objects.select_related("bot").in_bulk(
        [p.bot_version_id for p in participants if p.bot_version_id is not None]
    )
    by_participant = {p.index: versions[p.bot_version_id] for p in participants if p.bot_version_id is not None}
    # Made at the first decision: every table of a match deals the same game to as many seats, under the
    # same options, so that table's will do for the run. Its external bots live for this run only.
    bots: VersionBots | None = None
    made = 0
    try:
        while made < _RUN:
            table = current_table(match_id)
            if table is None or table.finished_at is not None:
                break
            if not Match.objects.filter(pk=match_id, status=Match.Status.LIVE).exists():
                break
            game = LiveGame.loads(table.game)
            waiting = [
                (seat, participants[who])
                for seat in game.awaiting()
                if (who := table.seating[seat]) is not None and not participants[who].is_person
            ]
            if not waiting:
                break
            seat, bot = waiting[0]
            if bots is None:
                bots = VersionBots(by_participant, game=game.game_name, players=game.players, options=game.options)
            action, failure = _decide(game, table, match_seed, seat, bot, bots)
            live_bot_move(
                match_id=match_id,
                entrant_id=bot.entrant_id,
                seat=seat,
                decision_version=table.decision_version,
                action=action,
                failure=failure,
            )
            made += 1
    finally:
        if bots is not None:
            bots.close()
            _record_runs(match_id, bots.reports())
    if made >= _RUN:
        with transaction.atomic():
            advance_release(match_id=match_id)
    return made


def _decide(
    game: LiveGame,
    table: LiveTable,
    match_seed: int,
    seat: int,
    bot: Participant,
    bots: VersionBots,
) -> tuple[str | None, tuple[str, str]]:
    legal = game.legal_actions(seat)
    observation = game.observation(seat)
    # A built-in strategy is made afresh for each decision, so its random stream comes from the step.
    seed = derive_seed(game_seed(match_seed, table.number), f"live/{len(game.steps)}")
    agent = bots.agent(bot.index, seat=seat, game_number=table.number, seed=seed)
    try:
        action: object = agent.act(observation, legal)
    except AgentFailure as failure:
        return None, (failure.cause, failure.detail[:200])
    if not isinstance(action, str):
        return None, ("bad_output", f"{action!r:.40} is not an action string")
    return action, ("", "")


def _record_runs(match_id: int, reports: dict[int, BotReport]) -> None:
    """Each bot started for this run, now closed: its owner's log of the match gains this run's log, and the
    match's first failure of the bot is kept (a bot plays several runs at a live table)."""
    if not reports:
        return
    # Participants are indexed in the order of their match seats (services/live_tables.py, match_participants).
    rows = list(MatchParticipant.objects.filter(match_id=match_id).order_by("seat").values_list("id", flat=True))
    for who, report in reports.items():
        with transaction.atomic():
            run, _ = BotRun.objects.select_for_update().get_or_create(participant_id=rows[who])
            if report.failure and not run.failure:
                run.failure, run.detail = report.failure, report.detail[:4000]
            # The newest output is kept when the runs' logs outgrow what one run may write.
            run.log = (run.log + report.log)[-settings.BOT_LOG_BYTES :]
            run.save(update_fields=["failure", "detail", "log"])


def live_bots_reap() -> int:
    """Run by Celery beat: re-send the task of every live table whose bot has not decided within the grace,
    and of every live match whose games have all been over for that long without it being recorded.

    Both wait on a task the broker may have lost (a Redis restart keeps nothing, and a send made while
    it was away is given up: config/background.py). The second is a live match whose games end without
    anyone's move, as War's do when dealt: its recording is the workers' (services/live_start.py).
    """
    stale = timezone.now() - timedelta(seconds=settings.LIVE_BOT_GRACE)
    resent = 0
    later_table = LiveTable.objects.filter(match_id=OuterRef("match_id"), number__gt=OuterRef("number"))
    unrecorded = (
        LiveTable.objects.filter(match__status=Match.Status.LIVE, finished_at__lt=stale)
        .exclude(Exists(later_table))
        .values_list("match_id", flat=True)
    )
    for match_id in unrecorded:
        with transaction.atomic():
            advance_release(match_id=match_id)
        resent += 1
    for table in LiveTable.objects.filter(
        finished_at__isnull=True, turn_started_at__lt=stale, match__status=Match.Status.LIVE
    ).select_related("match"):
        participants = match_participants(table.match_id)
        game = LiveGame.loads(table.game)
        if any(
            (who := table.seating[seat]) is not None and not participants[who].is_person for seat in game.awaiting()
        ):
            with transaction.atomic():
                advance_release(match_id=table.match_id)
            resent += 1
    return resent
