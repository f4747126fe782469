"""Workers wait out a database outage (config/database_outages.py): the work runs again once the database answers."""

from __future__ import annotations

import logging

import pytest
from django.db import DatabaseError, IntegrityError, OperationalError, transaction

from config import database_outages
from config.database_outages import sweep, when_database_answers
from tests.factories import CompetitionFactory, EntrantFactory
from tournaments.services import play
from tournaments.services.competitions import competition_start


def operational(sqlstate: str, message: str) -> OperationalError:
    """Django's OperationalError over a psycopg error with this SQLSTATE, as the backend raises it."""
    cause = type("PgError", (Exception,), {"sqlstate": sqlstate})(message)
    error = OperationalError(message)
    error.__cause__ = cause
    return error


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The waits for the database, counted rather than slept through."""
    waited: list[int] = []
    monkeypatch.setattr(database_outages, "wait_for_database", lambda: waited.append(1) or 0.0)
    return waited


def test_work_cut_short_by_an_outage_runs_again_once_the_database_answers(waits: list[int]) -> None:
    tries: list[int] = []

    def work() -> str:
        tries.append(1)
        if len(tries) < 3:
            raise OperationalError("terminating connection due to administrator command")
        return "done"

    assert when_database_answers(work, what="a test") == "done"
    assert (len(tries), len(waits)) == (3, 2)


def test_an_outage_that_never_ends_is_raised_after_the_last_try(waits: list[int]) -> None:
    def work() -> None:
        raise OperationalError("the connection is closed")

    with pytest.raises(OperationalError):
        when_database_answers(work, what="a test", tries=3)
    assert len(waits) == 2


@pytest.mark.parametrize(
    "error",
    [
        IntegrityError("duplicate key value violates unique constraint"),
        # An OperationalError that a try after the database is back would meet again: a program limit (54000).
        operational("54000", "row is too big"),
    ],
)
def test_an_error_that_is_no_outage_is_raised_at_once(waits: list[int], error: DatabaseError) -> None:
    def work() -> None:
        raise error

    with pytest.raises(DatabaseError):
        when_database_answers(work, what="a test")
    assert waits == []


def test_inside_a_transaction_an_outage_is_raised_at_once_for_its_owner_to_start_again(
    waits: list[int], db: None
) -> None:
    def work() -> None:
        raise OperationalError("terminating connection due to administrator command")

    with pytest.raises(OperationalError), transaction.atomic():
        when_database_answers(work, what="a test")
    assert waits == []


@pytest.mark.django_db(transaction=True)
def test_waiting_for_a_database_that_answers_returns_at_once() -> None:
    assert database_outages.wait_for_database() < 1.0


def test_a_sweep_that_meets_an_outage_skips_its_turn_with_one_warning_per_outage(
    caplog: pytest.LogCaptureFixture,
) -> None:
    database_outages.SWEEPS.reset()
    ran: list[int] = []

    def down() -> None:
        raise OperationalError("connection failed: the database system is shutting down")

    with caplog.at_level(logging.WARNING, logger="config.outages"):
        for _ in range(3):
            sweep(down)  # beat's next sweep comes anyway: nothing is raised
        sweep(lambda: ran.append(1))
    assert ran == [1]
    messages = [record.getMessage() for record in caplog.records]
    assert len(messages) == 2
    assert messages[0].startswith("the database unreachable (connection failed")
    assert messages[1].startswith("the database reachable again after")


@pytest.mark.django_db(transaction=True)  # a sweep inside a transaction leaves the outage to its owner
@pytest.mark.parametrize(
    ("task", "work"),
    [
        ("tournaments.tasks.reap_matches", "matches_reap"),
        ("league.tasks.reap_validations", "validations_reap"),
    ],
)
def test_beat_s_sweeps_skip_their_turn_while_the_database_is_away(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, task: str, work: str
) -> None:
    import importlib

    module_name, name = task.rsplit(".", 1)
    module = importlib.import_module(module_name)
    database_outages.SWEEPS.reset()

    def down() -> int:
        raise OperationalError("connection failed: the database system is shutting down")

    monkeypatch.setattr(module, work, down)
    with caplog.at_level(logging.WARNING, logger="config.outages"):
        getattr(module, name)()  # nothing raised: beat sends the next sweep a few seconds later
    assert caplog.records[0].getMessage().startswith("the database unreachable")
    database_outages.SWEEPS.reset()


@pytest.mark.django_db
def test_a_match_played_inside_a_caller_s_transaction_leaves_an_outage_to_its_owner(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Review 1.7: match_play waited for the database even inside a caller's transaction (a task run
    eagerly), which the lost connection took with it. The outage is the caller's, raised as it came."""
    competition = CompetitionFactory()
    for _ in range(2):
        EntrantFactory(competition=competition)
    competition_start(competition=competition)
    match = competition.matches.first()
    assert match is not None
    cut = OperationalError("server closed the connection unexpectedly")

    def cut_short(claimed: object) -> None:
        raise cut

    monkeypatch.setattr(play, "_matches_play_claimed", cut_short)
    monkeypatch.setattr(play, "wait_for_database", lambda: pytest.fail("waited inside a transaction"))
    with transaction.atomic(), pytest.raises(OperationalError) as raised:
        play.match_play(match_id=match.pk)
    assert raised.value is cut
