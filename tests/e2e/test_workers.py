"""Matches played by real `celery worker` processes over Redis, recorded in PostgreSQL exactly once."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from engine.record import Record
from engine.verify import verify
from tests.e2e.conftest import wait_for
from tests.factories import CompetitionFactory, EntrantFactory
from tournaments.models import Competition, Game, Match, Standing
from tournaments.services.competitions import competition_start
from tournaments.services.play import match_simulate
from tournaments.services.results import match_record_result
from tournaments.tasks import run_match
from tournaments.worker_processes import WorkerProcess

Start = Callable[..., WorkerProcess]


def finished(competition: Competition) -> Callable[[], bool]:
    def check() -> bool:
        competition.refresh_from_db()
        return competition.status == Competition.Status.FINISHED

    return check


def started_competition(entrants: int = 4, games: int = 3, game: str = "war") -> Competition:
    from tests.factories import full_options

    competition = CompetitionFactory(game=game, games_per_match=games, options=full_options(game, 2))
    for _ in range(entrants):
        EntrantFactory(competition=competition)
    # Committed at once (transactional_db): its on_commit sends round 1 to the broker.
    return competition_start(competition=competition)


def test_two_workers_play_a_round_robin_round_by_round_and_record_every_game_once(workers: Start) -> None:
    workers("w1")
    workers("w2")
    competition = started_competition(entrants=5, games=4)
    wait_for(finished(competition), what="the competition to finish")
    games = Game.objects.filter(match__competition=competition)
    assert games.count() == 10 * 4
    assert not Match.objects.filter(competition=competition).exclude(status=Match.Status.DONE).exists()
    assert all(verify(Record.from_dict(g.record)).ok for g in games)
    assert sum(s.played for s in Standing.objects.filter(competition=competition)) == 20
    assert Match.objects.filter(competition=competition, rated=True).count() == 10


def test_duplicate_tasks_for_one_match_on_two_workers_record_it_once(workers: Start) -> None:
    competition = CompetitionFactory(games_per_match=200)
    for _ in range(2):
        EntrantFactory(competition=competition)
    competition_start(competition=competition)
    match = competition.matches.get()
    for _ in range(6):
        run_match.apply_async((match.pk,), queue=f"{_games_queue()}")
    workers("w1")
    workers("w2")
    wait_for(finished(competition), what="the match")
    assert Game.objects.filter(match=match).count() == 200
    assert [s.played for s in Standing.objects.filter(competition=competition)] == [1, 1]


def _games_queue() -> str:
    from django.conf import settings

    return str(settings.CELERY_GAMES_QUEUE)


@pytest.mark.django_db(transaction=True)
def test_two_recorders_racing_with_the_same_result_record_it_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # No worker here, and the start must not play the match inline (eager mode): nobody is sent anything.
    monkeypatch.setattr("config.background.send_now", lambda *_, **__: None)
    competition = CompetitionFactory(games_per_match=50)
    for _ in range(2):
        EntrantFactory(competition=competition)
    competition_start(competition=competition)
    match = competition.matches.get()
    Match.objects.filter(pk=match.pk).update(status=Match.Status.RUNNING)
    result = match_simulate(match=match)
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def record() -> None:
        try:
            barrier.wait()
            match_record_result(match=Match.objects.get(pk=match.pk), result=result)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=record) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert Game.objects.filter(match=match).count() == 50
    assert [s.played for s in Standing.objects.filter(competition=competition)] == [1, 1]


def test_the_reaper_requeues_a_dead_workers_match_and_resends_lost_tasks(workers: Start) -> None:
    competition = CompetitionFactory(games_per_match=5)
    for _ in range(4):
        EntrantFactory(competition=competition)
    competition_start(competition=competition)
    round_one = list(competition.matches.filter(round__number=1).order_by("id"))
    long_ago = timezone.now() - timedelta(minutes=10)
    # One match "claimed by a worker that died", one whose task the broker lost.
    Match.objects.filter(pk=round_one[0].pk).update(
        status=Match.Status.RUNNING, started_at=long_ago, heartbeat_at=long_ago, attempts=1
    )
    Match.objects.filter(pk=round_one[1].pk).update(queued_at=long_ago)
    purge_games_queue()
    workers("w1", beat=True)
    wait_for(finished(competition), what="the reaper to recover both matches")
    assert Game.objects.filter(match__competition=competition).count() == 6 * 5
    assert Match.objects.get(pk=round_one[0].pk).attempts == 2


def purge_games_queue() -> None:
    """Drop every task queued so far, as a restarted Redis that keeps nothing would."""
    from config.celery import app

    with app.connection_for_write() as conn:
        conn.default_channel.queue_purge(_games_queue())


def test_a_killed_worker_s_match_is_finished_by_another_exactly_once(workers: Start) -> None:
    competition = started_competition(entrants=2, games=1, game="banter")
    Match.objects.filter(competition=competition).update(status=Match.Status.PENDING)
    competition.games_per_match = 400
    competition.save(update_fields=["games_per_match"])
    victim = workers("victim")
    match = competition.matches.get()
    wait_for(lambda: Match.objects.get(pk=match.pk).status == Match.Status.RUNNING, what="the claim")
    victim.kill()
    workers("rescuer", beat=True)
    wait_for(finished(competition), timeout=180, what="the rescue")
    match.refresh_from_db()
    assert match.attempts == 2
    assert Game.objects.filter(match=match).count() == 400
