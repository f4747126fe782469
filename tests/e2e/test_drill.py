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

import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import redis
from django.conf import settings
from django.utils import timezone

from tests.e2e.conftest import BROKER
from tests.e2e.drill_support import (
    ENTRANTS,
    GAME,
    MATCHES,
    assert_complete,
    assert_identical,
    entrant_versions,
    games,
    log_marks,
    reaper_says,
    started_competition,
    table,
    wait_until_finished,
)
from tests.e2e.service_control import Redis
from tournaments.models import Competition, Match
from tournaments.worker_processes import WorkerProcess

pytestmark = pytest.mark.slow

Start = Callable[..., WorkerProcess]

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


class Disturber:
    """Called between polls of the disturbed run: carries out the plan, one step at a time, at the right moments."""

    def __init__(
        self, competition: Competition, *, beat_worker: WorkerProcess, other: WorkerProcess, redis_: Redis
    ) -> None:
        self.competition = competition
        self.redis = redis_
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
            dropped = restart_redis(self.redis)
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
    workers: Start, local_redis: Redis, tmp_path: Path, settings: Any
) -> None:
    versions = entrant_versions(GAME, ENTRANTS)
    # One match a task, as this drill's moments are chosen (both workers mid-match); drill D plays batches.
    settings.MATCH_BATCH_GAMES = GAMES_PER_MATCH
    one_a_task = {"MATCH_BATCH_GAMES": str(GAMES_PER_MATCH)}
    # w1 runs beat, hence the reaper (as a task, which either worker may run).
    w1 = workers("w1", beat=True, extra_env=one_a_task)
    w2 = workers("w2", extra_env=one_a_task)
    logs = [tmp_path / "w1.log", tmp_path / "w2.log"]

    calm = started_competition("calm", versions, games_per_match=GAMES_PER_MATCH, seed=SEED)
    calm_seconds = wait_until_finished(calm, logs=logs, timeout=FINISH_TIMEOUT)
    assert_complete(calm, matches=MATCHES, games_per_match=GAMES_PER_MATCH)
    calm_table, calm_games = table(calm), games(calm)

    calm_reaper = reaper_says(logs, skip={})
    marks = log_marks(logs)
    stormy = started_competition("stormy", versions, games_per_match=GAMES_PER_MATCH, seed=SEED)
    disturb = Disturber(stormy, beat_worker=w1, other=w2, redis_=local_redis)
    stormy_seconds = wait_until_finished(stormy, logs=logs, timeout=FINISH_TIMEOUT, on_tick=disturb)
    requeued = [
        f"round {r} match {m}"
        for r, m in stormy.matches.filter(attempts__gt=1)
        .order_by("round__number", "number")
        .values_list("round__number", "number")
    ]

    print(f"\nresilience drill: {GAME}, {len(ENTRANTS)} entrants, {MATCHES} matches x {GAMES_PER_MATCH} games")
    for label, seconds in (("undisturbed", calm_seconds), ("disturbed", stormy_seconds)):
        played = MATCHES * GAMES_PER_MATCH
        print(f"  {label + ':':13}{played} games in {seconds:.1f} s, {played / seconds:.0f} games/s")
    print(
        f"  kills: {disturb.kills}, Redis restarts: {disturb.redis_restarts} ({disturb.tasks_dropped} queued match "
        f"tasks dropped), matches requeued (attempts > 1): {len(requeued)} ({', '.join(requeued)})"
    )
    print(f"  the reaper (workers' logs): undisturbed run {calm_reaper}")
    print(f"  the reaper (workers' logs): disturbed run {reaper_says(logs, skip=marks)}")
    print("\n".join(disturb.log))

    assert disturb.plan == [], f"the run ended before the drill could {[step for _, step, _ in disturb.plan]}"
    assert_complete(stormy, matches=MATCHES, games_per_match=GAMES_PER_MATCH)
    assert_identical(calm_games, calm_table, stormy)
    # Each kill caught a worker in the middle of a first attempt (only a kill in the instant a match
    # commits could miss), and no match was retried more than once.
    assert 1 <= len(requeued) <= disturb.kills
    assert set(stormy.matches.values_list("attempts", flat=True)) <= {1, 2}


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


def restart_redis(server: Redis) -> int:
    """Stop Redis without saving and start it again, as CI does; the number of match tasks it forgot."""
    dropped = int(redis.Redis.from_url(BROKER).llen(str(settings.CELERY_GAMES_QUEUE)))
    try:
        server.shutdown()
    finally:
        # Whatever happened, Redis must come back: the rest of the suite needs it.
        server.start_if_down()
    return dropped
