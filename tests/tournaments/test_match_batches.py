"""Matches in batches: how a release cuts them, and a batch claimed, played and recorded as one (issue 25)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.db import connection
from django.test.utils import CaptureQueriesContext

from config import background
from tests.factories import CompetitionFactory, EntrantFactory
from tournaments.models import Competition, Game, Match, Standing
from tournaments.services import play, results, scheduling
from tournaments.services.competitions import competition_start
from tournaments.services.play import match_play, matches_play
from tournaments.services.results import ResultsUnreadable, matches_record_results
from tournaments.services.scheduling import fewest_batches, match_batches

pytestmark = pytest.mark.django_db

Capture = Callable[..., Any]


@pytest.fixture
def batches(monkeypatch: pytest.MonkeyPatch) -> list[list[int]]:
    """Each batch whose task would have gone to the broker, in order."""
    sent: list[list[int]] = []

    def send_now(task_name: str, args: tuple[object, ...], *, queue: str) -> None:
        assert task_name == scheduling.RUN_MATCHES
        sent.append(list(cast(list[int], args[0])))

    monkeypatch.setattr(background, "send_now", send_now)
    return sent


@pytest.fixture
def batch_settings(settings: Any) -> None:
    settings.MATCH_BATCH_GAMES = 200
    settings.MATCH_BATCH_SPREAD = 4


@pytest.mark.usefixtures("batch_settings")
def test_a_release_is_cut_into_even_batches_in_id_order_of_at_most_the_games_a_batch_holds() -> None:
    one_game = [(match_id, 7, 1) for match_id in range(1, 11)]
    # Ten short matches: spread over four batches, the first ones a match larger.
    assert match_batches(one_game) == [[1, 2, 3], [4, 5, 6], [7, 8], [9, 10]]
    # Twenty-five matches of 20 games: ten fit in a batch, and the spread asks for four.
    twenty = [(match_id, 7, 20) for match_id in range(1, 26)]
    assert [len(batch) for batch in match_batches(twenty)] == [7, 6, 6, 6]
    # Sixty of them need six batches of ten at least: eight, two a worker, so no worker plays a last one alone.
    sixty = [(match_id, 7, 20) for match_id in range(1, 61)]
    assert [len(batch) for batch in match_batches(sixty)] == [8, 8, 8, 8, 7, 7, 7, 7]
    # A match longer than a batch holds is a batch of its own, so its task stays its own.
    assert match_batches([(1, 7, 1000), (2, 7, 1000)]) == [[1], [2]]
    # Two competitions never share a batch; the order given does not matter.
    mixed = [(4, 8, 1), (1, 7, 1), (3, 8, 1), (2, 7, 1)]
    assert match_batches(mixed) == [[1], [2], [3], [4]]
    assert match_batches([]) == []


@pytest.mark.usefixtures("batch_settings")
def test_the_fewest_batches_count_what_a_queue_must_hold_at_least() -> None:
    assert fewest_batches([(match_id, 7, 1) for match_id in range(450)]) == 3  # 200 a batch at most
    assert fewest_batches([(1, 7, 500), (2, 7, 500), (3, 8, 1)]) == 3
    assert fewest_batches([]) == 0


def round_robin(entrants: int, *, seed: int = 20261127, games_per_match: int = 1) -> Competition:
    competition = CompetitionFactory(game="war", seed=seed, games_per_match=games_per_match)
    for _ in range(entrants):
        EntrantFactory(competition=competition)
    return competition


@pytest.mark.usefixtures("batch_settings")
def test_a_round_robin_s_start_sends_its_schedule_in_a_few_batches(
    batches: list[list[int]], django_capture_on_commit_callbacks: Capture
) -> None:
    competition = round_robin(8)
    with django_capture_on_commit_callbacks(execute=True):
        competition_start(competition=competition)
    ids = sorted(competition.matches.values_list("id", flat=True))
    assert [len(batch) for batch in batches] == [7, 7, 7, 7]
    assert sorted(match_id for batch in batches for match_id in batch) == ids


def table(competition: Competition) -> list[tuple[Any, ...]]:
    """Standings and ratings by joining order (entrant ids differ between two competitions)."""
    rows = Standing.objects.filter(competition=competition).order_by("entrant_id")
    return [
        (row.played, row.won, row.drawn, row.lost, row.match_units, row.games_played, row.games_won, row.mu, row.sigma)
        for row in rows
    ]


def records(competition: Competition) -> list[Any]:
    return list(
        Game.objects.filter(match__competition=competition)
        .order_by("match__round__number", "match__number", "number")
        .values_list("seed", "result")
    )


@pytest.mark.usefixtures("batch_settings")
def test_batches_record_the_very_games_standings_and_ratings_of_one_match_at_a_time(
    batches: list[list[int]], django_capture_on_commit_callbacks: Capture
) -> None:
    by_batch, one_by_one = round_robin(8, games_per_match=3), round_robin(8, games_per_match=3)
    with django_capture_on_commit_callbacks(execute=True):
        competition_start(competition=by_batch)
    # The later batches first: their matches wait to be rated until the first batch's are recorded.
    for batch in reversed(list(batches)):
        played = matches_play(match_ids=batch)
        assert [match.status for match in played] == [Match.Status.DONE] * len(batch)
    with django_capture_on_commit_callbacks(execute=True):
        competition_start(competition=one_by_one)
    for match_id in one_by_one.matches.order_by("id").values_list("id", flat=True):
        match_play(match_id=match_id)
    for competition in (by_batch, one_by_one):
        competition.refresh_from_db()
        assert competition.status == Competition.Status.FINISHED
        assert not competition.matches.filter(rated=False).exists()
    assert records(by_batch) == records(one_by_one)
    # Ratings are floats compared exactly: the same results in the same order give the same bits.
    assert table(by_batch) == table(one_by_one)


@pytest.mark.usefixtures("batch_settings")
def test_a_batch_costs_the_same_statements_whatever_its_size(
    batches: list[list[int]], django_capture_on_commit_callbacks: Capture
) -> None:
    competition = round_robin(16)  # 120 matches: four batches of 30
    with django_capture_on_commit_callbacks(execute=True):
        competition_start(competition=competition)
    first, second, *_ = batches
    with CaptureQueriesContext(connection) as small:
        matches_play(match_ids=first[:2])
    with CaptureQueriesContext(connection) as large:
        matches_play(match_ids=first[2:] + second)
    assert len(first[2:] + second) == 58
    assert len(large.captured_queries) == len(small.captured_queries)
    assert Match.objects.filter(pk__in=first + second, status=Match.Status.DONE).count() == 60


@pytest.mark.usefixtures("batch_settings")
def test_a_match_recorded_meanwhile_is_left_out_of_a_batch_and_the_rest_recorded(
    batches: list[list[int]], django_capture_on_commit_callbacks: Capture
) -> None:
    competition = round_robin(4)
    with django_capture_on_commit_callbacks(execute=True):
        competition_start(competition=competition)
    first, second, *_ = competition.matches.order_by("id")
    claimed = play.matches_claim(match_ids=[first.pk, second.pk])
    played = [(match, play.match_simulate(match=match)) for match in claimed]
    match_play(match_id=first.pk)  # a no-op: the batch holds it
    matches_record_results(played[:1])  # another recording of the first match wins the race
    games = Game.objects.filter(match=first).count()
    standing = list(Standing.objects.filter(competition=competition).values_list("played", flat=True))
    recorded = matches_record_results(played)
    assert [match.status for match in recorded] == [Match.Status.DONE, Match.Status.DONE]
    assert Game.objects.filter(match=first).count() == games == 1
    assert sum(Standing.objects.filter(competition=competition).values_list("played", flat=True)) == sum(standing) + 2


@pytest.mark.usefixtures("batch_settings")
def test_a_match_whose_results_cannot_be_read_goes_in_error_and_the_rest_of_its_batch_is_recorded(
    batches: list[list[int]], django_capture_on_commit_callbacks: Capture, monkeypatch: pytest.MonkeyPatch
) -> None:
    competition = round_robin(4)
    with django_capture_on_commit_callbacks(execute=True):
        competition_start(competition=competition)
    first, second, *_ = competition.matches.order_by("id")
    read = results._read_with_profile
    calls = []

    def second_unreadable(*args: Any) -> Any:
        calls.append(args)
        if len(calls) == 2:
            raise ResultsUnreadable("the profile broke on purpose")
        return read(*args)

    monkeypatch.setattr(results, "_read_with_profile", second_unreadable)
    played = matches_play(match_ids=[first.pk, second.pk])
    assert [(match.pk, match.status) for match in played] == [
        (first.pk, Match.Status.DONE),
        (second.pk, Match.Status.ERROR),
    ]
    assert played[1].error == "the profile broke on purpose"
    assert not Game.objects.filter(match=second).exists()
    assert Game.objects.filter(match=first).count() == 1


@pytest.mark.usefixtures("batch_settings")
def test_a_batch_out_of_time_records_what_it_played_and_gives_back_what_it_did_not(
    batches: list[list[int]], django_capture_on_commit_callbacks: Capture, monkeypatch: pytest.MonkeyPatch
) -> None:
    competition = round_robin(4)
    with django_capture_on_commit_callbacks(execute=True):
        competition_start(competition=competition)
    first, second, third, *_ = competition.matches.order_by("id")
    simulate = play.match_simulate

    def out_of_time_at_the_second(*, match: Match, **kwargs: Any) -> Any:
        if match.pk == second.pk:
            raise SoftTimeLimitExceeded()
        return simulate(match=match, **kwargs)

    monkeypatch.setattr(play, "match_simulate", out_of_time_at_the_second)
    sent_before = len(batches)
    with django_capture_on_commit_callbacks(execute=True):
        played = matches_play(match_ids=[first.pk, second.pk, third.pk])
    assert [(match.pk, match.status) for match in played] == [
        (first.pk, Match.Status.DONE),
        (second.pk, Match.Status.ERROR),
    ]
    third.refresh_from_db()
    assert (third.status, third.attempts, third.started_at) == (Match.Status.PENDING, 0, None)
    assert batches[sent_before:] == [[third.pk]]  # queued again, for another task
