"""``manage.py bench_api``: the standings endpoint under load, on a competition of 100,000 recorded games.

DESIGN.md, "Benchmarks": warm up first, then 50 concurrent clients for 60 s. The
games are played and recorded through the same services a worker uses, so the
tables hold what a real ladder would. The load comes from wrk on this machine.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection

from engine.bench import SERVICE_GAME
from league.models import Club, Player
from league.services import bot_create, bot_version_create_builtin, club_create, player_create
from tournaments.models import Competition, Game, Match
from tournaments.services.competitions import competition_create, competition_start, entrant_join
from tournaments.services.play import match_play

BENCH_NAME = "bench-api"


class Command(BaseCommand):
    help = "Load a War round robin of about N recorded games (once), then load-test its standings endpoint."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--games", type=int, default=100_000)
        parser.add_argument("--entrants", type=int, default=50)
        parser.add_argument("--connections", type=int, default=50)
        parser.add_argument("--duration", type=int, default=60, help="seconds of measured load")
        parser.add_argument("--warmup", type=int, default=10, help="seconds of load before measuring")
        parser.add_argument("--workers", type=int, default=3, help="gunicorn (sync) worker processes")
        parser.add_argument("--port", type=int, default=8765)

    def handle(self, *args: Any, **options: Any) -> None:
        if connection.vendor != "postgresql":
            raise CommandError("bench_api measures PostgreSQL: set DATABASE_URL=postgres://...")
        if shutil.which("wrk") is None:
            raise CommandError("wrk is not installed (Debian package wrk; `make bench-api` installs it)")
        competition = self._load(games=options["games"], entrants=options["entrants"])
        stored = Game.objects.filter(match__competition=competition).count()
        url = f"http://127.0.0.1:{options['port']}/api/tournaments/{competition.pk}/standings/"
        server = self._serve(options["port"], options["workers"])
        try:
            self._wrk(url, options["connections"], options["warmup"], latency=False)
            report = self._wrk(url, options["connections"], options["duration"], latency=True)
        finally:
            server.terminate()
            server.wait(timeout=30)
        self.stdout.write(
            f"standings endpoint ({stored:,} recorded games, {options['entrants']} entrants, "
            f"{options['connections']} connections, {options['duration']} s after a {options['warmup']} s warm-up, "
            f"{options['workers']} gunicorn sync workers): "
            f"p50 {report['p50']:.1f} ms, p99 {report['p99']:.1f} ms, "
            f"{report['rps']:,.0f} requests/s, {report['errors']} errors"
        )

    def _load(self, *, games: int, entrants: int) -> Competition:
        existing = Competition.objects.filter(name=BENCH_NAME, status=Competition.Status.FINISHED).first()
        if existing is not None and Game.objects.filter(match__competition=existing).count() >= games:
            self.stdout.write(f"reusing {BENCH_NAME} (competition {existing.pk})")
            return existing
        Competition.objects.filter(name=BENCH_NAME).update(name=f"{BENCH_NAME} (abandoned)")
        organiser = Player.objects.filter(user__username="bench").first() or player_create(username="bench")
        club = Club.objects.filter(slug="bench").first() or club_create(name="Bench", slug="bench", organiser=organiser)
        matches = entrants * (entrants - 1) // 2
        competition = competition_create(
            club=club,
            created_by=organiser,
            name=BENCH_NAME,
            game=SERVICE_GAME,
            settings={"games_per_match": math.ceil(games / matches)},
            seed=20261122,
        )
        for number in range(entrants):
            bot = bot_create(owner=organiser, name=f"bench-{competition.pk}-{number}", game=SERVICE_GAME)
            entrant_join(competition=competition, bot_version=bot_version_create_builtin(bot=bot, strategy="random"))
        competition_start(competition=competition)
        ids = list(competition.matches.order_by("round__number", "id").values_list("id", flat=True))
        start = time.perf_counter()
        for done, match_id in enumerate(ids, start=1):
            match_play(match_id=match_id)
            if done % 50 == 0 or done == len(ids):
                rate = done * competition.games_per_match / (time.perf_counter() - start)
                self.stdout.write(f"loaded {done}/{len(ids)} matches ({rate:,.0f} games/s)")
        if competition.matches.exclude(status=Match.Status.DONE).exists():
            raise CommandError("some bench matches did not finish; see their errors in the admin")
        competition.refresh_from_db()
        return competition

    def _serve(self, port: int, workers: int) -> subprocess.Popen[bytes]:
        # Sync workers take connections from the kernel's accept queue in arrival order, which
        # keeps the tail close to the median; threaded workers serve kept-alive connections
        # unevenly and triple the p99 here (docs/performance.md).
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.local", "DJANGO_DEBUG": "false"}
        env["DATABASE_URL"] = os.environ.get("DATABASE_URL", "")
        # All 50 clients are one address: a rate no run reaches, so reads are counted (as in production) but
        # never refused.
        env["THROTTLE_RATES"] = "anon_read=1000000000/minute"
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "config.wsgi",
                "--workers",
                str(workers),
                "--worker-class",
                "sync",
                "--backlog",
                "2048",
                "--bind",
                f"127.0.0.1:{port}",
                "--log-level",
                "warning",
            ],
            env=env,
            cwd=settings.BASE_DIR,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return server
            except OSError:
                time.sleep(0.2)
        server.terminate()
        raise CommandError(f"gunicorn did not start on port {port}")

    def _wrk(self, url: str, connections: int, seconds: int, *, latency: bool) -> dict[str, Any]:
        command = ["wrk", "-t", "2", "-c", str(connections), "-d", f"{seconds}s", url]
        if latency:
            command.insert(1, "--latency")
        output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        return (
            {
                "p50": _latency_ms(output, "50%"),
                "p99": _latency_ms(output, "99%"),
                "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1)),  # type: ignore[union-attr]
                "errors": _errors(output),
            }
            if latency
            else {}
        )


def _latency_ms(output: str, label: str) -> float:
    match = re.search(rf"^\s+{re.escape(label)}\s+([\d.]+)(us|ms|s)\s*$", output, re.MULTILINE)
    if match is None:
        raise CommandError(f"could not read the {label} latency from wrk:\n{output}")
    value, unit = float(match.group(1)), match.group(2)
    return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value


def _errors(output: str) -> int:
    non_2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    socket_errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    return (int(non_2xx.group(1)) if non_2xx else 0) + (sum(map(int, socket_errors.groups())) if socket_errors else 0)
