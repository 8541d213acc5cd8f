"""A change's rows written in one statement.

A move inserts its action, updates its match row and, as it may, its deal's progress and a
person's own stream: four writes. On PostgreSQL they go as one statement (each but the last
a data-modifying `WITH` part, which PostgreSQL runs whether or not it is referenced), so one
round trip where there were up to four; each round trip costs a request the wait and, under a
threaded server, the GIL handed over and taken back.

The statements are written here rather than by the ORM's compiler: compiling an INSERT and an
UPDATE cost a move about 0.7 ms, more than the round trip saved. Their text depends only on
the shape of the write (which model, how many rows, which columns), so it is made once per
shape and kept; the values are prepared as `Model.save` prepares them (`pre_save`, then
`get_db_prep_save`).

Writers within a change (`gathered`) hand their inserts to it instead of writing them at once;
elsewhere each insert is the ORM's own.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import Iterator, Sequence
from typing import Any

from django.db import connection, models
from django.db.models.expressions import Expression


class Gathered:
    """The inserts that writers hand to the change under way, in the order handed."""

    def __init__(self) -> None:
        self.rows: list[models.Model] = []


_gathering: contextvars.ContextVar[Gathered | None] = contextvars.ContextVar(
    "gathering", default=None)


@contextlib.contextmanager
def gathered() -> Iterator[Gathered]:
    """Within the block, `insert` keeps its rows for the caller to write with the rest of its
    change (`write`)."""
    gathering = Gathered()
    token = _gathering.set(gathering)
    try:
        yield gathering
    finally:
        _gathering.reset(token)


def insert(rows: Sequence[models.Model]) -> None:
    """Insert ``rows`` (all of one model), with the change under way when one gathers them,
    else now."""
    if not rows:
        return
    gathering = _gathering.get()
    if gathering is not None:
        gathering.rows.extend(rows)
        return
    type(rows[0])._default_manager.bulk_create(rows)


def write(inserts: Sequence[models.Model],
          updates: Sequence[tuple[models.Model, Sequence[str]]]) -> None:
    """Insert ``inserts`` (grouped by model, in the order each model first comes) and update
    the given fields of each row of ``updates``, as `Model.save(update_fields=...)` does: on
    PostgreSQL in one statement, elsewhere one after the other."""
    parts = [_insert(model_rows) for model_rows in _by_model(inserts)]
    parts += [_update(row, fields) for row, fields in updates]
    if not parts:
        return
    with connection.cursor() as cursor:
        if connection.vendor != "postgresql":
            for sql, params in parts:
                cursor.execute(sql, params)
            return
        *first, (last_sql, _) = parts
        prefix = ", ".join(f"w{index} AS ({sql})" for index, (sql, _) in enumerate(first))
        cursor.execute(f"WITH {prefix} {last_sql}" if first else last_sql,
                       [param for _, part_params in parts for param in part_params])


def _by_model(rows: Sequence[models.Model]) -> list[list[models.Model]]:
    groups: dict[type[models.Model], list[models.Model]] = {}
    for row in rows:
        groups.setdefault(type(row), []).append(row)
    return list(groups.values())


def _insert(rows: list[models.Model]) -> tuple[str, list[Any]]:
    """``INSERT INTO … VALUES (…), (…)`` of ``rows``, their primary keys left to the database.
    A value that is an expression (`event_log.CurrentTransaction`) is written as its SQL."""
    model = type(rows[0])
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


def _update(row: models.Model, names: Sequence[str]) -> tuple[str, list[Any]]:
    """``UPDATE … SET … WHERE pk = …`` of the fields ``names`` of ``row``, prepared as
    `Model.save(update_fields=names)` prepares them (an `auto_now` field among them set now)."""
    meta = row._meta
    wanted = set(names)
    fields = [field for field in meta.concrete_fields if not field.primary_key
              and (field.name in wanted or field.attname in wanted)]
    params = [field.get_db_prep_save(field.pre_save(row, False), connection) for field in fields]
    params.append(meta.pk.get_db_prep_value(row.pk, connection))
    return _update_sql(type(row), tuple(field.column for field in fields)), params


@functools.lru_cache(maxsize=256)
def _update_sql(model: type[models.Model], columns: tuple[str, ...]) -> str:
    quote = connection.ops.quote_name
    meta = model._meta
    assignments = ", ".join(f"{quote(column)} = %s" for column in columns)
    return (f"UPDATE {quote(meta.db_table)} SET {assignments} "
            f"WHERE {quote(meta.pk.column)} = %s")


def _expression_sql(value: Expression) -> tuple[str, list[Any]]:
    """The SQL of a value that needs no compiler (a constant expression such as
    `event_log.CurrentTransaction`)."""
    as_vendor: Any = getattr(value, f"as_{connection.vendor}", value.as_sql)
    sql, params = as_vendor(None, connection)
    return sql, list(params)
