"""Drill A (docs/drill.md): PostgreSQL restarted in the middle of a bot competition.

A 2-player Banter round robin of 8 built-in bots (28 matches) is played twice by two real
`celery worker` processes, the first undisturbed. In the second, with the same seed and
entrants, the drill restarts the PostgreSQL cluster the test database lives on while both
workers are in the middle of a match: once at once, and once stopped for some seconds. It
never steps in otherwise: the workers, beat and the reaper must find their way back by
themselves. The competition must finish with every game recorded exactly once and the very
games, standings and ratings of the undisturbed run; no match may be left running or in
error. The drill prints, for each outage, how long after PostgreSQL came back the first match
was claimed and recorded, and when the matches it interrupted were recorded.

The short form (150 games a match, a restart and a 3-second stop) runs in the suite; ``make
drill`` runs the long one (500 games a match, two restarts, stops of 40 and 10 seconds). It
restarts the PostgreSQL of DATABASE_URL: nothing else may use that cluster meanwhile.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.db.utils import Error as DatabaseError

from tests.e2e.conftest import Workers, wait_for
from tests.e2e.drill_support import (
    ENTRANTS,
    FULL,
    GAME,
    MATCHES,
    Timeline,
    assert_complete,
    assert_identical,
    entrant_versions,
    first_after,
    games,
    log_marks,
    matches_done,
    now,
    reaper_says,
    running_matches,
    started_competition,
    table,
    wait_until_finished,
    worker_log_lines,
)
from tests.e2e.service_control import Downtime, Postgres
from tournaments.models import Competition, Match

pytestmark = pytest.mark.slow

GAMES_PER_MATCH = 500 if FULL else 150
SEED = 20_260_301
#: (share of the matches done, seconds PostgreSQL stays down: 0 is a plain restart).
PLAN: list[tuple[float, float]] = (
    [(0.15, 0.0), (0.35, 40.0), (0.6, 0.0), (0.8, 10.0)] if FULL else [(0.1, 0.0), (0.35, 3.0)]
)
FRESH = timedelta(seconds=1.5)
#: A worker logs the cut within this of the outage (its next statement fails).
SLACK = timedelta(seconds=2)
#: Between two outages, so each one is recovered on its own (a worker is back within half a second).
SPACING = 1.5
FINISH_TIMEOUT = 300.0 if FULL else 120.0
#: A match of some seconds, so the cut lands in the middle of it, on a heartbeat between games.
CUT_GAMES = 1000


@dataclass
class Outage:
    label: str
    downtime: Downtime
    #: Matches done when it began.
    done: int


class Restarter:
    """Between polls of the disturbed run: takes PostgreSQL down at the planned moments, while both workers play."""

    def __init__(self, competition: Competition, postgres: Postgres) -> None:
        self.competition = competition
        self.postgres = postgres
        self.plan = list(PLAN)
        self.outages: list[Outage] = []
        self.timeline = Timeline()
        self.last = 0.0

    def __call__(self) -> None:
        if not self.plan or time.monotonic() - self.last < SPACING:
            return
        share, down = self.plan[0]
        try:
            done = matches_done(self.competition)
            running = running_matches(self.competition)
        except DatabaseError:
            connection.close()
            return
        fresh = now() - FRESH
        if done < share * MATCHES or len(running) != 2 or any(beat is None or beat < fresh for beat, _ in running):
            return
        if down:
            label = f"PostgreSQL stopped for {down:.0f} s"
            downtime = self.postgres.stop_for(down)
        else:
            label = "PostgreSQL restarted"
            downtime = self.postgres.restart()
        assert downtime.went is not None and downtime.back is not None
        self.timeline.note(f"{label} ({done}/{MATCHES} matches done)", at=downtime.went)
        self.timeline.note(f"PostgreSQL answers again, after {downtime.seconds:.2f} s", at=downtime.back)
        self.outages.append(Outage(label, downtime, done))
        self.plan.pop(0)
        self.last = time.monotonic()


def test_a_round_robin_survives_postgresql_restarts_with_identical_results(
    workers: Workers, local_postgres: Postgres, tmp_path: Path, settings: Any
) -> None:
    versions = entrant_versions(GAME, ENTRANTS)
    # One match a task, as this drill's moments are chosen (both workers mid-match); drill D plays batches.
    settings.MATCH_BATCH_GAMES = GAMES_PER_MATCH
    one_a_task = {"MATCH_BATCH_GAMES": str(GAMES_PER_MATCH)}
    workers("w1", beat=True, extra_env=one_a_task)
    workers("w2", extra_env=one_a_task)
    logs = [tmp_path / "w1.log", tmp_path / "w2.log"]

    calm = started_competition("calm", versions, games_per_match=GAMES_PER_MATCH, seed=SEED)
    calm_seconds = wait_until_finished(calm, logs=logs, timeout=FINISH_TIMEOUT)
    assert_complete(calm, matches=MATCHES, games_per_match=GAMES_PER_MATCH)
    calm_table, calm_games = table(calm), games(calm)

    marks = log_marks(logs)
    stormy = started_competition("stormy", versions, games_per_match=GAMES_PER_MATCH, seed=SEED)
    restarter = Restarter(stormy, local_postgres)
    stormy_seconds = wait_until_finished(stormy, logs=logs, timeout=FINISH_TIMEOUT, on_tick=restarter)
    attempts = dict(stormy.matches.values_list("id", "attempts"))
    finished = dict(stormy.matches.values_list("id", "finished_at"))
    # The workers say which matches an outage cut short (config/database_outages.py, services/play.py).
    cut_short = worker_log_lines(logs, r"match (\d+): the database went away mid-match", skip=marks)

    print(f"\ndrill A, PostgreSQL restarted mid-competition: {GAME}, {MATCHES} matches x {GAMES_PER_MATCH} games")
    print(f"  undisturbed: {calm_seconds:.1f} s; disturbed: {stormy_seconds:.1f} s")
    print(f"  the reaper (workers' logs): disturbed run {reaper_says(logs, skip=marks)}")
    print(f"  matches played more than once (attempts > 1): {sum(1 for n in attempts.values() if n > 1)}")
    print(restarter.timeline)
    for outage in restarter.outages:
        went, back = outage.downtime.went, outage.downtime.back
        assert went is not None and back is not None
        print(f"  recovery after '{outage.label}', in seconds from PostgreSQL's return:")
        for what, column in (("first match claimed", "started_at"), ("first match recorded", "finished_at")):
            moment = first_after(stormy, column, back)
            print(f"    {what}: {'never' if moment is None else f'{(moment - back).total_seconds():.2f}'}")
        ids = {int(hit[1]) for logged, hit in cut_short if went - SLACK <= logged <= back + SLACK}
        recorded = sorted((finished[i] - back).total_seconds() for i in ids if finished[i] is not None)
        shown = ", ".join(f"{seconds:.2f}" for seconds in recorded)
        print(f"    the {len(ids)} matches it cut short, played again and recorded: {shown}")

    assert restarter.plan == [], f"the run ended before {len(restarter.plan)} more outages"
    assert_complete(stormy, matches=MATCHES, games_per_match=GAMES_PER_MATCH)
    assert_identical(calm_games, calm_table, stormy)
    # An outage is the database's failure, not the match's: it must not spend the attempts that give a
    # match up after MAX_ATTEMPTS deaths of its worker (tournaments/services/scheduling.py).
    assert set(attempts.values()) == {1}, {k: v for k, v in attempts.items() if v != 1}


def test_a_match_whose_database_connection_is_cut_mid_match_is_played_again_on_the_same_attempt(
    workers: Workers, tmp_path: Path
) -> None:
    """The smallest outage: PostgreSQL stays up and ends the worker's session (pg_terminate_backend), as a
    failover or an administrator would. The worker waits for the database, plays the match again from
    its start under the same claim, and records it: never "internal error", never an attempt spent."""
    versions = entrant_versions(GAME, ENTRANTS[:2])
    # With beat, hence the reaper, as every deployment runs it.
    workers("w1", beat=True)
    competition = started_competition("cut", versions, games_per_match=CUT_GAMES, seed=SEED)
    match = competition.matches.get()
    fresh_heartbeat = lambda: bool(  # noqa: E731
        Match.objects.filter(pk=match.pk, status=Match.Status.RUNNING, heartbeat_at__gt=now() - FRESH).exists()
    )
    wait_for(fresh_heartbeat, timeout=30, what="the worker to be playing the match")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        (cut,) = cursor.fetchone()
    assert cut >= 1
    wait_until_finished(competition, logs=[tmp_path / "w1.log"], timeout=FINISH_TIMEOUT)
    match.refresh_from_db()
    assert (match.status, match.attempts, match.error) == (Match.Status.DONE, 1, "")
    assert_complete(competition, matches=1, games_per_match=CUT_GAMES)
    assert "the database went away mid-match" in (tmp_path / "w1.log").read_text()
