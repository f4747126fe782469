"""``manage.py bench_live``: concurrent live tables played by scripted people over HTTP, and how fast a move shows.

Issue 10, "Done means": 200 live tables, each person holding the table's events
stream open (``GET /api/matches/{id}/events/``) and posting a random legal move
(``POST /api/matches/{id}/moves/``) with the version it saw when its turn comes.
The figure is, for every move, the time from sending the POST to each *other*
person at that table receiving an ``event: table`` whose version is at least the
one the move produced (the POST's answer carries it). The site is served by a
real ASGI server (uvicorn, several worker processes) on loopback, with Redis
for the events' nudges and the cache; tables with a bot seat also run a real
Celery worker. The load has a warm-up, a measured window and a short drain to
collect the last deliveries, then stops by itself.
"""

from __future__ import annotations

import asyncio
import bisect
import gc
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from rest_framework.authtoken.models import Token

from config.celery import app
from engine.bench import LIVE_GAMES
from league.models import Club, Membership, Player
from league.services import bot_create, bot_version_create_builtin, club_create, player_create
from tournaments.models import Competition, Match
from tournaments.services.competitions import competition_create, competition_start, entrant_join
from tournaments.worker_processes import WorkerProcess

if TYPE_CHECKING:
    from kombu.transport.virtual import Channel as VirtualChannel


@dataclass
class Seat:
    """One scripted person: their match, token, and every table version their stream delivered, with when."""

    table: int
    match_id: int
    token: str
    #: Versions delivered by the events stream in order, and the monotonic time each arrived.
    versions: list[int] = field(default_factory=list)
    arrived: list[float] = field(default_factory=list)
    latest: dict[str, Any] | None = None
    acting: bool = False
    changed: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass(frozen=True)
class Move:
    table: int
    seat: int
    sent: float
    version: int
    #: When the POST's answer arrived: the part of the latency that is the move itself.
    answered: float


@dataclass
class Tally:
    moves: list[Move] = field(default_factory=list)
    conflicts: int = 0
    errors: list[str] = field(default_factory=list)
    streams_open: int = 0


class Command(BaseCommand):
    help = "Play N concurrent live tables with scripted people over HTTP; print moves/s and POST-to-others latency."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tables", type=int, default=200)
        parser.add_argument("--bot-tables", type=int, default=10, help="of --tables, seated with 2 people and a bot")
        parser.add_argument("--duration", type=int, default=60, help="seconds of measured play")
        parser.add_argument("--warmup", type=int, default=10, help="seconds of play before measuring")
        parser.add_argument(
            "--think-ms",
            type=str,
            default="1000-3000",
            help="a person's thinking time before each move, uniform in MIN-MAX milliseconds",
        )
        parser.add_argument(
            "--workers",
            type=int,
            default=2,
            help="uvicorn worker processes (one a core measured better than two: docs/performance.md)",
        )
        parser.add_argument("--port", type=int, default=8767)
        parser.add_argument("--seed", type=int, default=20261122)

    def handle(self, *args: Any, **options: Any) -> None:
        if connection.vendor != "postgresql" or not settings.CELERY_BROKER_URL.startswith("redis://"):
            raise CommandError("bench_live needs DATABASE_URL=postgres://... and CELERY_BROKER_URL=redis://...")
        if not settings.LIVE_EVENTS_URL:
            raise CommandError("bench_live measures the Redis events path: set CELERY_BROKER_URL or CACHE_URL to Redis")
        tables, bot_tables = options["tables"], options["bot_tables"]
        duration, warmup, workers = options["duration"], options["warmup"], options["workers"]
        try:
            low, high = (int(part) for part in options["think_ms"].split("-"))
        except ValueError:
            raise CommandError("--think-ms takes MIN-MAX in milliseconds, e.g. 1000-3000") from None
        if not 1 <= tables <= 1000 or not 0 <= bot_tables <= tables:
            raise CommandError("--tables 1 to 1000, --bot-tables 0 to --tables")
        if not 1 <= duration <= 600 or not 0 <= warmup <= 120 or not 1 <= workers <= 16 or not 0 <= low <= high:
            raise CommandError("--duration 1 to 600 s, --warmup 0 to 120 s, --workers 1 to 16, --think-ms MIN <= MAX")
        queue = f"games-live-{uuid.uuid4().hex[:8]}"
        # Bot decisions are sent to this queue by the web processes and by the start below alike.
        settings.CELERY_GAMES_QUEUE = queue
        worker = WorkerProcess(f"benchlive-{queue}", queues=queue, env={"CELERY_GAMES_QUEUE": queue})
        if bot_tables:
            worker.start()
        try:
            started = time.perf_counter()
            seats = self._tables(tables, bot_tables, options["seed"])
            self.stdout.write(
                f"{tables} live tables ({tables - bot_tables} of 3 people, {bot_tables} of 2 people and a bot; "
                f"{', '.join(game for game, _ in LIVE_GAMES)} in turn), {sum(map(len, seats))} people, "
                f"made in {time.perf_counter() - started:.1f} s"
            )
            server = self._serve(options["port"], workers, queue)
            # The 590 people are one process here, not 590 devices: a full pass of its collector (three a run,
            # up to 190 ms) would stop every page at once and count as the server's latency. Its garbage
            # waits until the run is over (the process grew to about 180 MB).
            gc.freeze()
            gc.disable()
            try:
                tally, seen = asyncio.run(
                    _play(
                        f"http://127.0.0.1:{options['port']}",
                        seats,
                        warmup=warmup,
                        duration=duration,
                        think=(low / 1000, high / 1000),
                        seed=options["seed"],
                    )
                )
            finally:
                gc.enable()
                gc.unfreeze()
                server.terminate()
                server.wait(timeout=30)
        finally:
            worker.stop()
            if bot_tables:
                with app.connection_for_write() as conn:
                    # The benchmark's Redis broker is a kombu virtual transport (StdChannel deletes no queues).
                    cast("VirtualChannel", conn.default_channel).queue_delete(queue)
        self._report(tally, seen, tables=tables, workers=workers, duration=duration, warmup=warmup, think=(low, high))

    def _tables(self, count: int, bot_tables: int, seed: int) -> list[list[Seat]]:
        """``count`` started competitions of one live match each; the people at each, with a token apiece."""
        run = uuid.uuid4().hex[:6]
        organiser = Player.objects.filter(user__username="bench").first() or player_create(username="bench")
        club = Club.objects.filter(slug="bench").first() or club_create(name="Bench", slug="bench", organiser=organiser)
        tables: list[list[Seat]] = []
        for number in range(count):
            # Three people each (or two and a bot), so each move has two others to reach.
            game, options = LIVE_GAMES[number % len(LIVE_GAMES)]
            competition = competition_create(
                club=club,
                created_by=organiser,
                name=f"bench-live {run} {number}",
                game=game,
                options=options,
                # Enough games that no match ends within a run: every table plays for the whole window.
                settings={"players_per_match": 3, "games_per_match": 20},
                seed=seed + number,
            )
            # Nobody here runs out of time: the clocks are the beat's business, not this benchmark's.
            Competition.objects.filter(pk=competition.pk).update(move_seconds=3600, game_seconds=36000)
            people = 2 if number < bot_tables else 3
            tokens = []
            for person in range(people):
                player = player_create(username=f"live-{run}-{number}-{person}")
                Membership.objects.create(club=club, player=player, role=Membership.Role.MEMBER)
                entrant_join(competition=competition, player=player)
                tokens.append(Token.objects.create(user=player.user).key)
            if people < 3:
                bot = bot_create(owner=organiser, name=f"live-{run}-{number}", game=game)
                version = bot_version_create_builtin(bot=bot, strategy="random")
                entrant_join(competition=competition, bot_version=version)
            competition_start(competition=competition)
            match = Match.objects.get(competition=competition)
            if match.status != Match.Status.LIVE:
                raise CommandError(f"match {match.pk} did not go live: {match.status} {match.error}")
            tables.append([Seat(table=number, match_id=match.pk, token=token) for token in tokens])
        return tables

    def _serve(self, port: int, workers: int, queue: str) -> subprocess.Popen[bytes]:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.local",
            "DJANGO_DEBUG": "false",
            "CELERY_GAMES_QUEUE": queue,
            # As docs/deploy.md says to run an ASGI server: connections lent per request from a pool.
            "DATABASE_POOL": "true",
        }
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "config.asgi:application",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--workers",
                str(workers),
                "--backlog",
                "2048",
                "--log-level",
                "warning",
                "--no-access-log",
            ],
            env=env,
            cwd=settings.BASE_DIR,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if server.poll() is not None:
                raise CommandError(f"uvicorn exited with {server.returncode}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return server
            except OSError:
                time.sleep(0.2)
        server.terminate()
        raise CommandError(f"uvicorn did not start on port {port}")

    def _report(
        self,
        tally: Tally,
        seen: list[float],
        *,
        tables: int,
        workers: int,
        duration: int,
        warmup: int,
        think: tuple[int, int],
    ) -> None:
        self.stdout.write(
            f"live tables ({tables} tables, think {think[0]}-{think[1]} ms, {duration} s after a {warmup} s warm-up, "
            f"uvicorn with {workers} workers, PostgreSQL, Redis): {len(tally.moves) / duration:,.1f} moves/s"
        )
        if seen:
            self.stdout.write(f"POST to every other seat seeing it: {_figures(seen)}")
            # Detail: how much of that is the move's own request (the rest is the others' streams).
            answers = [(move.answered - move.sent) * 1000 for move in tally.moves]
            self.stdout.write(f"POST to its answer (the mover's own): {_figures(answers)}")
        self.stdout.write(f"409 conflicts: {tally.conflicts}; errors: {len(tally.errors)}")
        # Another load on the same 2 cores (a test suite, a browser) swamps these figures: say whether one was there.
        one, five, fifteen = os.getloadavg()
        self.stdout.write(f"load average at the end: {one:.1f} (1 min), {five:.1f} (5 min), {fifteen:.1f} (15 min)")
        for error in tally.errors[:10]:
            self.stdout.write(f"  {error}")
        if not seen or tally.errors:
            raise CommandError("the run had errors, or measured nothing")


def _figures(values: list[float]) -> str:
    ordered = sorted(values)
    return (
        f"p50 {_quantile(ordered, 0.50):.1f} ms, p90 {_quantile(ordered, 0.90):.1f} ms, "
        f"p99 {_quantile(ordered, 0.99):.1f} ms, max {ordered[-1]:.1f} ms, "
        f"mean {statistics.fmean(ordered):.1f} ms, {len(ordered):,} samples"
    )


def _quantile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _play(
    base: str,
    tables: list[list[Seat]],
    *,
    warmup: int,
    duration: int,
    think: tuple[float, float],
    seed: int,
) -> tuple[Tally, list[float]]:
    """Every person's stream and moves for the warm-up, the window and a drain; each move's latencies in ms.

    aiohttp, whose HTTP parser is C: the scripted people share the machine's two cores with the server,
    and a pure-Python client (httpx's h11) took a whole core for itself, which the server then lacked.
    """
    import aiohttp

    tally = Tally()
    rng = random.Random(seed)
    loop = asyncio.get_running_loop()
    began = loop.time()
    measure_from, stop_moving = began + warmup, began + warmup + duration
    # After the window no new move is sent; the last ones get this long to reach everyone.
    drain = 3.0
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=None, sock_connect=30)
    async with aiohttp.ClientSession(base, connector=connector, timeout=timeout) as client:

        async def watch(seat: Seat) -> None:
            """The person's events stream: record every version as it arrives, and wake their turn."""
            headers = {"Authorization": f"Token {seat.token}", "Accept": "text/event-stream"}
            try:
                async with client.get(f"/api/matches/{seat.match_id}/events/", headers=headers) as response:
                    if response.status != 200:
                        tally.errors.append(f"events of match {seat.match_id}: HTTP {response.status}")
                        return
                    tally.streams_open += 1
                    event = b""
                    async for raw in response.content:
                        line = raw.rstrip(b"\r\n")
                        if line.startswith(b"event: "):
                            event = line[7:]
                        elif line.startswith(b"data: ") and event == b"table":
                            now = loop.time()
                            table = json.loads(line[6:])
                            seat.versions.append(table["version"])
                            seat.arrived.append(now)
                            _update(seat, table)
                        elif not line:
                            event = b""
                    if loop.time() < stop_moving:
                        tally.errors.append(f"events of match {seat.match_id} ended early")
            except aiohttp.ClientError as exc:
                if loop.time() < stop_moving:
                    tally.errors.append(f"events of match {seat.match_id}: {exc!r}")

        async def play(seat: Seat, index: int) -> None:
            """The person: on their turn, think, then post a random legal move with the version they saw."""
            headers = {"Authorization": f"Token {seat.token}"}
            moves = 0
            while loop.time() < stop_moving:
                await seat.changed.wait()
                seat.changed.clear()
                table = seat.latest
                if table is None or table["status"] != "live":
                    if table is not None:
                        return
                    continue
                if table["seat"] not in table["awaiting"] or not table["legal_actions"]:
                    continue
                await asyncio.sleep(rng.uniform(*think))
                table = seat.latest
                if loop.time() >= stop_moving or table is None or table["seat"] not in table["awaiting"]:
                    continue
                moves += 1
                body = {
                    "action": rng.choice(table["legal_actions"]),
                    "version": table["version"],
                    "client_move_id": f"{index}-{moves}",
                }
                sent = loop.time()
                try:
                    async with client.post(
                        f"/api/matches/{seat.match_id}/moves/", json=body, headers=headers
                    ) as response:
                        status = response.status
                        text = await response.text()
                except aiohttp.ClientError as exc:
                    tally.errors.append(f"move at match {seat.match_id}: {exc!r}")
                    continue
                answered = loop.time()
                if status == 200:
                    answer = json.loads(text)
                    if sent >= measure_from:
                        tally.moves.append(Move(seat.table, index, sent, answer["version"], answered))
                    _update(seat, answer)
                elif status == 409:
                    # Another seat's step moved the table on meanwhile: wait for the stream to say how.
                    tally.conflicts += 1
                else:
                    tally.errors.append(f"move at match {seat.match_id}: HTTP {status} {text[:200]}")

        everyone = [seat for table in tables for seat in table]
        watchers = [asyncio.create_task(watch(seat)) for seat in everyone]
        players = [asyncio.create_task(play(seat, index)) for index, seat in enumerate(everyone)]
        await asyncio.sleep(max(0.0, stop_moving - loop.time()))
        for task in players:
            task.cancel()
        await asyncio.sleep(drain)
        for task in watchers:
            task.cancel()
        await asyncio.gather(*players, *watchers, return_exceptions=True)
    if tally.streams_open < len(everyone):
        tally.errors.append(f"only {tally.streams_open} of {len(everyone)} events streams opened")
    return tally, _latencies(tables, tally)


def _update(seat: Seat, table: dict[str, Any]) -> None:
    if seat.latest is None or table["version"] > seat.latest["version"]:
        seat.latest = table
        seat.changed.set()


def _latencies(tables: list[list[Seat]], tally: Tally) -> list[float]:
    """For each move and each other person at its table: sent to the first delivery at or past its version."""
    everyone = [seat for table in tables for seat in table]
    seen: list[float] = []
    unseen = 0
    for move in tally.moves:
        mover = everyone[move.seat]
        for other in tables[move.table]:
            if other is mover:
                continue
            at = bisect.bisect_left(other.versions, move.version)
            if at == len(other.versions):
                unseen += 1
                continue
            seen.append((other.arrived[at] - move.sent) * 1000)
    if unseen:
        tally.errors.append(f"{unseen} deliveries never arrived within the drain")
    return seen
