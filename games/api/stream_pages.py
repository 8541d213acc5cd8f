"""The pages a live stream sends (games/api/streams.py): the actions after a cursor as SSE
frames, read from the database (`read_page`, a read shared by a match's listeners on one event
loop: `SharedReads`) or made from the announcements heard (`page_heard`), with the match's state
there."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
import uuid
import weakref
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from django.db import InterfaceError, OperationalError, connection

from games import notify, presenters, rematch, selectors
from games.api.serializers.feed import EventSerializer
from games.api.serializers.play import RematchOfferSerializer
from games.models import Match, MatchStatus, RematchOffer, Seat

T = TypeVar("T")

PAGE = 500
LIVE = (MatchStatus.WAITING, MatchStatus.ACTIVE)

# The database reads of every stream on an event loop: a few threads, each keeping its
# connection, instead of one per listener.
readers = ThreadPoolExecutor(max_workers=4, thread_name_prefix="stream-reader")


@dataclass(frozen=True)
class Version:
    """One version's frames: its action's (and the result of the deal it ended), as everyone
    is sent them, and each seat's own news at it (`notify.News`), for that seat only."""

    version: int
    closed: bytes  # the frames, the version the id of the last
    open: bytes  # the same without the id: a seat's own frames follow, the last with it
    dealt: dict[str, Any] | None = None
    turn: dict[str, Any] | None = None


@dataclass(frozen=True)
class Page:
    """The versions after a cursor, read at one version, and the match's state there."""

    versions: tuple[Version, ...]
    next_after: int
    more: bool  # more actions are already waiting
    ended: bool  # the match has ended and this page holds its last action
    end: bytes = b""  # the `end` frame, when ended
    # The turn clock's deadline at `next_after`, if this page knows it.
    deadline: str | None = None
    knows_deadline: bool = False
    # The seats' state, if this page read it.
    seats: list[dict[str, Any]] | None = None
    # The match's status, and of a finished match its rematch offer (None: none yet) as read.
    status: str = ""
    rematch: dict[str, Any] | None = None
    # When a finished match finished, as read (None: heard just now).
    finished_at: datetime | None = None
    # Read from the database (else made from the announcements heard).
    read: bool = False


def on_a_live_connection(read: Callable[[], T]) -> T:
    """``read()`` in a pool thread, which keeps its database connection between reads (no
    request closes or checks it): a connection lost meanwhile is opened again, once."""
    try:
        return read()
    except (InterfaceError, OperationalError):
        connection.close()
        return read()


def read_own(match_id: uuid.UUID, seat: int) -> dict[str, Any] | None:
    """What ``seat``'s own stream tells of the deal in play, read now (`presenters.own_news`);
    None when the match is gone."""
    def read() -> dict[str, Any] | None:
        with selectors.reading_together():
            match = Match.objects.prefetch_related("seats").filter(pk=match_id).first()
            return None if match is None else presenters.own_news(match, seat)

    return on_a_live_connection(read)


def read_page(match_id: uuid.UUID, after: int) -> Page:
    def read() -> Page:
        with selectors.reading_together():
            return _read_page(match_id, after)

    return on_a_live_connection(read)


def _read_page(match_id: uuid.UUID, after: int) -> Page:
    found = list(Match.objects.filter(pk=match_id).only(
        "id", "version", "status", "rules", "turn_deadline", "finished_at"
    )[:1])
    if not found:  # deleted by staff: nothing more will come
        return Page((), after, more=False, ended=True)
    match = found[0]
    page = presenters.event_page(match, after, PAGE, with_deal_ends=True)
    versions = tuple(
        _version(event, page["deal_ends"].get(event["version"]))
        for event in EventSerializer(page["events"], many=True).data
    )
    ended = not page["has_more"] and page["status"] not in LIVE
    offer = (RematchOffer.objects.filter(match_id=match_id).first()
             if ended and page["status"] == MatchStatus.FINISHED else None)
    caught_up = not page["has_more"] and page["status"] == MatchStatus.ACTIVE
    deadline = match.turn_deadline.isoformat() if caught_up and match.turn_deadline else None
    return Page(
        versions, page["next_after"], page["has_more"], ended,
        end=endframe(page["version"], page["status"]) if ended else b"",
        deadline=deadline, knows_deadline=caught_up, seats=_seats(match_id),
        status=page["status"], finished_at=match.finished_at,
        rematch=None if offer is None else RematchOfferSerializer(rematch.offer_view(offer)).data,
        read=True,
    )


def _seats(match_id: uuid.UUID) -> list[dict[str, Any]]:
    return [
        {"seat": index, "open": user_id is None and not bot_level, "ready": ready,
         "autopilot": autopilot, "left": left_at is not None}
        for index, user_id, bot_level, ready, autopilot, left_at in Seat.objects.filter(
            match_id=match_id
        ).order_by("index").values_list(
            "index", "user_id", "bot_level", "ready", "autopilot", "left_at"
        )
    ]


class SharedReads:
    """The listeners of one match on an event loop mostly stand at the same cursor and are woken
    by the same announcement: one read serves all of them. A listener takes a read begun since
    the announcements it has heard (so it holds every move they announced), never an older
    one."""

    def __init__(self) -> None:
        self.reads: dict[tuple[uuid.UUID, int], tuple[float, asyncio.Future[Page]]] = {}

    async def read(self, match_id: uuid.UUID, after: int, since: float) -> Page:
        key = (match_id, after)
        entry = self.reads.get(key)
        if entry is None or entry[0] < since:
            loop = asyncio.get_running_loop()
            future = loop.run_in_executor(readers, read_page, match_id, after)
            entry = self.reads[key] = (time.monotonic(), future)
            future.add_done_callback(lambda _: self._forget(key, entry))
        return await asyncio.shield(entry[1])

    def _forget(self, key: tuple[uuid.UUID, int], entry: tuple[float, Any]) -> None:
        if self.reads.get(key) is entry:
            del self.reads[key]


shared_reads: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, SharedReads] = (
    weakref.WeakKeyDictionary()
)


def page_heard(match_id: uuid.UUID, heard: list[notify.News]) -> Page:
    """The page of announced versions, as a look at the database would have read it (but
    for the seats, which an announcement of a version does not change), with each seat's own
    news at each version."""
    versions = tuple(
        dataclasses.replace(_heard_version(match_id, news), dealt=news.get("dealt"),
                            turn=news.get("turn"))
        for news in heard if news["event"] is not None
    )
    last = heard[-1]
    ended = last["status"] not in LIVE
    return Page(
        versions, last["version"], more=False, ended=ended,
        end=endframe(last["version"], last["status"]) if ended else b"",
        deadline=last["deadline"], knows_deadline=last["status"] == MatchStatus.ACTIVE,
        status=last["status"],
    )


# Each announced action's frames, made once for all of its listeners in this process.
_frames: OrderedDict[tuple[uuid.UUID, int], Version] = OrderedDict()
FRAMES_KEPT = 4096


def _heard_version(match_id: uuid.UUID, news: notify.News) -> Version:
    key = (match_id, news["version"])
    made = _frames.get(key)
    if made is None:
        made = _frames[key] = _version(EventSerializer(news["event"]).data, news["deal_end"])
        if len(_frames) > FRAMES_KEPT:
            _frames.popitem(last=False)
    return made


def _version(event: dict[str, Any], deal_end: dict[str, Any] | None) -> Version:
    """An action's event, and the result of the deal it ended, if it ended one: the version
    is the id of the last frame of the version (EventSource resumes after the last id it
    received)."""
    version = event["version"]
    parts = [("action", event)]
    if deal_end is not None:
        parts.append(("deal_ended", {"version": version, **deal_end}))
    return Version(version, closed=frames(version, parts), open=frames(None, parts))


def frames(version: int | None, parts: list[tuple[str, dict[str, Any]]]) -> bytes:
    """``parts`` (kind, data) as frames, ``version`` (if any) the id of the last."""
    return b"".join(frame(version if index == len(parts) - 1 else None, kind, data)
                    for index, (kind, data) in enumerate(parts))


def endframe(version: int, status: str) -> bytes:
    return frame(version, "end", {"version": version, "status": status})


def frame(version: int | None, kind: str, data: dict[str, Any]) -> bytes:
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    id_line = "" if version is None else f"id: {version}\n"
    return f"{id_line}event: {kind}\ndata: {body}\n\n".encode()
