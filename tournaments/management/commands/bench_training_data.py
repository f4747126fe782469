"""``manage.py bench_training_data``: a bot's training-data download keeps to constant memory (issue 26).

It writes one bot's finished games (``engine.bench.TRAINING_DATA_GAME``) in stages (1,000, then 10,000, then
100,000 by default; bulk inserts of real engine records, tournaments/bench_training_data.py) and after each
stage downloads the bot's training data in a fresh process (``--measure``), as its owner, through Django's
test client: the whole response is read a piece at a time and thrown away, as a client saving it to a file
would. Each stage prints the lines and bytes sent, the time, and the download process's peak resident
memory (Linux's VmHWM) beside its memory before the request: a download that held its games or lines would
grow with them.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from django.test import Client

from league.models import Bot
from tournaments.bench_training_data import GAME, PLAYERS, add_games, build_scene

DEFAULT_SIZES = "1000,10000,100000"


class Command(BaseCommand):
    help = "Download one bot's training data at growing numbers of games and print each download's peak memory."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--games", default=DEFAULT_SIZES, help=f"the sizes to measure at, ascending (default {DEFAULT_SIZES})"
        )
        # The stage's download, run by the command itself in a fresh process.
        parser.add_argument("--measure", type=int, metavar="BOT_ID", help=argparse.SUPPRESS)

    def handle(self, *args: Any, **options: Any) -> None:
        if options["measure"] is not None:
            self.stdout.write(json.dumps(_download(options["measure"])))
            return
        if connection.vendor != "postgresql":
            raise CommandError("bench_training_data measures PostgreSQL: set DATABASE_URL=postgres://...", returncode=2)
        if not Path("/proc/self/status").exists():
            raise CommandError("bench_training_data reads peak memory from /proc: it runs on Linux", returncode=2)
        sizes = _sizes(options["games"])
        began = time.perf_counter()
        scene = build_scene(token=uuid.uuid4().hex[:6])
        self.stdout.write(
            f"training data: one {GAME} bot at tables of {PLAYERS}, {len(scene.pool)} distinct games played by the "
            f"engine in {time.perf_counter() - began:.1f} s"
        )
        peaks: list[int] = []
        for size in sizes:
            began = time.perf_counter()
            add_games(scene, size - scene.games)
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")  # fresh rows: let the planner see the tables' sizes, as autovacuum would
            made = time.perf_counter() - began
            figures = _measured(scene.bot.pk)
            peaks.append(figures["peak_kib"])
            self.stdout.write(
                f"{size:>9,} games (+{made:.0f} s to write): {figures['lines']:>10,} lines, "
                f"{figures['bytes'] / 2**20:8.1f} MiB in {figures['seconds']:6.1f} s "
                f"({figures['lines'] / max(figures['seconds'], 1e-9):,.0f} lines/s); "
                f"peak memory {figures['peak_kib'] / 1024:.1f} MiB "
                f"({figures['before_kib'] / 1024:.1f} MiB before the request)"
            )
        growth = (peaks[-1] - peaks[0]) / 1024
        self.stdout.write(
            f"peak memory from {sizes[0]:,} to {sizes[-1]:,} games: {growth:+.1f} MiB "
            f"(x{sizes[-1] // sizes[0]:,} the games)"
        )
        self.stdout.write("load average at the end (1, 5, 15 min): " + ", ".join(f"{v:.2f}" for v in os.getloadavg()))


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(part.replace("_", "")) for part in text.split(",")]
    except ValueError:
        raise CommandError(
            f"--games: whole numbers separated by commas, such as {DEFAULT_SIZES}", returncode=2
        ) from None
    if not sizes or sizes != sorted(set(sizes)) or sizes[0] < 1:
        raise CommandError(f"--games: ascending sizes of 1 or more, such as {DEFAULT_SIZES}", returncode=2)
    return sizes


def _measured(bot_id: int) -> dict[str, Any]:
    """The download's figures, from a fresh process: its peak memory is the download's alone."""
    done = subprocess.run(
        [sys.executable, sys.argv[0], "bench_training_data", "--measure", str(bot_id)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise CommandError(f"the download failed: {done.stderr.strip()[-2000:]}")
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def _memory_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise CommandError(f"/proc/self/status has no {field}")


def _download(bot_id: int) -> dict[str, Any]:
    # DEBUG keeps every SQL statement in memory: a production server does not, and neither does this.
    settings.DEBUG = False
    bot = Bot.objects.select_related("owner__user").get(pk=bot_id)
    client = Client(SERVER_NAME="localhost")
    client.force_login(bot.owner.user)
    before = _memory_kib("VmRSS")
    began = time.perf_counter()
    response = client.get(f"/api/bots/{bot_id}/training-data/")
    if response.status_code != 200:
        raise CommandError(f"the download answered {response.status_code}")
    # The test client's response type leaves out what a streamed response has.
    pieces: Iterable[bytes] | None = getattr(response, "streaming_content", None)
    if pieces is None:
        raise CommandError("the download was not streamed")
    lines = size = 0
    for piece in pieces:
        lines += piece.count(b"\n")
        size += len(piece)
    return {
        "lines": lines,
        "bytes": size,
        "seconds": time.perf_counter() - began,
        "before_kib": before,
        "peak_kib": _memory_kib("VmHWM"),
    }
