"""A change's rows written in one statement.

A move inserts its action and, when a person is to act next, an event in that person's own
stream; it updates its match row and, every few cards, its deal's progress. On PostgreSQL
these go as one statement (each part but the last a data-modifying `WITH` part, which
PostgreSQL runs whether or not it is referenced): one round trip where there were up to three.
Each round trip costs a request the wait and, under a threaded server, the GIL handed over and
taken back.

The statements are written here rather than by the ORM's compiler: compiling an INSERT and an
UPDATE cost a move about 0.7 ms, more than the round trip saved. Their text depends only on
the shape of the write (which model, how many rows, which columns), so it is made once per
shape and kept; each row's values are prepared when it is added, as `Model.save` prepares
them (`pre_save`, so an `auto_now` field is stamped then, then `get_db_prep_save`).

Only what the unit of work writes goes this way: plain values, and expressions that need no
compiler (`event_log.CurrentTransaction`); anything else is refused with a TypeError.
Writers within a change (`Write.gathering`) hand it their inserts (`insert`) instead of
writing them at once; elsewhere each insert is the ORM's own.

An update may be guarded (`update(..., where=...)`): it changes its row only if the row still
holds the values the writer saw, and `execute` raises `Stale` when it did not (the caller's
transaction is then to be rolled back: the write's other parts ran). A write may end with a
read of other rows (`execute(read=...)`), in the same statement on PostgreSQL.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import Iterator, Sequence
from typing import Any

from django.db import connection, models
from django.db.models.expressions import Expression

_gathering: contextvars.ContextVar[Write | None] = contextvars.ContextVar(
    "gathering", default=None)


class Stale(Exception):
    """A guarded update found its row changed since the writer saw it."""


class Write:
    """The inserts and updates of one change, each prepared as it is added, written by
    `execute`: on PostgreSQL in one statement, elsewhere one after the other."""

    def __init__(self) -> None:
        self._parts: list[tuple[str, list[Any]]] = []
        # Whether the first part is a guarded update: it goes first, and every other update
        # waits for it (PostgreSQL runs a statement's `WITH` parts in no set order), so its row
        # is locked before any other, as the match's lock is, and nothing else is changed if
        # it changes nothing.
        self._guarded = False

    def insert(self, rows: Sequence[models.Model]) -> None:
        """Insert ``rows`` (all of one model; their primary keys left to the database)."""
        if rows:
            self._parts.append(_insert(rows))

    def update(self, row: models.Model, names: Sequence[str], *,
               where: dict[str, Any] | None = None) -> None:
        """Update the fields ``names`` of ``row``, as `Model.save(update_fields=names)` does
        (an `auto_now` field among them set now, on the row too); with ``where`` (field name:
        value), only if the row still holds those values (one guarded update a write)."""
        if not where:
            self._parts.append(_update(row, names, {}))
            return
        if self._guarded:
            raise ValueError("one guarded update a write")
        self._guarded = True
        self._parts.insert(0, _update(row, names, where))

    @contextlib.contextmanager
    def gathering(self) -> Iterator[None]:
        """Within the block, `insert` (the module's) adds its rows to this write."""
        token = _gathering.set(self)
        try:
            yield
        finally:
            _gathering.reset(token)

    def __bool__(self) -> bool:
        """Whether there is anything to write."""
        return bool(self._parts)

    @property
    def guarded(self) -> bool:
        return self._guarded

    def execute(self, read: tuple[str, list[Any]] | None = None) -> list[tuple[Any, ...]]:
        """Write, and return the rows of ``read`` (a SELECT and its parameters), if given, in
        the same statement on PostgreSQL; it is to read rows the write does not change (a
        statement does not see its own writes). Stale, when the guarded update found its row
        changed."""
        if not self._parts:
            return []
        parts = self._parts
        with connection.cursor() as cursor:
            if connection.vendor != "postgresql":
                return self._one_after_another(cursor, parts, read)
            params = [param for _, part_params in parts for param in part_params]
            if not self._guarded and read is None:
                *first, (last_sql, _) = parts
                prefix = ", ".join(f"w{index} AS ({sql})"
                                   for index, (sql, _) in enumerate(first))
                cursor.execute(f"WITH {prefix} {last_sql}" if first else last_sql, params)
                return []
            # Every part a `WITH` part (PostgreSQL runs a data-modifying part whether or not
            # it is read); the statement itself counts the guarded update's row and reads.
            prefix = ", ".join(f"w{index} AS ({sql}{self._after_guard(index, sql)})"
                               for index, (sql, _) in enumerate(parts))
            guard = ("SELECT count(*) AS updated FROM w0" if self._guarded
                     else "SELECT 1 AS updated")
            read_sql, read_params = read if read is not None else ("SELECT 1 WHERE false", [])
            cursor.execute(
                f"WITH {prefix} SELECT * FROM ({guard}) AS guard "
                f"LEFT JOIN ({read_sql}) AS read ON true", params + read_params)
            rows = cursor.fetchall()
        if not rows[0][0]:
            raise Stale()
        # A read of no rows leaves the guard's one row joined to nulls.
        return [row[1:] for row in rows if any(value is not None for value in row[1:])]

    def _after_guard(self, index: int, sql: str) -> str:
        """What a part of a guarded write adds: the guard (``w0``) its row, an update its
        wait."""
        if not self._guarded:
            return ""
        if index == 0:
            return " RETURNING 1"
        return " AND EXISTS (SELECT FROM w0)" if sql.startswith("UPDATE") else ""

    def _one_after_another(self, cursor: Any, parts: list[tuple[str, list[Any]]],
                           read: tuple[str, list[Any]] | None) -> list[tuple[Any, ...]]:
        for index, (sql, params) in enumerate(parts):
            cursor.execute(sql, params)
            if index == 0 and self._guarded and cursor.rowcount != 1:
                raise Stale()
        if read is None:
            return []
        cursor.execute(*read)
        return list(cursor.fetchall())


def insert(rows: Sequence[models.Model]) -> None:
    """Insert ``rows`` (all of one model), with the change under way when one gathers them
    (`Write.gathering`), else now."""
    if not rows:
        return
    gathering = _gathering.get()
    if gathering is not None:
        gathering.insert(rows)
        return
    type(rows[0])._default_manager.bulk_create(rows)


def _insert(rows: Sequence[models.Model]) -> tuple[str, list[Any]]:
    """``INSERT INTO … VALUES (…), (…)`` of ``rows``, their primary keys left to the database.
    A value that is an expression is written as its SQL."""
    model = type(rows[0])
    if any(type(row) is not model or row.pk is not None for row in rows):
        raise TypeError("rows of one model, their primary keys left to the database")
    fields = [field for field in model._meta.concrete_fields if not field.primary_key]
    params: list[Any] = []
    shape: list[tuple[str, ...]] = []
    for row in rows:
        placeholders: list[str] = []
        for field in fields:
            value = _value_to_insert(row, field)
            if isinstance(value, Expression):
                sql, value_params = _expression_sql(value)
                placeholders.append(sql)
                params.extend(value_params)
            else:
                placeholders.append("%s")
                params.append(field.get_db_prep_save(value, connection))
        shape.append(tuple(placeholders))
    return _insert_sql(model, tuple(field.column for field in fields), tuple(shape)), params


def _value_to_insert(row: models.Model, field: Any) -> Any:
    """As `Model.save` prepares it, but that a creation time already set is kept: a row told of
    before it is written (an action announced) says the time it is written with."""
    if getattr(field, "auto_now_add", False) and getattr(row, field.attname) is not None:
        return getattr(row, field.attname)
    return field.pre_save(row, True)


@functools.lru_cache(maxsize=256)
def _insert_sql(model: type[models.Model], columns: tuple[str, ...],
                shape: tuple[tuple[str, ...], ...]) -> str:
    quote = connection.ops.quote_name
    values = ", ".join(f"({', '.join(row)})" for row in shape)
    return (f"INSERT INTO {quote(model._meta.db_table)} "
            f"({', '.join(quote(column) for column in columns)}) VALUES {values}")


def _update(row: models.Model, names: Sequence[str],
            where: dict[str, Any]) -> tuple[str, list[Any]]:
    """``UPDATE … SET … WHERE pk = … [AND field = …]`` of the fields ``names`` of ``row``."""
    meta = row._meta
    wanted = set(names)
    fields = [field for field in meta.concrete_fields if not field.primary_key
              and (field.name in wanted or field.attname in wanted)]
    if not fields or len(fields) != len(wanted):
        raise ValueError(f"not fields of {meta.label}: {sorted(names)}")
    params = []
    for field in fields:
        value = field.pre_save(row, False)
        if isinstance(value, Expression):
            raise TypeError(f"{meta.label}.{field.name}: an expression is not written here")
        params.append(field.get_db_prep_save(value, connection))
    params.append(meta.pk.get_db_prep_value(row.pk, connection))
    by_name = {field.name: field for field in meta.concrete_fields}
    guarded = [by_name[name] for name in where]
    params.extend(field.get_db_prep_save(where[field.name], connection) for field in guarded)
    return _update_sql(type(row), tuple(field.column for field in fields),
                       tuple(field.column for field in guarded)), params


@functools.lru_cache(maxsize=256)
def _update_sql(model: type[models.Model], columns: tuple[str, ...],
                guarded: tuple[str, ...] = ()) -> str:
    quote = connection.ops.quote_name
    meta = model._meta
    assignments = ", ".join(f"{quote(column)} = %s" for column in columns)
    conditions = "".join(f" AND {quote(column)} = %s" for column in guarded)
    return (f"UPDATE {quote(meta.db_table)} SET {assignments} "
            f"WHERE {quote(meta.pk.column)} = %s{conditions}")


def _expression_sql(value: Expression) -> tuple[str, list[Any]]:
    """The SQL of a value that needs no compiler (`event_log.CurrentTransaction`)."""
    if value.get_source_expressions():
        raise TypeError(f"{type(value).__name__}: only an expression of no parts is written here")
    as_vendor: Any = getattr(value, f"as_{connection.vendor}", value.as_sql)
    sql, params = as_vendor(None, connection)
    return sql, list(params)
