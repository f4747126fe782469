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
from datetime import datetime
from typing import Any, Protocol, TypeVar

from django.conf import settings
from django.db import connection, models
from django.utils import timezone

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
    makes rather than one per statement. Read on a cursor that sent nothing else in the block: one
    that did may already hold an earlier statement's answer, which its fetch returns without waiting.
    No COPY inside: PostgreSQL refuses it in a pipeline.
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


def transaction_time() -> datetime:
    """When the open transaction began, as the database keeps it (``now()``) on PostgreSQL; now elsewhere.

    A value written at this time can be told, later in the same transaction, from one written before it.
    """
    if connection.vendor != "postgresql":
        return timezone.now()
    with connection.cursor() as cursor:
        cursor.execute("SELECT now()")
        began: datetime = cursor.fetchone()[0]
        return began


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


def one_of(column: str, values: Sequence[Any], *, hashed: bool = False) -> tuple[str, list[Any]]:
    """``column`` is one of ``values``: a condition and its parameters.

    One array parameter on PostgreSQL, so a batch of any size is the same prepared statement;
    a list of placeholders elsewhere.

    ``hashed``: the values (ids) as a subquery, which PostgreSQL hashes once. For a statement that also filters
    on another indexed column (a match's status): the planner may walk that index instead and test each
    of its rows against the array an element at a time, which grows with the batch times the rows
    (docs/performance.md, "28 November").
    """
    if connection.vendor == "postgresql":
        return (f"{column} IN (SELECT unnest(%s::bigint[]))" if hashed else f"{column} = ANY(%s)"), [list(values)]
    return f"{column} IN ({', '.join(['%s'] * len(values))})", list(values)


#: Fields whose values the driver takes as they are.
_PLAIN_FIELDS = frozenset(
    {
        "BigAutoField",
        "BigIntegerField",
        "BooleanField",
        "CharField",
        "FloatField",
        "ForeignKey",
        "IntegerField",
        "PositiveIntegerField",
        "PositiveSmallIntegerField",
        "TextField",
    }
)


def insert_rows(
    model: type[models.Model],
    values: dict[str, Sequence[Any]],
    *,
    fixed: dict[str, Any] | None = None,
    return_ids: bool = False,
) -> list[int]:
    """Insert rows of ``model`` in one statement: ``values`` holds a list per field (by attname, e.g.
    ``round_id``), one item per row; ``fixed`` a value per field for every row; every other field takes
    its default, and a creation time now.

    The new ids in row order if asked for. On PostgreSQL, one prepared INSERT from UNNEST of an array
    per column: the ORM's bulk_create prepares every value of every row through its field, which cost
    more than the database's work for a round robin's schedule. Elsewhere, bulk_create.
    """
    columns = list(values.values())
    count = len(columns[0]) if columns else 0
    if count == 0:
        return []
    if any(len(column) != count for column in columns):
        raise ValueError("insert_rows needs as many values in every column")
    fixed = fixed or {}
    if connection.vendor != "postgresql":
        rows = [model(**{name: column[index] for name, column in values.items()}, **fixed) for index in range(count)]
        created = model._default_manager.bulk_create(rows)
        return [row.pk for row in created] if return_ids else []
    now = timezone.now()
    targets: list[str] = []
    selected: list[str] = []
    constants: list[Any] = []
    arrays: list[tuple[str, list[Any]]] = []
    for field in model._meta.concrete_fields:
        if field.primary_key:
            continue
        cast = str(field.cast_db_type(connection))
        targets.append(str(field.column))
        if field.attname in values:
            selected.append(f"u.c{len(arrays)}")
            column = values[field.attname]
            # Numbers and text of plain fields go to the driver as they are: the field's preparation of each
            # was most of the time a round's rows took to write.
            if field.get_internal_type() not in _PLAIN_FIELDS:
                column = [field.get_db_prep_save(value, connection) for value in column]
            arrays.append((cast, list(column)))
        else:
            made_now = getattr(field, "auto_now_add", False) or getattr(field, "auto_now", False)
            value = fixed[field.attname] if field.attname in fixed else now if made_now else field.get_default()
            selected.append(f"%s::{cast}")
            constants.append(field.get_db_prep_save(value, connection))
    unnest = ", ".join(f"%s::{cast}[]" for cast, _ in arrays)
    names = ", ".join(f"c{index}" for index in range(len(arrays)))
    with sql_cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {model._meta.db_table} ({', '.join(targets)}) SELECT {', '.join(selected)} "
            f"FROM UNNEST({unnest}) AS u({names}){' RETURNING id' if return_ids else ''}",
            [*constants, *[column for _, column in arrays]],
        )
        # PostgreSQL returns an INSERT ... SELECT's rows in the order it inserted them, the order of the arrays.
        return [row[0] for row in cursor.fetchall()] if return_ids else []


def update_rows(
    cursor: SqlCursor,
    model: type[models.Model],
    *,
    key: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    added: Sequence[str] = (),
    fixed: dict[str, Any] | None = None,
) -> None:
    """Update many rows of ``model`` in one statement: each row of ``rows`` is the new values of ``columns``
    and then its ``key`` (field attnames). A column in ``added`` is increased by the value instead of set to
    it; ``fixed`` columns take one value for every row.

    On PostgreSQL, one UPDATE ... FROM UNNEST of an array per column: a statement per row cost the
    database an executor start each, which a batch of hundreds of rows felt. Elsewhere, one prepared
    statement per row.
    """
    if not rows:
        return
    table = model._meta.db_table
    fields = {field.attname: field for field in model._meta.concrete_fields}
    fixed = fixed or {}

    def assigned(column: str, value: str, qualified: str) -> str:
        return f"{column} = {qualified}{column} + {value}" if column in added else f"{column} = {value}"

    if connection.vendor != "postgresql":
        assignments = [*(assigned(column, "%s", "") for column in columns), *(f"{column} = %s" for column in fixed)]
        cursor.executemany(
            f"UPDATE {table} SET {', '.join(assignments)} WHERE {key} = %s",
            [[*row[:-1], *fixed.values(), row[-1]] for row in rows],
        )
        return
    names = [*columns, key]
    arrays = ", ".join(f"%s::{fields[name].cast_db_type(connection)}[]" for name in names)
    assignments = [
        *(assigned(column, f"u.{column}", f"{table}.") for column in columns),
        *(f"{column} = %s" for column in fixed),
    ]
    cursor.execute(
        f"UPDATE {table} SET {', '.join(assignments)} FROM UNNEST({arrays}) AS u({', '.join(names)}) "
        f"WHERE {table}.{key} = u.{key}",
        [*fixed.values(), *([row[index] for row in rows] for index in range(len(names)))],
    )
