"""A platform's stream: every event of every match of the platform (and of its players), in one
Server-Sent Events stream with one cursor across matches.

`emit` (platforms/events.py) writes each event to the platform's stream table in the follow-up
transaction that makes it (`write`), and announces it once committed (games/notify.py, on the
platform's own key): a stream waiting for news wakes and reads.

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

import asyncio
import json
import re
import time
import uuid
from collections.abc import AsyncGenerator, Callable, Generator, Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import TypeVar

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q, QuerySet
from django.db.models.expressions import RawSQL
from django.utils import timezone

from games import notify
from games.api import stream_pages
from games.api.streams import HEARTBEAT, RETRY_MILLISECONDS, Credential
from platforms.models import PlatformStreamEvent

T = TypeVar("T")

# Rows read at a time.
PAGE = 200
# Each part within a bigint: 18 digits at most.
CURSOR = re.compile(r"([0-9]{1,18})\.([0-9]{1,18})")


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


def _channel(platform_id: int) -> str:
    return f"platform-{platform_id}"


def _txid() -> int:
    """The current transaction's id on PostgreSQL (given it now if it has none); 0 elsewhere."""
    if connection.vendor != "postgresql":
        return 0
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_current_xact_id()::text::bigint")
        return int(cursor.fetchone()[0])


def write(platform_id: int, events: list[PlatformStreamEvent]) -> None:
    """Write a change's ``events`` of the platform, in its transaction; the platform's
    streams hear of them once it commits."""
    if not events:
        return
    txid = _txid()
    for event in events:
        event.txid = txid
    PlatformStreamEvent.objects.bulk_create(events)
    transaction.on_commit(lambda: notify.announce_to(_channel(platform_id)))


def latest(platform_id: int) -> Cursor:
    """Where a stream that starts now starts: after the last event readable now."""
    row = _readable(platform_id).order_by("-txid", "-id").values_list("txid", "id").first()
    return Cursor(*row) if row else Cursor(0, 0)


def _readable(platform_id: int) -> QuerySet[PlatformStreamEvent]:
    rows = PlatformStreamEvent.objects.filter(platform_id=platform_id)
    if connection.vendor == "postgresql":
        rows = rows.filter(txid__lt=RawSQL(
            "pg_snapshot_xmin(pg_current_snapshot())::text::bigint", []))
    return rows


@dataclass(frozen=True)
class Filter:
    """What a stream sends: every event, or those of ``types`` and of ``match_ids``."""

    types: frozenset[str] | None = None
    match_ids: frozenset[uuid.UUID] | None = None


def read_after(platform_id: int, after: Cursor, wanted: Filter, limit: int = PAGE
               ) -> tuple[list[tuple[Cursor, str, dict[str, object]]], Cursor]:
    """The events after ``after`` that ``wanted`` lets through, in order, at most ``limit``
    rows looked at; and the cursor to go on from (past the rows filtered out too)."""
    rows = _readable(platform_id).filter(
        Q(txid__gt=after.txid) | Q(txid=after.txid, id__gt=after.id)
    ).order_by("txid", "id").values_list("txid", "id", "type", "match_id", "payload")[:limit]
    found: list[tuple[Cursor, str, dict[str, object]]] = []
    last = after
    for txid, row_id, event_type, match_id, payload in rows:
        last = Cursor(txid, row_id)
        if wanted.types is not None and event_type not in wanted.types:
            continue
        if wanted.match_ids is not None and match_id not in wanted.match_ids:
            continue
        found.append((last, event_type, payload))
    return found, last


def frames(events: Iterable[tuple[Cursor, str, dict[str, object]]]) -> bytes:
    return b"".join(
        f"id: {cursor}\nevent: {event_type}\ndata: "
        f"{json.dumps(body, separators=(',', ':'))}\n\n".encode()
        for cursor, event_type, body in events
    )


def purge() -> int:
    """Remove the stream's events past PLATFORM_STREAM_RETENTION_HOURS; how many."""
    cutoff = timezone.now() - timedelta(hours=settings.PLATFORM_STREAM_RETENTION_HOURS)
    removed = 0
    old = PlatformStreamEvent.objects.filter(created_at__lt=cutoff)
    while chunk := list(old.values_list("pk", flat=True)[:5000]):
        removed += PlatformStreamEvent.objects.filter(pk__in=chunk).delete()[0]
    return removed


@dataclass
class Follower:
    """One open stream of a platform: where it is, what it wants, and its key to look up
    again (a revoked key ends the stream at its next look)."""

    platform_id: int
    after: Cursor
    wanted: Filter
    credential: Credential

    def read(self) -> bytes:
        """The frames of what is readable after the cursor, moving it on."""
        def look() -> tuple[list[tuple[Cursor, str, dict[str, object]]], Cursor]:
            return read_after(self.platform_id, self.after, self.wanted)

        found, self.after = stream_pages.on_a_live_connection(look)
        return frames(found)

    def may_go_on(self) -> bool:
        return stream_pages.on_a_live_connection(self.credential.still_valid)


def _retry() -> bytes:
    return f"retry: {RETRY_MILLISECONDS}\n\n".encode()


# After a wake that found nothing readable yet (on PostgreSQL, behind a transaction still
# running), a stream looks again this soon, then twice as late each time, up to a heartbeat.
SOON_SECONDS = 0.05
# How long a stream waits after a wake before it reads.
GATHER_SECONDS = 0.02


def sync_events(follower: Follower, seconds: float) -> Generator[bytes, None, None]:
    """The stream in a thread (a WSGI server), for up to ``seconds``."""
    yield _retry()
    ends = time.monotonic() + seconds
    heartbeat = settings.STREAM_HEARTBEAT_SECONDS
    checked = time.monotonic()
    while (left := ends - time.monotonic()) > 0:
        chunk = follower.read()
        if chunk:
            yield chunk
            continue
        if time.monotonic() - checked >= heartbeat:
            if not follower.may_go_on():
                return
            checked = time.monotonic()
            yield HEARTBEAT
        notify.wait(_channel(follower.platform_id), lambda: False, min(left, heartbeat))


async def async_events(follower: Follower, seconds: float) -> AsyncGenerator[bytes, None]:
    """The stream on an event loop (the stream server), for up to ``seconds``: it waits for
    the platform's announcements without a thread, and reads in the shared readers' pool."""
    loop = asyncio.get_running_loop()

    async def off_the_loop(call: Callable[[], T]) -> T:
        return await loop.run_in_executor(stream_pages.readers, call)

    yield _retry()
    ends = time.monotonic() + seconds
    heartbeat = settings.STREAM_HEARTBEAT_SECONDS
    checked = time.monotonic()
    soon: float | None = None  # after a wake that found nothing yet
    async with notify.listen(_channel(follower.platform_id)) as news:
        while (left := ends - time.monotonic()) > 0:
            news.clear()
            chunk = await off_the_loop(follower.read)
            if chunk:
                soon = None
                yield chunk
                continue
            if time.monotonic() - checked >= heartbeat:
                if not await off_the_loop(follower.may_go_on):
                    return
                checked = time.monotonic()
                yield HEARTBEAT
            if await news.wait(min(left, heartbeat if soon is None else soon)):
                soon = SOON_SECONDS
                # A platform's events come many a second, each announced: a moment's wait
                # lets one read take all those of the moment, not one read an event.
                await asyncio.sleep(GATHER_SECONDS)
            elif soon is not None:
                soon = soon * 2 if soon * 2 < heartbeat else None
