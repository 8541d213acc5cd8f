"""An account's log of events, read with one cursor across matches and streamed as
Server-Sent Events (games/api/log_streams.py): a partner platform's (platforms/stream.py) and a
person's (games/account_stream.py) are both one.

A change writes its events to the log in its own transaction (`Log.write`) and announces them
once committed (games/notify.py, on the owner's channel): a stream waiting for news wakes and
reads.

The cursor is (transaction, row) — ``"<txid>.<id>"``, each event's SSE `id`. Rows are read in
that order, and on PostgreSQL only those of transactions that finished before the oldest one
still running began (`pg_snapshot_xmin`): rows get their ids when written, not when committed,
so without that horizon a reader could pass the id of a row whose transaction had not
committed yet, and never see it. With it, nothing a reader has passed can still appear. A
match's events are written one change after the other, each change's transaction after the
last one's commit, so they come in the match's order. On SQLite one writer commits at a time,
in the order of its rows' ids, and the transaction part is 0.
"""

from __future__ import annotations

import functools
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import connection, models, transaction
from django.db.models import Q, QuerySet
from django.db.models.expressions import Expression, RawSQL
from django.utils import timezone

from games import notify, writes

# Rows read at a time.
PAGE = 200
# Each part within a bigint: 18 digits at most.
CURSOR = re.compile(r"([0-9]{1,18})\.([0-9]{1,18})")
# The pattern of a cursor's text, for the API's parameters.
CURSOR_PATTERN = f"^{CURSOR.pattern}$"


@dataclass(frozen=True, order=True)
class Cursor:
    txid: int
    id: int

    def __str__(self) -> str:
        return f"{self.txid}.{self.id}"

    @classmethod
    def parse(cls, text: str) -> Cursor | None:
        """The cursor ``text`` writes, or None when it writes none."""
        found = CURSOR.fullmatch(text)
        if found is None:
            return None
        return cls(int(found[1]), int(found[2]))


@dataclass(frozen=True)
class Filter:
    """What a stream sends: every event, or those of ``types`` and of ``match_ids``."""

    types: frozenset[str] | None = None
    match_ids: frozenset[uuid.UUID] | None = None


Found = list[tuple[Cursor, str, dict[str, object]]]


class CurrentTransaction(Expression):
    """The id of the transaction that writes the row on PostgreSQL (given it then if it had
    none), 0 elsewhere: a row's ``txid``, written by its own INSERT."""

    output_field = models.BigIntegerField()

    def as_sql(self, compiler: Any, connection: Any, **extra: Any) -> tuple[str, list[Any]]:
        return "0", []

    def as_postgresql(self, compiler: Any, connection: Any, **extra: Any
                      ) -> tuple[str, list[Any]]:
        return "pg_current_xact_id()::text::bigint", []


@dataclass(frozen=True)
class Log:
    """The rows of ``model`` (fields ``txid``, ``type``, ``match_id``, ``payload``,
    ``created_at``, and its owner's ``owner_field``), each owner's its own stream, announced on
    ``"<channel>-<owner>"``, kept ``retention_setting`` hours."""

    model: type[models.Model]
    owner_field: str
    channel_prefix: str
    retention_setting: str

    def channel(self, owner: int) -> str:
        return f"{self.channel_prefix}-{owner}"

    def write(self, rows: Sequence[models.Model]) -> None:
        """Write ``rows`` (their owners set), in the change's transaction (with its other
        writes, when it gathers them: games/writes.py); their owners' streams hear of them once
        it commits."""
        if not rows:
            return
        for row in rows:
            row.txid = CurrentTransaction()  # type: ignore[attr-defined]
        writes.insert(rows)
        for channel in {self.channel(getattr(row, self.owner_field)) for row in rows}:
            transaction.on_commit(functools.partial(notify.announce_to, channel))

    def latest(self, owner: int) -> Cursor:
        """Where a stream that starts now starts: after the last event readable now."""
        row = self._readable(owner).order_by("-txid", "-id").values_list("txid", "id").first()
        return Cursor(*row) if row else Cursor(0, 0)

    def _readable(self, owner: int) -> QuerySet[Any]:
        rows = self.model._default_manager.filter(**{self.owner_field: owner})
        if connection.vendor == "postgresql":
            rows = rows.filter(txid__lt=RawSQL(
                "pg_snapshot_xmin(pg_current_snapshot())::text::bigint", []))
        return rows

    def read_after(self, owner: int, after: Cursor, wanted: Filter, limit: int = PAGE
                   ) -> tuple[Found, Cursor]:
        """The events after ``after`` that ``wanted`` lets through, in order, at most
        ``limit`` rows looked at; and the cursor to go on from (past the rows filtered out
        too)."""
        rows = self._readable(owner).filter(
            Q(txid__gt=after.txid) | Q(txid=after.txid, id__gt=after.id)
        ).order_by("txid", "id").values_list("txid", "id", "type", "match_id", "payload")[:limit]
        found: Found = []
        last = after
        for txid, row_id, event_type, match_id, payload in rows:
            last = Cursor(txid, row_id)
            if wanted.types is not None and event_type not in wanted.types:
                continue
            if wanted.match_ids is not None and match_id not in wanted.match_ids:
                continue
            found.append((last, event_type, payload))
        return found, last

    def purge(self) -> int:
        """Remove the events older than the retention; how many."""
        hours = getattr(settings, self.retention_setting)
        cutoff = timezone.now() - timedelta(hours=hours)
        manager = self.model._default_manager
        removed = 0
        old = manager.filter(created_at__lt=cutoff)
        while chunk := list(old.values_list("pk", flat=True)[:5000]):
            removed += manager.filter(pk__in=chunk).delete()[0]
        return removed
