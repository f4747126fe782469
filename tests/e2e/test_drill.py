"""The resilience drill (docs/drill.md): a round robin survives killed workers and a restarted Redis.

A 2-player Banter round robin of 8 entrants (28 matches of 500 games: 14,000 games) is played twice
by the same two real `celery worker` processes on PostgreSQL and Redis, with the
same competition seed and the same entrants:

1. undisturbed, to get the reference table;
2. while the drill SIGKILLs a worker (and its pool) three times, each time while both
   workers are in the middle of a match, restarts it at once (the beat worker, which
   runs the reaper, comes back with beat), and restarts Redis once while tasks are
   queued, which drops every one of them.

The second run must finish on its own (the reaper requeues the dead workers' matches
and re-sends the tasks Redis forgot; the workers reconnect by themselves), record
every game exactly once, leave no match pending, running or in error, and end with
the very same table and ratings, bit for bit (DESIGN.md, "Ratings"; "Idempotent
background work"). Run it alone with `make drill`; it prints the figures.

It restarts the Redis at CELERY_BROKER_URL, so it needs that Redis on this machine
and takes it down for a moment: nothing else should be using it meanwhile.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import socket
import subprocess
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import redis
from django.conf import settings
from django.db.models import Count
from django.utils import timezone

from league.models import BotVersion
from league.standings import FIGURE_COLUMNS
from tests.e2e.conftest import BROKER
from tests.factories import BotFactory, BotVersionFactory, ClubFactory, PlayerFactory
from tournaments.models import Competition, Game, Match, Standing
from tournaments.services.competitions import competition_create, competition_start, entrant_join
from tournaments.worker_processes import WorkerProcess

pytestmark = pytest.mark.slow

Start = Callable[..., WorkerProcess]

GAME = "banter"
#: Name and built-in strategy of each entrant, in joining order (the schedule follows it).
ENTRANTS = [
    ("ada", "upgrader"),
    ("bo", "random"),
    ("cy", "upgrader"),
    ("di", "random"),
    ("ed", "upgrader"),
    ("flo", "random"),
    ("gus", "upgrader"),
    ("hal", "random"),
]
MATCHES = len(ENTRANTS) * (len(ENTRANTS) - 1) // 2
GAMES_PER_MATCH = 500
SEED = 20_240_611

#: When each disturbance may happen: once this share of the matches is done (and the moment is right).
KILL_AT = (0.15, 0.40, 0.70)
REDIS_AT = 0.55
#: A heartbeat younger than this means the match's worker is alive and playing it.
FRESH = timedelta(seconds=1.5)
#: The drill leaves this long between two disturbances, so each one is recovered on its own.
SPACING = 3.0
FINISH_TIMEOUT = 150.0

STANDING_FIELDS = (
    "played",
    "won",
    "drawn",
    "lost",
    "match_units",
    "games_played",
    "games_won",
    *FIGURE_COLUMNS,
    "mu",
    "sigma",
    "ordinal",
)


def redis_address() -> tuple[str, int]:
    parts = urlsplit(BROKER)
    return parts.hostname or "", parts.port or 6379


@pytest.fixture
def local_redis() -> None:
    """The drill restarts the broker's Redis: it must run on this machine, with its tools at hand."""
    host, _ = redis_address()
    missing = [tool for tool in ("redis-server", "redis-cli") if shutil.which(tool) is None]
    problem = ""
    if not BROKER.startswith("redis://"):
        problem = "needs Redis (CELERY_BROKER_URL)"
    elif host not in ("127.0.0.1", "localhost"):
        problem = f"restarts Redis, which must run on this machine, not on {host}"
    elif missing:
        problem = f"restarts Redis with {' and '.join(missing)}, not installed"
    if problem:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the drill {problem}")
        pytest.skip(f"the drill {problem}")


class Disturber:
    """Called between polls of the disturbed run: carries out the plan, one step at a time, at the right moments."""

    def __init__(self, competition: Competition, *, beat_worker: WorkerProcess, other: WorkerProcess) -> None:
        self.competition = competition
        self.plan: list[tuple[float, str, WorkerProcess | None]] = [
            (KILL_AT[0], "kill", other),
            # The beat worker too: no reaper runs until it is back, with beat again.
            (KILL_AT[1], "kill", beat_worker),
            (REDIS_AT, "redis", None),
            (KILL_AT[2], "kill", other),
        ]
        self.kills = 0
        self.redis_restarts = 0
        self.tasks_dropped = 0
        self.retried = 0
        self.log: list[str] = []
        self.start = self.last = time.monotonic()

    def __call__(self) -> None:
        self.watch_recovery()
        if not self.plan or time.monotonic() - self.last < SPACING:
            return
        share, action, victim = self.plan[0]
        done = self.competition.matches.filter(status=Match.Status.DONE).count()
        if done < share * MATCHES:
            return
        if action == "kill" and victim is not None and both_workers_mid_match(self.competition):
            victim.kill()
            self.kills += 1
            self.note(f"SIGKILL {victim.name} and its pool, {done}/{MATCHES} matches done")
            victim.start()
            self.note(f"{victim.name} restarted{' with beat' if victim.beat else ''}")
        elif action == "redis" and queued_tasks(self.competition) > 0:
            dropped = restart_redis(*redis_address())
            self.redis_restarts += 1
            self.tasks_dropped += dropped
            self.note(f"Redis restarted: {dropped} queued match tasks dropped, {done}/{MATCHES} matches done")
        else:
            return
        self.plan.pop(0)
        self.last = time.monotonic()

    def watch_recovery(self) -> None:
        retried = self.competition.matches.filter(attempts__gt=1).count()
        if retried > self.retried:
            self.retried = retried
            self.note(f"a killed worker's match is claimed again (attempt 2): {retried} so far")

    def note(self, what: str) -> None:
        self.log.append(f"  {time.monotonic() - self.start:6.1f} s  {what}")


def test_a_round_robin_survives_killed_workers_and_a_redis_restart_with_identical_results(
    workers: Start, local_redis: None, tmp_path: Path
) -> None:
    versions = entrant_versions()
    # w1 runs beat, hence the reaper (as a task, which either worker may run).
    w1 = workers("w1", beat=True)
    w2 = workers("w2")
    logs = [tmp_path / "w1.log", tmp_path / "w2.log"]

    calm = started_competition("calm", versions)
    calm_seconds = wait_until_finished(calm, logs=logs)
    assert_complete(calm)
    calm_table, calm_games = table(calm), games(calm)

    calm_reaper = reaper_says(logs, skip={})
    log_marks = {log: len(log.read_text(errors="replace").splitlines()) for log in logs}
    stormy = started_competition("stormy", versions)
    disturb = Disturber(stormy, beat_worker=w1, other=w2)
    stormy_seconds = wait_until_finished(stormy, logs=logs, on_tick=disturb)
    stormy_table, stormy_games = table(stormy), games(stormy)
    requeued = [
        f"round {r} match {m}"
        for r, m in stormy.matches.filter(attempts__gt=1)
        .order_by("round__number", "number")
        .values_list("round__number", "number")
    ]

    print(f"\nresilience drill: {GAME}, {len(ENTRANTS)} entrants, {MATCHES} matches x {GAMES_PER_MATCH} games")
    for label, played, seconds in (
        ("undisturbed", calm_games, calm_seconds),
        ("disturbed", stormy_games, stormy_seconds),
    ):
        print(f"  {label + ':':13}{len(played)} games in {seconds:.1f} s, {len(played) / seconds:.0f} games/s")
    print(
        f"  kills: {disturb.kills}, Redis restarts: {disturb.redis_restarts} ({disturb.tasks_dropped} queued match "
        f"tasks dropped), matches requeued (attempts > 1): {len(requeued)} ({', '.join(requeued)})"
    )
    print(f"  the reaper (workers' logs): undisturbed run {calm_reaper}")
    print(f"  the reaper (workers' logs): disturbed run {reaper_says(logs, skip=log_marks)}")
    print("\n".join(disturb.log))

    assert disturb.plan == [], f"the run ended before the drill could {[step for _, step, _ in disturb.plan]}"
    assert_complete(stormy)
    assert stormy_games.keys() == calm_games.keys()
    # Listed rather than diffed: a diff of 14,000 records would bury the answer.
    assert [key for key, game in calm_games.items() if stormy_games[key] != game] == []
    # Ratings are floats compared exactly: they are applied in a fixed order, so they must be bit-identical.
    assert stormy_table == calm_table
    # Each kill caught a worker in the middle of a first attempt (only a kill in the instant a match
    # commits could miss), and no match was retried more than once.
    assert 1 <= len(requeued) <= disturb.kills
    assert set(stormy.matches.values_list("attempts", flat=True)) <= {1, 2}


def entrant_versions() -> list[BotVersion]:
    owner = PlayerFactory()
    return [
        BotVersionFactory(bot=BotFactory(owner=owner, name=name, game=GAME), number=1, strategy=strategy)
        for name, strategy in ENTRANTS
    ]


def started_competition(name: str, versions: list[BotVersion]) -> Competition:
    owner = versions[0].bot.owner
    competition = competition_create(
        club=ClubFactory(),
        created_by=owner,
        name=name,
        game=GAME,
        games_per_match=GAMES_PER_MATCH,
        seed=SEED,
    )
    for version in versions:
        entrant_join(competition=competition, bot_version=version)
    # Committed at once (transactional_db): its on_commit sends the first matches to the workers.
    return competition_start(competition=competition)


def wait_until_finished(
    competition: Competition, *, logs: list[Path], on_tick: Callable[[], None] = lambda: None
) -> float:
    start = time.monotonic()
    while True:
        competition.refresh_from_db(fields=["status"])
        if competition.status == Competition.Status.FINISHED:
            return time.monotonic() - start
        if time.monotonic() - start > FINISH_TIMEOUT:
            counts = dict(competition.matches.values_list("status").annotate(n=Count("id")))
            tails = "\n".join(f"--- {log.name}\n{log.read_text(errors='replace')[-3000:]}" for log in logs)
            raise AssertionError(f"{competition.name} did not finish in {FINISH_TIMEOUT:.0f} s: {counts}\n{tails}")
        on_tick()
        time.sleep(0.05)


def both_workers_mid_match(competition: Competition) -> bool:
    """Two running matches, both first attempts with fresh heartbeats: each worker is playing one.

    First attempts only, so no match is killed twice (three deaths give a match up, by design).
    """
    running = list(competition.matches.filter(status=Match.Status.RUNNING).values_list("heartbeat_at", "attempts"))
    fresh = timezone.now() - FRESH
    return len(running) == 2 and all(beat is not None and beat > fresh and tries == 1 for beat, tries in running)


def queued_tasks(competition: Competition) -> int:
    """Matches sent to the broker and not claimed yet: their tasks wait in Redis."""
    return competition.matches.filter(status=Match.Status.PENDING, queued_at__isnull=False).count()


def restart_redis(host: str, port: int) -> int:
    """Stop Redis without saving and start it again, as CI does; the number of match tasks it forgot."""
    dropped = int(redis.Redis.from_url(BROKER).llen(str(settings.CELERY_GAMES_QUEUE)))
    _redis_cli(host, port, "shutdown", "nosave")
    try:
        wait_for_port(host, port, open_=False)
    finally:
        # Whatever happened, Redis must come back: the rest of the suite needs it.
        subprocess.run(
            shlex.split(
                f'redis-server --daemonize yes --bind 127.0.0.1 -::1 --port {port} --save "" --appendonly no '
                "--dir /var/lib/redis --logfile /var/log/redis/ci.log"
            ),
            check=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            timeout=10,
        )
    deadline = time.monotonic() + 30
    while _redis_cli(host, port, "ping") != "PONG":
        if time.monotonic() > deadline:
            raise AssertionError("Redis did not answer PING within 30 s of its restart")
        time.sleep(0.1)
    return dropped


def _redis_cli(host: str, port: int, *command: str) -> str:
    answer = subprocess.run(
        ["redis-cli", "-h", host, "-p", str(port), *command], capture_output=True, text=True, timeout=10
    )
    return answer.stdout.strip()


def wait_for_port(host: str, port: int, *, open_: bool, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection((host, port), timeout=0.5).close()
            is_open = True
        except OSError:
            is_open = False
        if is_open == open_:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"{host}:{port} still {'closed' if open_ else 'open'} after {timeout} s")
        time.sleep(0.05)


def reaper_says(logs: list[Path], *, skip: dict[Path, int]) -> str:
    """What the reaper did, from the workers' logs past ``skip`` lines (beat sends it, either worker runs it)."""
    totals = [0, 0, 0]
    lines = [line for log in logs for line in log.read_text(errors="replace").splitlines()[skip.get(log, 0) :]]
    for line in lines:
        found = re.search(r"reaper: requeued (\d+) running, gave up (\d+), re-sent (\d+) pending", line)
        if found:
            totals = [total + int(n) for total, n in zip(totals, found.groups(), strict=True)]
    return f"requeued {totals[0]} running, gave up {totals[1]}, re-sent {totals[2]} pending"


def assert_complete(competition: Competition) -> None:
    matches = competition.matches
    assert matches.count() == MATCHES
    assert not matches.exclude(status=Match.Status.DONE).exists(), "a match is not done"
    assert matches.filter(rated=True).count() == MATCHES
    games = Game.objects.filter(match__competition=competition)
    assert games.count() == MATCHES * GAMES_PER_MATCH
    assert games.values("match", "number").distinct().count() == MATCHES * GAMES_PER_MATCH
    per_match = set(games.values("match").annotate(n=Count("id")).values_list("n", flat=True))
    assert per_match == {GAMES_PER_MATCH}


def table(competition: Competition) -> dict[str, dict[str, Any]]:
    """Each entrant's standings row and rating, by name (entrant ids differ between competitions)."""
    return {
        row.entrant.name: {name: getattr(row, name) for name in STANDING_FIELDS}
        for row in Standing.objects.filter(competition=competition).select_related("entrant")
    }


def games(competition: Competition) -> dict[tuple[int, int, int], tuple[Any, ...]]:
    """Every recorded game by (round, match, game number): seating by name, seed, result and record."""
    names = dict(competition.entrants.values_list("id", "name"))
    return {
        (game.match.round.number, game.match.number, game.number): (
            [None if who is None else names[who] for who in game.seating],
            game.seed,
            game.result,
            game.record,
        )
        for game in Game.objects.filter(match__competition=competition).select_related("match__round")
    }
