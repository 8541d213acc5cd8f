"""Move notifications, so that long polls of the event feed wait without querying the database.

Every committed action is announced on a Redis channel of its match, and to the waiters of the
same process; a waiting request subscribes to it and sleeps until something is announced.
Announcements are only a hint: the waiter looks at the database before sleeping and again
after, and sleeps at most RECHECK_SECONDS, so a lost announcement (Redis restarting, a publish
failing, a move made by another process without Redis) delays a client by seconds, never loses
a move. Without Redis (the embedded default) the process's own announcements wake its waiters:
a waiting request costs no query until it wakes.

The live stream's listeners (games/api/streams.py) wait the same way on an event loop, without
a thread each: ``listen`` registers an asyncio event that the process's own announcements set
(from whichever thread commits), and with Redis one pattern subscription per event loop sets
it for announcements from every process. An announcement carries the action as the feed lists
it, so a listener that has heard every version up to it needs no look at the database, with the
turn clock's deadline after it and, when it ended a deal, the deal's result. A change of who
plays a seat (a person leaving, a seat going on autopilot or coming back) is announced too (no
version: `announce_seats`): the streams send the seats' new state, and a stream of a person who
left ends at once rather than at its next look at who may follow it. After a match finished,
a change of its rematch offer is announced the same way (`announce_rematch`), and its ratings'
changes with their values (`announce_ratings`: games does not read the ratings). A deal's
post-deal analysis, once ready, is announced too (`announce_analysis`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
import uuid
import weakref
from collections.abc import AsyncIterator, Callable
from typing import Any, TypedDict, cast

import redis
import redis.asyncio

from runtime import redis_clients

logger = logging.getLogger(__name__)

POLL_SECONDS = 0.2
RECHECK_SECONDS = 2.0

# This process's waiters, by match: each waits on an event of its own.
_waiters: dict[str, set[threading.Event]] = {}
_waiters_lock = threading.Lock()


def _redis() -> redis.Redis | None:
    return redis_clients.shared(socket_connect_timeout=0.5, socket_timeout=RECHECK_SECONDS + 1)


def _channel(match_id: uuid.UUID | str) -> str:
    return f"batak:match:{match_id}"


def announce(
    match_id: uuid.UUID | str, version: int, *, status: str, event: dict[str, Any] | None = None,
    deadline: str | None = None, deal_end: dict[str, Any] | None = None,
    dealt: dict[str, Any] | None = None, turn: dict[str, Any] | None = None,
) -> None:
    """Tell the waiters of ``match_id`` that it reached ``version`` with ``status`` (once
    committed), by the action ``event`` as the feed lists it, or by no action (None); with
    the turn clock's ``deadline`` after it and the result of the deal it ended, if any. Each
    seat's own news (``dealt``: the hands of a deal dealt at this version; ``turn``: a person
    to act and what they may do) goes only to that seat's streams (games/api/streams.py):
    the channel is the service's own, never a client's."""
    news: News = {"version": version, "status": status, "event": event, "deadline": deadline,
                  "deal_end": deal_end, "dealt": dealt, "turn": turn}
    try:
        message = json.dumps(news, separators=(",", ":")).encode()
    except (TypeError, ValueError) as error:
        # The waiters find the move on their next look at the database.
        logger.info("move not announced: %s", error, extra={"match_id": str(match_id)})
        message = b"{}"  # (a wake, no news)
    _publish(match_id, message, "move")


# What `announce_seats` publishes on a match's channel: no version, so no news of a move.
SEATS_CHANGED = b'{"seats":true}'


def announce_seats(match_id: uuid.UUID | str) -> None:
    """Tell the live streams of ``match_id`` (once called, after the commit) that who plays a
    seat changed: each sends the seats' new state, and looks again at once whether its
    listener may still follow the match (a person who left a private one may not)."""
    _publish(match_id, SEATS_CHANGED, "seats")


# What `announce_rematch` publishes: like a seat change, the streams read the state again.
REMATCH_CHANGED = b'{"rematch":true}'


def announce_rematch(match_id: uuid.UUID | str) -> None:
    """Tell the live streams of the finished ``match_id`` (once called, after the commit)
    that its rematch offer changed: each reads it again, as after a seat change."""
    _publish(match_id, REMATCH_CHANGED, "rematch")


def announce_ratings(match_id: uuid.UUID | str, changes: list[dict[str, Any]]) -> None:
    """Tell the live streams of ``match_id`` (once called, after the commit that rated it)
    how its people's ratings changed (as the stream's `rating_changed` sends them). Only the
    streams open then hear it: the ratings are kept by `ratings`, which games never reads."""
    _publish(match_id, json.dumps({"ratings": changes}, separators=(",", ":")).encode(),
             "ratings")


ANALYSIS_PREFIX = b'{"analysis":'


def announce_analysis(match_id: uuid.UUID | str, ready: dict[str, Any]) -> None:
    """Tell the live streams of ``match_id`` (once called, after the commit that recorded it)
    that the analysis of one of its deals is ready (as the stream's `analysis_ready` sends it).
    Only the streams open then hear it, as for the ratings."""
    _publish(match_id, json.dumps({"analysis": ready}, separators=(",", ":")).encode(),
             "analysis")


# What `announce_to` publishes: only a wake.
WAKE = b"{}"


def announce_to(feed: str) -> None:
    """Wake whoever waits on ``feed``, a key of its own beside the matches' (a platform's stream:
    platforms/stream.py), as `wait` and `listen` wait on a match: a wake, with no news."""
    _publish(feed, WAKE, "wake")


def _publish(match_id: uuid.UUID | str, message: bytes, what: str) -> None:
    """The one way every announcement goes: this process's long polls are woken, and the
    streams hear ``message`` (``what`` it tells, for the log), from Redis's channel of the match
    when scaled out, else from this process's event loops, read the same way (`_Hub.heard`).
    Lost on Redis's failure: the waiters and streams find it out at their next look at the
    database (STREAM_HEARTBEAT_SECONDS)."""
    with _waiters_lock:
        for waiting in _waiters.get(str(match_id), ()):
            waiting.set()
    client = _redis()
    if client is None:
        with _hubs_lock:
            hubs = list(_hubs.values())
        for hub in hubs:
            hub.heard_threadsafe(str(match_id), message)
        return
    try:
        client.publish(_channel(match_id), message)
    except redis.RedisError as error:
        logger.info("%s not announced: %s", what, error, extra={"match_id": str(match_id)})


def wait(match_id: uuid.UUID | str, moved: Callable[[], bool], timeout: float) -> None:
    """Return once ``match_id`` is announced or ``moved()`` (a look at the database) is true,
    or after ``timeout`` seconds at most; the caller then reads the database again."""
    client = _redis()
    if client is None:
        _wait_in_process(str(match_id), moved, timeout)
        return
    deadline = time.monotonic() + min(timeout, RECHECK_SECONDS)
    try:
        with client.pubsub(ignore_subscribe_messages=True) as pubsub:
            pubsub.subscribe(_channel(match_id))
            # Subscribed first, then looked: a move committed in between is heard or seen.
            if moved():
                return
            while (left := deadline - time.monotonic()) > 0:
                if pubsub.get_message(timeout=left) is not None:
                    return
    except redis.RedisError:
        time.sleep(max(0.0, min(deadline - time.monotonic(), POLL_SECONDS)))


def _wait_in_process(match_id: str, moved: Callable[[], bool], timeout: float) -> None:
    event = threading.Event()
    with _waiters_lock:
        _waiters.setdefault(match_id, set()).add(event)
    try:
        # Registered first, then looked: a move committed in between is heard or seen.
        if not moved():
            event.wait(max(0.0, min(timeout, RECHECK_SECONDS)))
    finally:
        with _waiters_lock:
            waiting = _waiters.get(match_id)
            if waiting is not None:
                waiting.discard(event)
                if not waiting:
                    del _waiters[match_id]


# --- listeners on an event loop ----------------------------------------------------------------

REDIS_RETRY_SECONDS = 0.5
REDIS_RETRY_MAX_SECONDS = 10
# An idle subscription pings this often, and is given up after three times as long unanswered.
REDIS_PING_SECONDS = 10
# Announcements kept per match listened to: enough for any listener that is not far behind.
NEWS_KEPT = 64


class News(TypedDict):
    version: int
    status: str
    event: dict[str, Any] | None
    # The turn clock's deadline once at this version (ISO 8601), None for none.
    deadline: str | None
    # The result of the deal this version ended (as the stream's `deal_ended` sends it).
    deal_end: dict[str, Any] | None
    # Each seat's own (`announce`): the deal dealt at this version, a person's turn.
    dealt: dict[str, Any] | None
    turn: dict[str, Any] | None


class _Hub:
    """One event loop's listeners, by match; with Redis, the loop's one subscription."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = weakref.ref(loop)  # the hubs are kept by loop, so not the loop by its hub
        self.listeners: dict[str, set[asyncio.Event]] = {}
        # When each match's listeners were last woken (time.monotonic()).
        self.woken_at: dict[str, float] = {}
        # The latest announcements of each match listened to, by version.
        self.news: dict[str, dict[int, News]] = {}
        # How many seat changes of each match were heard since its first listener came.
        self.seat_changes: dict[str, int] = {}
        # The ratings' changes announced of each match listened to (`announce_ratings`).
        self.ratings: dict[str, list[list[dict[str, Any]]]] = {}
        # The analyses announced ready of each match listened to (`announce_analysis`).
        self.analyses: dict[str, list[dict[str, Any]]] = {}
        self.subscriber: asyncio.Task[None] | None = None

    def wake(self, match_id: str, news: News | None = None) -> None:
        events = self.listeners.get(match_id)
        if not events:
            return
        if news is not None:
            recent = self.news.setdefault(match_id, {})
            recent[news["version"]] = news
            if len(recent) > NEWS_KEPT:
                del recent[min(recent)]
        self.woken_at[match_id] = time.monotonic()
        for event in events:
            event.set()

    def seats_changed(self, match_id: str) -> None:
        if match_id in self.listeners:
            self.seat_changes[match_id] = self.seat_changes.get(match_id, 0) + 1
            self.wake(match_id)

    def state_changed(self, match_id: str, message: bytes) -> None:
        """A rematch's change (read again, as a seat change is) or a match's ratings (kept
        for its listeners, who send them once they sent its end)."""
        if message == REMATCH_CHANGED:
            self.seats_changed(match_id)
            return
        if message.startswith(ANALYSIS_PREFIX):
            ready = _analysis(message)
            if ready is not None and match_id in self.listeners:
                self.analyses.setdefault(match_id, []).append(ready)
                self.wake(match_id)
            return
        changes = _ratings(message)
        if changes is not None and match_id in self.listeners:
            self.ratings.setdefault(match_id, []).append(changes)
            self.wake(match_id)

    def heard(self, match_id: str, message: bytes) -> None:
        """An announcement of ``match_id`` (`_publish`): a seat change, a rematch's, ratings'
        or an analysis', else a move's news (or, unreadable, only a wake)."""
        if message == SEATS_CHANGED:
            self.seats_changed(match_id)
        elif message == REMATCH_CHANGED or message.startswith((RATINGS_PREFIX, ANALYSIS_PREFIX)):
            self.state_changed(match_id, message)
        else:
            self.wake(match_id, _news(message))

    def heard_threadsafe(self, match_id: str, message: bytes) -> None:
        """`heard`, from another thread (the embedded default: no Redis between them)."""
        loop = self.loop()
        if match_id in self.listeners and loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop stopped in between
                loop.call_soon_threadsafe(self.heard, match_id, message)

    def wake_all(self) -> None:
        for match_id in list(self.listeners):
            self.wake(match_id)

    async def subscribe(self, url: str) -> None:
        """Wake the listeners of every match announced on Redis, until cancelled. Once
        (re)subscribed everyone is woken to look again: announcements may have been missed.
        A connection that answers nothing for a while, not even a ping, is given up."""
        prefix = len(_channel(""))
        retry = REDIS_RETRY_SECONDS
        while True:
            client = redis.asyncio.Redis.from_url(
                url, socket_connect_timeout=0.5, socket_timeout=3 * REDIS_PING_SECONDS
            )
            try:
                async with client.pubsub() as pubsub:
                    await pubsub.psubscribe(_channel("*"))
                    heard = time.monotonic()
                    while True:
                        message = await pubsub.get_message(timeout=REDIS_PING_SECONDS)
                        if message is None:
                            if time.monotonic() - heard > 3 * REDIS_PING_SECONDS:
                                raise redis.ConnectionError("no answer to pings")
                            await pubsub.ping()
                            continue
                        heard = time.monotonic()
                        if message["type"] == "psubscribe":
                            self.wake_all()
                            retry = REDIS_RETRY_SECONDS
                        elif message["type"] == "pmessage":
                            self.heard(message["channel"].decode()[prefix:], message["data"])
            except (redis.RedisError, OSError) as error:
                logger.info("stream subscription lost: %s", error)
            finally:
                await client.aclose()
            await asyncio.sleep(retry)
            retry = min(2 * retry, REDIS_RETRY_MAX_SECONDS)


RATINGS_PREFIX = b'{"ratings":'


def _ratings(data: bytes) -> list[dict[str, Any]] | None:
    """The changes an `announce_ratings` message carries, or None for anything else."""
    try:
        changes = json.loads(data).get("ratings")
    except (ValueError, AttributeError):
        return None
    valid = isinstance(changes, list) and all(isinstance(change, dict) for change in changes)
    return changes if valid else None


def _analysis(data: bytes) -> dict[str, Any] | None:
    """What an `announce_analysis` message carries, or None for anything else."""
    try:
        ready = json.loads(data).get("analysis")
    except (ValueError, AttributeError):
        return None
    return ready if isinstance(ready, dict) else None


def _news(data: bytes) -> News | None:
    """An announcement as published by `announce`; anything else is only a wake."""
    try:
        news = json.loads(data)
    except ValueError:
        return None
    valid = (
        isinstance(news, dict)
        and isinstance(news.get("version"), int)
        and isinstance(news.get("status"), str)
        and (news.get("event") is None or isinstance(news.get("event"), dict))
        and (news.get("deadline") is None or isinstance(news.get("deadline"), str))
        and (news.get("deal_end") is None or isinstance(news.get("deal_end"), dict))
        and (news.get("dealt") is None or isinstance(news.get("dealt"), dict))
        and (news.get("turn") is None or isinstance(news.get("turn"), dict))
    )
    if valid:
        for optional in ("deadline", "deal_end", "dealt", "turn"):
            news.setdefault(optional, None)
    return cast(News, news) if valid else None


# By event loop: the ASGI server runs one; tests may run several, one after another.
_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Hub] = weakref.WeakKeyDictionary()
_hubs_lock = threading.Lock()


def _hub() -> _Hub:
    loop = asyncio.get_running_loop()
    with _hubs_lock:
        hub = _hubs.get(loop)
        if hub is None:
            hub = _hubs[loop] = _Hub(loop)
    url = redis_clients.shared_url()
    if url and (hub.subscriber is None or hub.subscriber.done()):
        hub.subscriber = loop.create_task(hub.subscribe(url))
    return hub


class Moves:
    """A listener's view of one match's announcements on its event loop."""

    def __init__(self, hub: _Hub, match_id: str) -> None:
        self.hub = hub
        self.match_id = match_id
        self.event = asyncio.Event()
        self._seat_changes = hub.seat_changes.get(match_id, 0)
        self._ratings_sent = 0
        self._analyses_sent = 0

    def seats_changed(self) -> bool:
        """Whether who plays a seat changed since the listener came or last asked."""
        changes = self.hub.seat_changes.get(self.match_id, 0)
        changed, self._seat_changes = changes != self._seat_changes, changes
        return changed

    def ratings(self) -> list[list[dict[str, Any]]]:
        """The ratings' changes announced since the listener last asked."""
        heard = self.hub.ratings.get(self.match_id, [])
        fresh, self._ratings_sent = heard[self._ratings_sent:], len(heard)
        return fresh

    def analyses(self) -> list[dict[str, Any]]:
        """The analyses announced ready since the listener last asked."""
        heard = self.hub.analyses.get(self.match_id, [])
        fresh, self._analyses_sent = heard[self._analyses_sent:], len(heard)
        return fresh

    def news_after(self, after: int) -> tuple[list[News], bool]:
        """The announcements of the versions right after ``after``, in order, and whether a
        later one came with a version missing before it (lost or not yet heard)."""
        recent = self.hub.news.get(self.match_id, {})
        chain = []
        while (news := recent.get(after + 1)) is not None:
            chain.append(news)
            after += 1
        return chain, any(version > after for version in recent)

    def clear(self) -> float:
        """Forget the announcements so far, before a look at the database: one that comes
        after sets the event again. Returns when they were heard (now if never): a look at
        the database begun since then sees every move they announced."""
        self.event.clear()
        return self.hub.woken_at.get(self.match_id, time.monotonic())

    async def wait(self, timeout: float) -> bool:
        """Whether an announcement came within ``timeout`` seconds."""
        try:
            await asyncio.wait_for(self.event.wait(), timeout)
        except TimeoutError:
            return False
        return True


@contextlib.asynccontextmanager
async def listen(match_id: uuid.UUID | str) -> AsyncIterator[Moves]:
    """The announcements of ``match_id``, heard for as long as the block runs."""
    hub = _hub()
    moves = Moves(hub, str(match_id))
    hub.listeners.setdefault(moves.match_id, set()).add(moves.event)
    try:
        yield moves
    finally:
        listening = hub.listeners.get(moves.match_id)
        if listening is not None:
            listening.discard(moves.event)
            if not listening:
                del hub.listeners[moves.match_id]
                hub.woken_at.pop(moves.match_id, None)
                hub.news.pop(moves.match_id, None)
                hub.seat_changes.pop(moves.match_id, None)
                hub.ratings.pop(moves.match_id, None)
                hub.analyses.pop(moves.match_id, None)
