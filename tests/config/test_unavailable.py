"""While the database (or Redis, where a request needs it) is away, the API answers JSON 503 with
Retry-After and pages answer the site's own 503 page; a bug stays a 500, in JSON on the API (issue 21,
finding 7: both were Django's HTML "Server Error (500)").

The outage is raised where the view reads the database; tests/config/test_database_pool.py takes a
real one away from a running server.
"""

from __future__ import annotations

import logging
from typing import Any

import psycopg
import psycopg.errors
import psycopg_pool
import pytest
import redis.exceptions
from django.db import IntegrityError, InterfaceError, OperationalError, ProgrammingError
from django.test import Client, RequestFactory
from rest_framework.test import APIClient

from config.unavailable import AWAY, RETRY_AFTER, server_error
from tests.factories import CompetitionFactory
from tests.tournaments.live_support import live_match

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_outage_yet() -> None:
    AWAY.reset()


def failing(exc: BaseException) -> Any:
    def fail(*args: object, **kwargs: object) -> None:
        raise exc

    return fail


@pytest.mark.parametrize(
    "exc",
    [
        OperationalError("connection to server at 127.0.0.1 failed: Connection refused"),
        InterfaceError("connection already closed"),
        redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused."),
    ],
)
def test_an_outage_on_the_api_is_a_json_503_with_retry_after(monkeypatch: pytest.MonkeyPatch, exc: Exception) -> None:
    match, (alice, _) = live_match("1923", options={"mode": "set"})
    monkeypatch.setattr("tournaments.api.live.table_snapshot", failing(exc))
    client = APIClient()
    client.force_authenticate(alice.user)
    for response in (
        client.get(f"/api/matches/{match.pk}/table/"),
        client.post(f"/api/matches/{match.pk}/moves/", {"action": "LOCK", "version": 1, "client_move_id": "a"}),
    ):
        assert response.status_code == 503
        assert response["Content-Type"] == "application/json"
        assert response["Retry-After"] == str(RETRY_AFTER)
        assert set(response.json()) == {"detail"} and "Try again in" in response.json()["detail"]


def test_an_outage_on_a_page_is_the_sites_own_503_page(monkeypatch: pytest.MonkeyPatch) -> None:
    competition = CompetitionFactory()
    monkeypatch.setattr("tournaments.web.views.get_object_or_404", failing(OperationalError("the database is away")))
    response = Client().get(f"/competitions/{competition.pk}/")
    assert response.status_code == 503
    assert response["Retry-After"] == str(RETRY_AFTER)
    page = response.content.decode()
    assert "Back in a moment" in page and "tries again by itself" in page
    assert 'href="/static/site/site.css"' in page  # the site's own look
    assert "the database is away" not in page  # nothing of the error itself


def test_a_bug_on_the_api_is_a_json_500_and_is_logged(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    match, _ = live_match("1923", options={"mode": "set"})
    monkeypatch.setattr("tournaments.api.live.table_snapshot", failing(ZeroDivisionError("a bug")))
    response = APIClient(raise_request_exception=False).get(f"/api/matches/{match.pk}/table/")
    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"
    assert set(response.json()) == {"detail"} and "Server error" in response.json()["detail"]
    assert "Retry-After" not in response
    # Django still logs the error with its traceback (and signals it to whatever reports errors).
    logged = [r for r in caplog.records if r.name == "django.request" and r.levelno == logging.ERROR]
    assert logged and logged[0].exc_info is not None and logged[0].exc_info[0] is ZeroDivisionError


def test_a_bug_on_a_page_is_the_sites_own_500_page(monkeypatch: pytest.MonkeyPatch) -> None:
    competition = CompetitionFactory()
    monkeypatch.setattr("tournaments.web.views.get_object_or_404", failing(KeyError("a bug")))
    response = Client(raise_request_exception=False).get(f"/competitions/{competition.pk}/")
    assert response.status_code == 500
    assert "Something went wrong" in response.content.decode()


def from_postgresql(error: Exception) -> OperationalError:
    """Django's OperationalError as it wraps psycopg's (the server's SQLSTATE on its cause)."""
    wrapped = OperationalError(str(error))
    wrapped.__cause__ = error
    return wrapped


def test_only_outages_are_503s(monkeypatch: pytest.MonkeyPatch) -> None:
    """A database error that is a bug (an IntegrityError left unhandled, a row too large) is a 500."""
    match, _ = live_match("1923", options={"mode": "set"})
    bugs = (
        IntegrityError("duplicate key"),
        ProgrammingError("column does not exist"),
        from_postgresql(psycopg.errors.ProgramLimitExceeded("index row size exceeds maximum")),
        from_postgresql(psycopg.errors.ObjectNotInPrerequisiteState("not in prerequisite state")),
        ValueError("x"),
    )
    for exc in bugs:
        monkeypatch.setattr("tournaments.api.live.table_snapshot", failing(exc))
        response = APIClient(raise_request_exception=False).get(f"/api/matches/{match.pk}/table/")
        assert response.status_code == 500, exc
    outages = (
        from_postgresql(psycopg.errors.AdminShutdown("terminating connection due to administrator command")),
        from_postgresql(psycopg.errors.CannotConnectNow("the database system is starting up")),
        from_postgresql(psycopg.errors.TooManyConnections("too many clients already")),
        from_postgresql(psycopg.errors.DeadlockDetected("deadlock detected")),
        from_postgresql(psycopg.OperationalError("connection refused")),  # no SQLSTATE: no server answered
        from_postgresql(psycopg_pool.PoolTimeout("couldn't get a connection after 2.00 sec")),
    )
    for exc in outages:
        monkeypatch.setattr("tournaments.api.live.table_snapshot", failing(exc))
        assert APIClient().get(f"/api/matches/{match.pk}/table/").status_code == 503, exc


def test_an_outage_is_logged_once_not_per_request(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    match, _ = live_match("1923", options={"mode": "set"})
    closed = OperationalError("server closed the connection unexpectedly")
    monkeypatch.setattr("tournaments.api.live.table_snapshot", failing(closed))
    caplog.set_level(logging.WARNING)
    client = APIClient()
    assert {client.get(f"/api/matches/{match.pk}/table/").status_code for _ in range(20)} == {503}
    lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) == 1 and "unreachable" in lines[0], lines
    # It is back: one line says so.
    monkeypatch.undo()
    assert client.get(f"/api/matches/{match.pk}/table/").status_code == 200
    lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) == 2 and "reachable again" in lines[1], lines


def test_an_outage_outside_a_view_is_a_503_too() -> None:
    """Django's handler500 catches what a middleware raised (the session saved after the view)."""
    request = RequestFactory().post("/api/tournaments/")
    try:
        raise OperationalError("terminating connection due to administrator command")
    except OperationalError:
        response = server_error(request)
    assert response.status_code == 503 and response["Retry-After"] == str(RETRY_AFTER)
    page_request = RequestFactory().get("/play/")
    try:
        raise InterfaceError("connection already closed")
    except InterfaceError:
        page = server_error(page_request)
    assert page.status_code == 503 and b"Back in a moment" in page.content
