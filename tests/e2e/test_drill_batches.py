"""Drill D (docs/drill.md): matches played in batches survive workers killed mid-batch, and Redis and
PostgreSQL restarted mid-batch.

The short matches of a ladder or a round robin of one-game matches go to the workers in batches: one
message, one claim and one recording for several matches (tournaments/services/scheduling.py). Here a
2-player Banter round robin of 10 built-in bots (45 matches of 400 games) is cut into batches of two
matches (MATCH_BATCH_GAMES=800), played twice by the same two real `celery worker` processes on
PostgreSQL and Redis, the first time undisturbed. The second time, while both workers are in the middle
of a batch (four matches running, first attempts, fresh heartbeats), the drill:

1. SIGKILLs a worker and its pool, and starts it again;
2. restarts PostgreSQL;
3. restarts Redis without saving, which drops every queued batch;
4. SIGKILLs a worker again.

The run must finish by itself (the reaper puts a dead worker's batch back and re-sends what Redis
forgot), record every game exactly once, and end with the very games, standings and ratings of the
undisturbed run, bit for bit. Each kill must have caught a whole batch: both of its matches claimed
again.
"""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.db.utils import Error as DatabaseError
from django.test import override_settings

from tests.e2e.conftest import Workers
from tests.e2e.drill_support import (
    ENTRANTS,
    GAME,
    assert_complete,
    assert_identical,
    entrant_versions,
    games,
    matches_done,
    now,
    running_matches,
    started_competition,
    table,
    wait_until_finished,
)
from tests.e2e.service_control import Postgres, Redis
from tests.e2e.test_drill import restart_redis
from tournaments.models import Competition
from tournaments.worker_processes import WorkerProcess

pytestmark = pytest.mark.slow

#: Two more bots than the other drills: the four steps each wait for both workers to be mid-batch on first
#: attempts, and 28 matches could finish before the last step found that (it did once, in CI).
BATCH_ENTRANTS = [*ENTRANTS, ("ivy", "upgrader"), ("jo", "random")]
MATCHES = len(BATCH_ENTRANTS) * (len(BATCH_ENTRANTS) - 1) // 2

GAMES_PER_MATCH = 400
#: Two matches a batch: the release (in this process for the first round, in the workers after) cuts them so.
BATCHES = {"MATCH_BATCH_GAMES": "800", "MATCH_BATCH_SPREAD": "2"}
SEED = 20_261_127
FRESH = timedelta(seconds=1.5)
SPACING = 2.0
FINISH_TIMEOUT = 300.0


class MidBatch:
    """Between polls of the disturbed run: each step of the plan, once both workers are in the middle of a batch."""

    def __init__(self, competition: Competition, *, victim: WorkerProcess, redis_: Redis, postgres: Postgres) -> None:
        self.competition = competition
        self.victim = victim
        self.redis = redis_
        self.postgres = postgres
        self.plan = ["kill", "postgres", "redis", "kill"]
        self.kills = 0
        self.log: list[str] = []
        self.start = self.last = time.monotonic()

    def __call__(self) -> None:
        if not self.plan or time.monotonic() - self.last < SPACING:
            return
        try:
            running = running_matches(self.competition)
            done = matches_done(self.competition)
        except DatabaseError:
            connection.close()
            return
        fresh = now() - FRESH
        step = self.plan[0]
        # Four running with fresh heartbeats: each worker holds a batch of two and plays it. A kill only of
        # first attempts, so no match is killed twice (three deaths give a match up, by design); the
        # restarts cost no attempt.
        if len(running) != 4 or any(beat is None or beat < fresh for beat, _ in running):
            return
        if step == "kill" and any(tries != 1 for _, tries in running):
            return
        self.plan.pop(0)
        if step == "kill":
            self.victim.kill()
            self.kills += 1
            self.victim.start()
            self.note(f"SIGKILL {self.victim.name} mid-batch and start it again, {done}/{MATCHES} matches done")
        elif step == "redis":
            dropped = restart_redis(self.redis)
            self.note(f"Redis restarted mid-batch: {dropped} queued batches dropped, {done}/{MATCHES} matches done")
        else:
            downtime = self.postgres.restart()
            self.note(f"PostgreSQL restarted mid-batch ({downtime.seconds:.2f} s down), {done}/{MATCHES} matches done")
        self.last = time.monotonic()

    def note(self, what: str) -> None:
        self.log.append(f"  {time.monotonic() - self.start:6.1f} s  {what}")


@override_settings(MATCH_BATCH_GAMES=int(BATCHES["MATCH_BATCH_GAMES"]), MATCH_BATCH_SPREAD=2)
def test_batches_survive_kills_and_restarts_mid_batch_with_identical_results(
    workers: Workers, local_redis: Redis, local_postgres: Postgres, tmp_path: Path
) -> None:
    versions = entrant_versions(GAME, BATCH_ENTRANTS)
    workers("w1", beat=True, extra_env=BATCHES)
    w2 = workers("w2", extra_env=BATCHES)
    logs = [tmp_path / "w1.log", tmp_path / "w2.log"]

    calm = started_competition("calm", versions, games_per_match=GAMES_PER_MATCH, seed=SEED)
    calm_seconds = wait_until_finished(calm, logs=logs, timeout=FINISH_TIMEOUT)
    assert_complete(calm, matches=MATCHES, games_per_match=GAMES_PER_MATCH)
    calm_table, calm_games = table(calm), games(calm)

    stormy = started_competition("stormy", versions, games_per_match=GAMES_PER_MATCH, seed=SEED)
    disturb = MidBatch(stormy, victim=w2, redis_=local_redis, postgres=local_postgres)
    stormy_seconds = wait_until_finished(stormy, logs=logs, timeout=FINISH_TIMEOUT, on_tick=disturb)
    again = list(stormy.matches.filter(attempts__gt=1).order_by("id").values_list("id", flat=True))

    print(f"\nbatch drill: {GAME}, {MATCHES} matches x {GAMES_PER_MATCH} games, batches of 2")
    print(f"  undisturbed {calm_seconds:.1f} s, disturbed {stormy_seconds:.1f} s; claimed again: {again}")
    print("\n".join(disturb.log))

    assert disturb.plan == [], f"the run ended before the drill could {disturb.plan}"
    assert_complete(stormy, matches=MATCHES, games_per_match=GAMES_PER_MATCH)
    assert_identical(calm_games, calm_table, stormy)
    # A kill catches a whole batch of two: both its matches are claimed again, on a second attempt (only a
    # kill in the instant a batch commits could miss it). The restarts cost no attempt: a worker waits
    # for PostgreSQL and plays its batch again on the same claim, and a batch Redis forgot is re-sent.
    assert len(again) >= 2 and len(again) % 2 == 0, again
    assert set(stormy.matches.values_list("attempts", flat=True)) <= {1, 2}
