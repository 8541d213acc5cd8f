"""The stream of an account's log of events (games/event_log.py) as Server-Sent Events: each
event's `id` its cursor, on a WSGI server in a thread for a while, on the stream server on the
event loop for as long as the client stays."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncGenerator, Callable, Generator, Iterable
from dataclasses import dataclass
from typing import TypeVar

from django.conf import settings

from games import notify
from games.api import stream_pages
from games.api.streams import HEARTBEAT, RETRY_MILLISECONDS, Credential
from games.event_log import Cursor, Filter, Found, Log

T = TypeVar("T")


def frames(events: Iterable[tuple[Cursor, str, dict[str, object]]]) -> bytes:
    return b"".join(
        f"id: {cursor}\nevent: {event_type}\ndata: "
        f"{json.dumps(body, separators=(',', ':'))}\n\n".encode()
        for cursor, event_type, body in events
    )


@dataclass
class Follower:
    """One open stream of an owner's log: where it is, what it wants, and its credential to
    look up again (a revoked one ends the stream at its next look)."""

    log: Log
    owner: int
    after: Cursor
    wanted: Filter
    # None: a browser's session (staff), whose account's own check covers it.
    credential: Credential | None

    def read(self) -> bytes:
        """The frames of what is readable after the cursor, moving it on."""
        def look() -> tuple[Found, Cursor]:
            return self.log.read_after(self.owner, self.after, self.wanted)

        found, self.after = stream_pages.on_a_live_connection(look)
        return frames(found)

    def may_go_on(self) -> bool:
        credential = self.credential
        return credential is None or stream_pages.on_a_live_connection(credential.still_valid)

    @property
    def channel(self) -> str:
        return self.log.channel(self.owner)


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
        notify.wait(follower.channel, lambda: False, min(left, heartbeat))


async def async_events(follower: Follower, seconds: float) -> AsyncGenerator[bytes, None]:
    """The stream on an event loop (the stream server), for up to ``seconds``: it waits for
    the owner's announcements without a thread, and reads in the shared readers' pool."""
    loop = asyncio.get_running_loop()

    async def off_the_loop(call: Callable[[], T]) -> T:
        return await loop.run_in_executor(stream_pages.readers, call)

    yield _retry()
    ends = time.monotonic() + seconds
    heartbeat = settings.STREAM_HEARTBEAT_SECONDS
    checked = time.monotonic()
    soon: float | None = None  # after a wake that found nothing yet
    async with notify.listen(follower.channel) as news:
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
                # An owner's events may come many a second, each announced: a moment's wait
                # lets one read take all those of the moment, not one read an event.
                await asyncio.sleep(GATHER_SECONDS)
            elif soon is not None:
                soon = soon * 2 if soon * 2 < heartbeat else None
