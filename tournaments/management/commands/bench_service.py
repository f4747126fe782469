"""``manage.py bench_service``: persisted games per second through the whole service, against the bare engine.

DESIGN.md, "Benchmarks": a War round robin is created and started through the
API, played by 2 real worker processes over Redis, and recorded in PostgreSQL
(games, standings, ratings). The same matches, with the same seeds, are then
played by the bare engine in 2 processes on the same machine. The ratio of the
two rates is what the service costs. Each run uses a new competition; the
median ratio of the runs is the figure, since one run can swing by a few
hundredths with how the two workers' matches happen to interleave.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import statistics
import time
import uuid
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from django.test import Client

from config.celery import app
from engine.bench import SERVICE_GAME
from engine.match import play_match
from league.models import Club, Player
from league.services import bot_create, bot_version_create_builtin, club_create, player_create
from tournaments.models import Competition, Game
from tournaments.services.competitions import competition_create, entrant_join
from tournaments.worker_processes import WorkerProcess

if TYPE_CHECKING:
    from kombu.transport.virtual import Channel as VirtualChannel


class Command(BaseCommand):
    help = "Play a War round robin through the service on 2 workers and compare with the bare engine on 2 cores."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--entrants", type=int, default=16)
        parser.add_argument("--games-per-match", type=int, default=500)
        parser.add_argument("--workers", type=int, default=2)
        parser.add_argument("--runs", type=int, default=3, help="runs of both sides; the median ratio is the figure")

    def handle(self, *args: Any, **options: Any) -> None:
        if connection.vendor != "postgresql" or not settings.CELERY_BROKER_URL.startswith("redis://"):
            raise CommandError("bench_service needs DATABASE_URL=postgres://... and CELERY_BROKER_URL=redis://...")
        entrants, games_per_match = options["entrants"], options["games_per_match"]
        workers, runs = options["workers"], options["runs"]
        if entrants < 2 or not 1 <= games_per_match <= 1000 or workers < 1 or runs < 1:
            raise CommandError("--entrants 2 or more, --games-per-match 1 to 1000, --workers and --runs 1 or more")
        matches = entrants * (entrants - 1) // 2
        games = matches * games_per_match
        self.stdout.write(
            f"War round robin: {entrants} entrants, {matches} matches x {games_per_match} games = {games:,} games, "
            f"{runs} run(s)"
        )
        measured = [self._run(entrants, games_per_match, workers, matches, games) for _ in range(runs)]
        ratios = [ratio for _, ratio in measured]
        self.stdout.write(
            f"ratio over {runs} run(s): median {statistics.median(ratios):.2f} "
            f"(runs: {', '.join(f'{ratio:.2f}' for ratio in ratios)})"
        )
        if games_per_match == 1:
            # `make bench-short`'s figure (issue 25): a game a match, so matches/s is games/s.
            rate = statistics.median(games / seconds for seconds, _ in measured)
            self.stdout.write(
                f"single-game matches: {rate:,.0f} recorded/s, ratio {statistics.median(ratios):.2f} to the bare engine"
            )

    def _run(self, entrants: int, games_per_match: int, workers: int, matches: int, games: int) -> tuple[float, float]:
        """One run of both sides on a new competition: the service's seconds, and the ratio of the two rates."""
        competition = self._competition(entrants, games_per_match)
        service_seconds, cpu = self._run_service(competition, workers)
        stored = Game.objects.filter(match__competition=competition).count()
        if stored != games:
            raise CommandError(f"expected {games} recorded games, found {stored}")
        engine_seconds, engine_cpu = self._run_engine(competition, workers)
        service_rate, engine_rate = games / service_seconds, games / engine_seconds
        self.stdout.write(
            f"service ({workers} workers, PostgreSQL, Redis; API start to finished): "
            f"{service_seconds:.2f} s = {service_rate:,.0f} persisted games/s\n"
            f"bare engine ({workers} processes, same games and seeds): "
            f"{engine_seconds:.2f} s = {engine_rate:,.0f} games/s\n"
            f"ratio: {service_rate / engine_rate:.2f}"
        )
        if cpu is not None:
            self.stdout.write(cpu.describe(matches, service_seconds))
        if engine_cpu is not None:
            # Another load on the machine slows either side; this says whether one was there.
            self.stdout.write(
                f"CPU time while the bare engine played, per match: its processes "
                f"{engine_cpu.children / matches * 1000:.1f} ms, anything else "
                f"{(engine_cpu.busy - engine_cpu.children - engine_cpu.this_process) / matches * 1000:.1f} ms, "
                f"idle {engine_cpu.idle / matches * 1000:.1f} ms"
            )
        return service_seconds, service_rate / engine_rate

    def _competition(self, entrants: int, games_per_match: int) -> Competition:
        organiser = Player.objects.filter(user__username="bench").first() or player_create(username="bench")
        club = Club.objects.filter(slug="bench").first() or club_create(name="Bench", slug="bench", organiser=organiser)
        competition = competition_create(
            club=club,
            created_by=organiser,
            name=f"bench-service {uuid.uuid4().hex[:6]}",
            game=SERVICE_GAME,
            settings={"games_per_match": games_per_match},
            seed=20261122,
        )
        for number in range(entrants):
            bot = bot_create(owner=organiser, name=f"service-{competition.pk}-{number}", game=SERVICE_GAME)
            entrant_join(competition=competition, bot_version=bot_version_create_builtin(bot=bot, strategy="random"))
        return competition

    def _run_service(self, competition: Competition, worker_count: int) -> tuple[float, CpuUse | None]:
        token = uuid.uuid4().hex[:8]
        queue = f"games-{token}"
        settings.CELERY_GAMES_QUEUE = queue
        # As docs/deploy.md says to set it: a release spread over as many batches as there are game workers.
        settings.MATCH_BATCH_SPREAD = worker_count
        env = {"CELERY_GAMES_QUEUE": queue, "MATCH_BATCH_SPREAD": str(worker_count)}
        workers = [WorkerProcess(f"bench{n}-{token}", queues=queue, env=env) for n in range(worker_count)]
        for worker in workers:
            worker.start()
        client = Client(HTTP_HOST="127.0.0.1")
        client.force_login(competition.created_by.user)
        groups = {worker.process.pid for worker in workers if worker.process is not None}
        try:
            # A web process serves many requests: its first one, which imports the API's views and
            # serializers, is not the start's to pay for.
            warm = client.get(f"/api/tournaments/{competition.pk}/")
            if warm.status_code != 200:
                raise CommandError(f"reading the competition failed: {warm.status_code} {warm.content[:300]!r}")
            before = _cpu_snapshot(groups)
            start = time.perf_counter()
            response = client.post(f"/api/tournaments/{competition.pk}/start/")
            if response.status_code != 200:
                raise CommandError(f"start failed: {response.status_code} {response.content[:300]!r}")
            while _status(competition.pk) != Competition.Status.FINISHED:
                time.sleep(0.02)
            seconds = time.perf_counter() - start
            # Read after the clock stops, so the detail costs the measured run nothing.
            after = _cpu_snapshot(groups)
            return seconds, None if before is None or after is None else after - before
        finally:
            for worker in workers:
                worker.stop()
            with app.connection_for_write() as conn:
                # The benchmark's Redis broker is a kombu virtual transport (StdChannel deletes no queues).
                cast("VirtualChannel", conn.default_channel).queue_delete(queue)

    def _run_engine(self, competition: Competition, processes: int) -> tuple[float, CpuUse | None]:
        jobs = [
            (match.seed, competition.games_per_match, competition.options)
            for match in competition.matches.order_by("id")
        ]
        chunk = math.ceil(len(jobs) / processes)
        with multiprocessing.get_context("fork").Pool(processes) as pool:
            before = _cpu_snapshot(set())
            start = time.perf_counter()
            played = sum(pool.map(_play_matches, [jobs[i : i + chunk] for i in range(0, len(jobs), chunk)]))
            seconds = time.perf_counter() - start
            after = _cpu_snapshot(set())
        if played != len(jobs) * competition.games_per_match:
            raise CommandError("the bare engine did not play every game")
        return seconds, None if before is None or after is None else after - before


def _status(competition_id: int) -> str:
    """The competition's status in one cheap statement: the benchmark's own polling is measured too."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT status FROM {Competition._meta.db_table} WHERE id = %s", [competition_id])
        return str(cursor.fetchone()[0])


def _play_matches(jobs: list[tuple[int, int, dict[str, Any]]]) -> int:
    """The bare engine's share: each match's games with the same seeds, records built and kept."""
    played = 0
    kept = []
    for seed, games, options in jobs:
        result = play_match(
            SERVICE_GAME,
            participants=2,
            agents_for_game=lambda number, seating, game_seed: [None, None],
            seats=2,
            games=games,
            seed=seed,
            options=options,
        )
        kept.append(result)
        played += len(result.games)
    return played


@dataclass(frozen=True)
class CpuUse:
    """CPU seconds spent during one side of the benchmark, by who spent them (Linux /proc; detail only)."""

    #: The Celery worker processes (broker, acknowledgements) and their pool processes (the tasks).
    worker_parents: float
    workers: float
    #: Backends connected to this database, and PostgreSQL's own background processes (WAL writer...).
    postgres: float
    postgres_background: float
    #: Backends that ended meanwhile, whatever their database: a worker reconnects for every task.
    postgres_ended: float
    redis: float
    this_process: float
    #: This process's other children: the bare engine's pool.
    children: float
    busy: float
    idle: float

    def __sub__(self, other: CpuUse) -> CpuUse:
        return CpuUse(*(getattr(self, f.name) - getattr(other, f.name) for f in fields(self)))

    def describe(self, matches: int, seconds: float) -> str:
        cores = os.cpu_count() or 1
        known = sum(getattr(self, f.name) for f in fields(self) if f.name not in ("busy", "idle"))
        per_match = {
            "Celery worker processes (broker messages, acknowledgements)": self.worker_parents,
            "their pool processes (the tasks)": self.workers,
            "PostgreSQL backends of this database": self.postgres,
            "PostgreSQL backends that ended (any database)": self.postgres_ended,
            "PostgreSQL background processes": self.postgres_background,
            "Redis": self.redis,
            "this command (API start, polling)": self.this_process,
            "anything else on the machine": self.busy - known,
            "idle": self.idle,
        }
        return f"CPU time while the service played ({cores} cores x {seconds:.2f} s), per match:\n" + "\n".join(
            f"  {name}: {value / matches * 1000:.1f} ms" for name, value in per_match.items()
        )


def _cpu_snapshot(worker_groups: set[int]) -> CpuUse | None:
    """Cumulative CPU seconds of the workers (by process group), PostgreSQL, Redis, this process, its
    children and the whole machine."""
    tick = os.sysconf("SC_CLK_TCK")
    try:
        machine = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    except OSError:
        return None
    # user nice system idle iowait irq softirq steal: idle and iowait are the idle time.
    times = [int(value) for value in machine[:8]]
    idle = times[3] + times[4]
    database = f" {connection.settings_dict['NAME']} "
    names = (
        "worker_parents",
        "workers",
        "postgres",
        "postgres_background",
        "postgres_ended",
        "redis",
        "this_process",
        "children",
    )
    sums = dict.fromkeys(names, 0)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            title = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # the process ended meanwhile
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        after_name = stat[stat.rindex(")") + 2 :].split()
        used = int(after_name[11]) + int(after_name[12])
        # The CPU of children that ended, which their parent has collected: a pool's old processes.
        ended = int(after_name[13]) + int(after_name[14])
        if int(entry.name) == os.getpid():
            sums["this_process"] += used
        elif int(entry.name) in worker_groups:
            sums["worker_parents"] += used
        elif int(after_name[2]) in worker_groups:
            sums["workers"] += used + ended
        elif int(after_name[1]) == os.getpid():
            sums["children"] += used
        elif name == "postgres" and database in title:
            sums["postgres"] += used
        elif name == "postgres" and "(" not in title:  # a client backend's title holds its host(port)
            sums["postgres_background"] += used
            sums["postgres_ended"] += ended  # the postmaster collects its backends
        elif name.startswith("redis-server"):
            sums["redis"] += used
    return CpuUse(
        **{key: value / tick for key, value in sums.items()}, busy=(sum(times) - idle) / tick, idle=idle / tick
    )
