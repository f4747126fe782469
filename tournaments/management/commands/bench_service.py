"""``manage.py bench_service``: persisted games per second through the whole service, against the bare engine.

DESIGN.md, "Benchmarks": a War round robin is created and started through the
API, played by 2 real worker processes over Redis, and recorded in PostgreSQL
(games, standings, ratings). The same matches, with the same seeds, are then
played by the bare engine in 2 processes on the same machine. The ratio of the
two rates is what the service costs.
"""

from __future__ import annotations

import math
import multiprocessing
import time
import uuid
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from django.test import Client

from config.celery import app
from engine.match import play_match
from league.models import Club, Player
from league.services import bot_create, bot_version_create_builtin, club_create, player_create
from tournaments.models import Competition, Game
from tournaments.services.competitions import competition_create, entrant_join
from tournaments.worker_processes import WorkerProcess


class Command(BaseCommand):
    help = "Play a War round robin through the service on 2 workers and compare with the bare engine on 2 cores."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--entrants", type=int, default=16)
        parser.add_argument("--games-per-match", type=int, default=500)
        parser.add_argument("--workers", type=int, default=2)

    def handle(self, *args: Any, **options: Any) -> None:
        if connection.vendor != "postgresql" or not settings.CELERY_BROKER_URL.startswith("redis://"):
            raise CommandError("bench_service needs DATABASE_URL=postgres://... and CELERY_BROKER_URL=redis://...")
        competition = self._competition(options["entrants"], options["games_per_match"])
        matches = options["entrants"] * (options["entrants"] - 1) // 2
        games = matches * options["games_per_match"]
        service_seconds = self._run_service(competition, options["workers"])
        stored = Game.objects.filter(match__competition=competition).count()
        if stored != games:
            raise CommandError(f"expected {games} recorded games, found {stored}")
        engine_seconds = self._run_engine(competition, options["workers"])
        service_rate, engine_rate = games / service_seconds, games / engine_seconds
        self.stdout.write(
            f"War round robin: {options['entrants']} entrants, {matches} matches x {options['games_per_match']} games "
            f"= {games:,} games\n"
            f"service ({options['workers']} workers, PostgreSQL, Redis; API start to finished): "
            f"{service_seconds:.2f} s = {service_rate:,.0f} persisted games/s\n"
            f"bare engine ({options['workers']} processes, same games and seeds): "
            f"{engine_seconds:.2f} s = {engine_rate:,.0f} games/s\n"
            f"ratio: {service_rate / engine_rate:.2f}"
        )

    def _competition(self, entrants: int, games_per_match: int) -> Competition:
        organiser = Player.objects.filter(user__username="bench").first() or player_create(username="bench")
        club = Club.objects.filter(slug="bench").first() or club_create(name="Bench", slug="bench", organiser=organiser)
        competition = competition_create(
            club=club,
            created_by=organiser,
            name=f"bench-service {uuid.uuid4().hex[:6]}",
            game="war",
            games_per_match=games_per_match,
            seed=20261122,
        )
        for number in range(entrants):
            bot = bot_create(owner=organiser, name=f"service-{competition.pk}-{number}", game="war")
            entrant_join(competition=competition, bot_version=bot_version_create_builtin(bot=bot, strategy="random"))
        return competition

    def _run_service(self, competition: Competition, worker_count: int) -> float:
        token = uuid.uuid4().hex[:8]
        queue = f"games-{token}"
        settings.CELERY_GAMES_QUEUE = queue
        workers = [
            WorkerProcess(f"bench{n}-{token}", queues=queue, env={"CELERY_GAMES_QUEUE": queue})
            for n in range(worker_count)
        ]
        for worker in workers:
            worker.start()
        client = Client(HTTP_HOST="127.0.0.1")
        client.force_login(competition.created_by.user)
        try:
            start = time.perf_counter()
            response = client.post(f"/api/tournaments/{competition.pk}/start/")
            if response.status_code != 200:
                raise CommandError(f"start failed: {response.status_code} {response.content[:300]!r}")
            while True:
                competition.refresh_from_db(fields=["status"])
                if competition.status == Competition.Status.FINISHED:
                    break
                time.sleep(0.02)
            return time.perf_counter() - start
        finally:
            for worker in workers:
                worker.stop()
            with app.connection_for_write() as conn:
                conn.default_channel.queue_delete(queue)

    def _run_engine(self, competition: Competition, processes: int) -> float:
        jobs = [
            (match.seed, competition.games_per_match, competition.options)
            for match in competition.matches.order_by("id")
        ]
        chunk = math.ceil(len(jobs) / processes)
        with multiprocessing.get_context("fork").Pool(processes) as pool:
            start = time.perf_counter()
            played = sum(pool.map(_play_matches, [jobs[i : i + chunk] for i in range(0, len(jobs), chunk)]))
            seconds = time.perf_counter() - start
        if played != len(jobs) * competition.games_per_match:
            raise CommandError("the bare engine did not play every game")
        return seconds


def _play_matches(jobs: list[tuple[int, int, dict[str, Any]]]) -> int:
    """The bare engine's share: each match's games with the same seeds, records built and kept."""
    played = 0
    kept = []
    for seed, games, options in jobs:
        result = play_match(
            "war",
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
