"""Django's PostgreSQL backend, whose pool checks a connection only after it sat idle a while.

Django's pool (psycopg_pool) with health checks on sends an empty query on every checkout:
a round trip, and a transaction PostgreSQL counts, for each request, task and stream read,
about a third of all the service's transactions. A connection that was in use a moment ago is
alive; one idle longer than DATABASE_POOL_CHECK_AFTER_IDLE seconds (a restart of PostgreSQL,
a connection cut by the network meanwhile) is checked, as PgBouncer checks its server
connections (`server_check_delay`), and a dead one is discarded for a fresh one, so that no
request fails on it.
"""

from __future__ import annotations

import time
from typing import Any

import psycopg
from django.conf import settings
from django.db.backends.postgresql import base
from psycopg_pool import ConnectionPool


class DatabaseWrapper(base.DatabaseWrapper):
    def _lender(self) -> ConnectionPool | None:
        # Django 5.1's pool, which django-stubs does not describe yet.
        pool: ConnectionPool | None = self.pool  # type: ignore[attr-defined]
        return pool

    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        connection = super().get_new_connection(conn_params)
        pool = self._lender()
        if pool is None:
            return connection
        # After a restart every idle connection is dead: at most the pool's size of them.
        for _ in range(pool.max_size):
            idle = time.monotonic() - getattr(connection, "returned_at", float("-inf"))
            if idle <= settings.DATABASE_POOL_CHECK_AFTER_IDLE:
                return connection
            try:
                pool.check_connection(connection)
            except psycopg.Error:
                pool.putconn(connection)  # broken: the pool discards it
                connection = super().get_new_connection(conn_params)
            else:
                return connection
        return connection

    def _close(self) -> None:  # Django's, undescribed by its stubs
        if self._lender() is not None and self.connection is not None:
            self.connection.returned_at = time.monotonic()
        super()._close()  # type: ignore[misc]
