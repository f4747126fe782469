"""Plain SQL on the worker's path, prepared once per database connection on PostgreSQL.

A match is claimed, loaded and recorded in about a dozen statements, the same
ones every time. Through Django's cursor each is sent with its values spelled
into the text, and PostgreSQL parses and plans it again for every match.
Here, on PostgreSQL, each statement is prepared on the connection the first
time it runs and executed with bound values after that (workers keep their
connection across tasks, CELERY_DB_REUSE_MAX): PostgreSQL's CPU per 500-game
War match fell from about 5.8 to 4.2 ms (docs/performance.md). Elsewhere, and
with DB_PREPARED_STATEMENTS off (a pooler that cannot keep prepared
statements), Django's cursor runs them as they are.

Statements run through :func:`sql_cursor` inside the caller's transaction,
raise Django's database errors, and are counted by Django's query log (tests
pin their number). Inside :func:`pipelined` they are sent without waiting for
each answer.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Protocol, TypeVar

from django.conf import settings
from django.db import connection, models

M = TypeVar("M", bound=models.Model)


class SqlCursor(Protocol):
    def execute(self, sql: str, params: Sequence[Any] = ...) -> Any: ...

    def executemany(self, sql: str, param_list: Sequence[Sequence[Any]]) -> Any: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    @property
    def rowcount(self) -> int: ...


class _PreparedCursor:
    """psycopg's server-side binding cursor on Django's connection, with Django's error types and query log."""

    def __init__(self, raw: Any) -> None:
        self._raw = raw

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        with connection.wrap_database_errors, _logged(sql, 1):
            self._raw.execute(sql, params, prepare=True)

    def executemany(self, sql: str, param_list: Iterable[Sequence[Any]]) -> None:
        rows = list(param_list)
        with connection.wrap_database_errors, _logged(sql, len(rows)):
            # psycopg sends the rows in one pipeline and prepares a statement it runs this often.
            self._raw.executemany(sql, rows)

    def fetchone(self) -> Any:
        return self._raw.fetchone()

    def fetchall(self) -> list[Any]:
        return list(self._raw.fetchall())

    @property
    def rowcount(self) -> int:
        return int(self._raw.rowcount)


@contextmanager
def _logged(sql: str, times: int) -> Iterator[None]:
    """Keep Django's query log (DEBUG, or a test's query count) as its own cursor would."""
    if not connection.queries_logged:
        yield
        return
    start = time.monotonic()
    try:
        yield
    finally:
        connection.queries_log.append(
            {"sql": f"{times} times: {sql}" if times != 1 else sql, "time": f"{time.monotonic() - start:.3f}"}
        )


def _prepares() -> bool:
    return connection.vendor == "postgresql" and bool(settings.DB_PREPARED_STATEMENTS)


@contextmanager
def pipelined() -> Iterator[None]:
    """Statements sent inside this block go out without waiting for each answer (PostgreSQL's pipeline mode).

    A fetch waits for everything sent before it, so a block costs one round trip per read it
    makes rather than one per statement. No COPY inside: PostgreSQL refuses it in a pipeline.
    """
    if not _prepares():
        yield
        return
    connection.ensure_connection()
    with connection.wrap_database_errors, connection.connection.pipeline():
        yield


@contextmanager
def sql_cursor() -> Iterator[SqlCursor]:
    """A cursor for plain SQL with ``%s`` placeholders, on the connection and transaction Django has open."""
    with connection.cursor() as django_cursor:
        if not _prepares():
            yield django_cursor
            return
        import psycopg  # only here: SQLite installs need not have it imported

        raw = psycopg.Cursor(connection.connection)
        try:
            yield _PreparedCursor(raw)
        finally:
            raw.close()


def instance_from_row(model: type[M], values: Sequence[Any]) -> M:
    """A model instance from a row of all its concrete columns in order, converted as the ORM would.

    Only fields that convert on the way out of the database (JSON documents) need it; PostgreSQL's
    driver gives the rest as Python values already.
    """
    fields = model._meta.concrete_fields
    converted = [
        value if value is None or not hasattr(field, "from_db_value") else field.from_db_value(value, None, connection)
        for field, value in zip(fields, values, strict=True)
    ]
    return model.from_db(connection.alias, [field.attname for field in fields], converted)


def select_columns(alias: str, model: type[models.Model]) -> str:
    """Every concrete column of ``model`` under ``alias``, in the order instance_from_row expects."""
    return ", ".join(f"{alias}.{field.column}" for field in model._meta.concrete_fields)
