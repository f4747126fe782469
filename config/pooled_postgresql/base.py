"""Django's PostgreSQL backend, whose connection pool gets over a PostgreSQL restart at once.

The settings use it with DATABASE_POOL=true (the ASGI live-table nodes, docs/deploy.md). Django gives
psycopg_pool a check of each connection before it is lent (CONN_HEALTH_CHECKS), and psycopg_pool
replaces a connection that fails it; but it then tries the next idle one at once the first time, then
after back-offs of 1 s, 2 s, 4 s... After a restart every idle connection is dead, so a request that met
three of them waited past the pool's timeout and answered 503 (issue 21, finding 6). Here the first
failed check checks every idle connection at once (psycopg_pool's ConnectionPool.check), so the
request's next try, straight after, gets a live one.

Everything else, and the pool's own options (min_size, max_size, timeout), is Django's.
"""

from __future__ import annotations

from typing import Any

from django.db.backends.base.base import NO_DB_ALIAS
from django.db.backends.postgresql import base as postgresql
from psycopg import Connection
from psycopg_pool import ConnectionPool


class _CheckAllOnFailure:
    """A pool's check of one connection; when it fails, every idle connection of the pool is checked too."""

    def __init__(self) -> None:
        self.pool: ConnectionPool[Any] | None = None

    def __call__(self, conn: Connection[Any]) -> None:
        try:
            ConnectionPool.check_connection(conn)
        except Exception:
            if self.pool is not None:
                self.pool.check()  # uses the plain check, not this one: it never recurses
            raise


class DatabaseWrapper(postgresql.DatabaseWrapper):
    @property
    def pool(self) -> ConnectionPool[Any] | None:
        pool_options = self.settings_dict["OPTIONS"].get("pool")
        if self.alias == NO_DB_ALIAS or not pool_options:
            return None
        # Django's own, which django-stubs does not declare.
        django: Any = self
        pools: dict[str, ConnectionPool[Any]] = django._connection_pools
        if self.alias not in pools:
            # As Django's own property makes it (django/db/backends/postgresql/base.py), with this check.
            connect_kwargs = self.get_connection_params()
            connect_kwargs["autocommit"] = True
            check = _CheckAllOnFailure()
            pool: ConnectionPool[Any] = ConnectionPool(
                kwargs=connect_kwargs,
                open=False,
                configure=django._configure_connection,
                check=check,
                **({} if pool_options is True else pool_options),
            )
            check.pool = pool
            # Several threads may get here at once: the first pool stored is everyone's.
            pools.setdefault(self.alias, pool)
        return pools[self.alias]
