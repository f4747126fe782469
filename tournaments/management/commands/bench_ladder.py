"""``manage.py bench_ladder``: a rating ladder of 1,000 built-in bots, ticked round after round.

Issue 13, "Done means": how many ladder matches a second the tick schedules and the workers record,
and how long a tick takes. The command calls the tick itself, as Celery beat would but without
waiting for beat's period (``rating_ladder_tick``, the same function beat's task runs); 2 real worker
processes (Redis broker, PostgreSQL) play and record the matches. A tick that finds the last round
still open returns at once and the command polls again after a few milliseconds, so the recorded
rate is the service's, not beat's period.
"""

from __future__ import annotations

import os
import statistics
import time
import uuid
from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from django.test.utils import CaptureQueriesContext

from config import background
from config.celery import app
from engine.bench import SERVICE_GAME
from engine.bots import bot_names
from league.models import Club, Player
from league.services import bot_create, bot_version_create_builtin, club_create, player_create
from tournaments.models import Competition, Match
from tournaments.services.competitions import competition_create, competition_start, entrant_join
from tournaments.services.rating_ladder import rating_ladder_tick
from tournaments.worker_processes import WorkerProcess

if TYPE_CHECKING:
    from kombu.transport.virtual import Channel as VirtualChannel


class Command(BaseCommand):
    help = "Tick a rating ladder of built-in bots for some rounds on 2 workers: matches/s and the tick's time."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--bots", type=int, default=1000)
        parser.add_argument("--rounds", type=int, default=20)
        parser.add_argument("--game", default=SERVICE_GAME)
        parser.add_argument("--games-per-match", type=int, default=1)
        parser.add_argument("--workers", type=int, default=2)

    def handle(self, *args: Any, **options: Any) -> None:
        if connection.vendor != "postgresql" or not settings.CELERY_BROKER_URL.startswith("redis://"):
            raise CommandError("bench_ladder needs DATABASE_URL=postgres://... and CELERY_BROKER_URL=redis://...")
        bots, rounds, workers = options["bots"], options["rounds"], options["workers"]
        if bots < 2 or rounds < 1 or workers < 1 or not 1 <= options["games_per_match"] <= 1000:
            raise CommandError("--bots 2 or more, --rounds and --workers 1 or more, --games-per-match 1 to 1000")
        made = time.perf_counter()
        competition = self._ladder(bots, rounds, options["game"], options["games_per_match"])
        self.stdout.write(
            f"rating ladder: {bots:,} built-in {options['game']} bots, {competition.games_per_match} game(s) a match, "
            f"{rounds} rounds, batch {settings.RATING_LADDER_BATCH} matches, exploration "
            f"{settings.RATING_LADDER_EXPLORATION_PERCENT}%, {settings.RATING_LADDER_PLACEMENT_MATCHES} placement "
            f"matches; made in {time.perf_counter() - made:.1f} s"
        )
        self._run(competition, workers)
        # Other work on the machine slows every figure: a load well above the benchmark's own (about 3 on 2 cores:
        # 2 workers, this command, PostgreSQL) says there was some.
        self.stdout.write("load average at the end (1, 5, 15 min): " + ", ".join(f"{v:.2f}" for v in os.getloadavg()))

    def _ladder(self, bots: int, rounds: int, game: str, games_per_match: int) -> Competition:
        organiser = Player.objects.filter(user__username="bench").first() or player_create(username="bench")
        club = Club.objects.filter(slug="bench").first() or club_create(name="Bench", slug="bench", organiser=organiser)
        competition = competition_create(
            club=club,
            created_by=organiser,
            name=f"bench-ladder {uuid.uuid4().hex[:6]}",
            game=game,
            format="rating_ladder",
            settings={"games_per_match": games_per_match, "ladder_rounds": rounds},
            seed=20261124,
        )
        strategies = bot_names(game)
        for number in range(bots):
            bot = bot_create(owner=organiser, name=f"ladder-{competition.pk}-{number}", game=game)
            version = bot_version_create_builtin(bot=bot, strategy=strategies[number % len(strategies)])
            entrant_join(competition=competition, bot_version=version)
        return competition_start(competition=competition)

    def _run(self, competition: Competition, worker_count: int) -> None:
        token = uuid.uuid4().hex[:8]
        queue = f"games-{token}"
        settings.CELERY_GAMES_QUEUE = queue
        # As docs/deploy.md says to set it: a release spread over as many batches as there are game workers.
        settings.MATCH_BATCH_SPREAD = worker_count
        env = {"CELERY_GAMES_QUEUE": queue, "MATCH_BATCH_SPREAD": str(worker_count)}
        workers = [WorkerProcess(f"ladder{n}-{token}", queues=queue, env=env) for n in range(worker_count)]
        for worker in workers:
            worker.start()
        scheduling: list[float] = []  # ticks that made a round, seconds
        sending: list[float] = []  # of which handing the round's tasks to Redis, after the commit
        waiting: list[float] = []  # ticks that found the last round open
        queries: list[int] = []
        scheduled = 0
        counter = _Counter()
        try:
            start = time.perf_counter()
            while True:
                counter.reset()
                # Counted from the query log, which the plain prepared statements (services/statements.py) keep too;
                # emptied first, as it keeps only the last 9,000.
                connection.queries_log.clear()
                with CaptureQueriesContext(connection) as statements:
                    began = time.perf_counter()
                    made = rating_ladder_tick(competition_id=competition.pk)
                    took = time.perf_counter() - began
                if made:
                    scheduling.append(took)
                    sending.append(counter.sending)
                    queries.append(len(statements.captured_queries))
                    scheduled += made
                    continue
                if _status(competition.pk) == Competition.Status.FINISHED:
                    break
                waiting.append(took)
                time.sleep(0.005)
            seconds = time.perf_counter() - start
        finally:
            counter.restore()
            for worker in workers:
                worker.stop()
            with app.connection_for_write() as conn:
                cast("VirtualChannel", conn.default_channel).queue_delete(queue)
        recorded = Match.objects.filter(competition=competition, status=Match.Status.DONE, rated=True).count()
        if recorded != scheduled:
            raise CommandError(f"scheduled {scheduled} matches, {recorded} were recorded and rated")
        self.stdout.write(
            f"{len(scheduling)} rounds, {scheduled:,} matches in {seconds:.2f} s on {worker_count} workers\n"
            f"scheduled: {scheduled / sum(scheduling):,.0f} matches/s of tick time "
            f"({scheduled / len(scheduling):.0f} matches a tick)\n"
            f"recorded: {recorded / seconds:,.0f} matches/s (first tick to the last round settled; a round "
            f"starts when the one before it is over)\n"
            f"tick that pairs a round: median {statistics.median(scheduling) * 1000:.1f} ms, "
            f"max {max(scheduling) * 1000:.1f} ms, {max(queries)} SQL statements at most; of it, sending the "
            f"round's tasks to Redis after the commit: median {statistics.median(sending) * 1000:.1f} ms"
            + (
                f"\ntick that finds the round open: median {statistics.median(waiting) * 1000:.2f} ms, "
                f"max {max(waiting) * 1000:.1f} ms ({len(waiting)} ticks)"
                if waiting
                else ""
            )
        )


class _Counter:
    """Times a tick's sends to the broker (which follow its commit)."""

    def __init__(self) -> None:
        self.sending = 0.0
        self._send_now = background.send_now
        background.send_now = self._timed_send  # enqueue_on_commit looks the name up when it enqueues

    def reset(self) -> None:
        self.sending = 0.0

    def restore(self) -> None:
        background.send_now = self._send_now

    def _timed_send(self, task_name: str, args: tuple[object, ...], *, queue: str) -> None:
        began = time.perf_counter()
        self._send_now(task_name, args, queue=queue)
        self.sending += time.perf_counter() - began


def _status(competition_id: int) -> str:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT status FROM {Competition._meta.db_table} WHERE id = %s", [competition_id])
        return str(cursor.fetchone()[0])
