"""The PostgreSQL pool's liveness checks (batak_api/postgresql): a connection lent again at once
is not checked (no round trip), and one that died while idle is replaced before it is lent, so
that no request fails on it."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from django.conf import settings as django_settings
from django.db import connection

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _backend() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


def _checks(monkeypatch: Any) -> list[int]:
    checked: list[int] = []
    check = connection.pool.check_connection

    def counted(conn: Any) -> None:
        checked.append(1)
        check(conn)

    monkeypatch.setattr(connection.pool, "check_connection", counted)
    return checked


def test_a_connection_lent_again_at_once_is_not_checked(settings, monkeypatch) -> None:
    settings.DATABASE_POOL_CHECK_AFTER_IDLE = 60
    # The pool lends its idle connections in turn: each is lent and given back once first.
    for _ in range(connection.pool.get_stats()["pool_size"] + 1):
        _backend()
        connection.close()
    checked = _checks(monkeypatch)
    _backend()
    connection.close()
    assert checked == []


def test_a_connection_that_died_idle_is_replaced_before_it_is_lent(settings, monkeypatch) -> None:
    settings.DATABASE_POOL_CHECK_AFTER_IDLE = 0
    victim = _backend()
    connection.close()
    database = django_settings.DATABASES["default"]
    with psycopg.connect(host=database["HOST"], port=database["PORT"] or 5432,
                         user=database["USER"], dbname=database["NAME"],
                         autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [victim])
    checked = _checks(monkeypatch)
    assert _backend() != victim  # no error: the dead connection was discarded
    assert checked
