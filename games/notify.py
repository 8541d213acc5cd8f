"""Move notifications, so that long polls of the event feed wait without querying the database.

Every committed action is announced on a Redis channel of its match, and to the waiters of the
same process; a waiting request subscribes to it and sleeps until something is announced.
Announcements are only a hint: the waiter looks at the database before sleeping and again
after, and sleeps at most RECHECK_SECONDS, so a lost announcement (Redis restarting, a publish
failing, a move made by another process without Redis) delays a client by seconds, never loses
a move. Without Redis (the embedded default) the process's own announcements wake its waiters:
a waiting request costs no query until it wakes.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable

import redis
from django.conf import settings

logger = logging.getLogger(__name__)

POLL_SECONDS = 0.2
RECHECK_SECONDS = 2.0

# One client (and connection pool) per Redis URL and process, made on first use: after the
# fork of gunicorn and Celery workers, never inherited across it.
_clients: dict[str, redis.Redis] = {}
_clients_lock = threading.Lock()

# This process's waiters, by match: each waits on an event of its own.
_waiters: dict[str, set[threading.Event]] = {}
_waiters_lock = threading.Lock()


def _redis() -> redis.Redis | None:
    url = settings.REDIS_URL
    if not url:
        return None
    with _clients_lock:
        if url not in _clients:
            _clients[url] = redis.Redis.from_url(
                url, socket_connect_timeout=0.5, socket_timeout=RECHECK_SECONDS + 1
            )
        return _clients[url]


def _channel(match_id: uuid.UUID | str) -> str:
    return f"batak:match:{match_id}"


def announce(match_id: uuid.UUID | str, version: int) -> None:
    """Tell the waiters of ``match_id`` that it reached ``version`` (once committed)."""
    with _waiters_lock:
        for event in _waiters.get(str(match_id), ()):
            event.set()
    client = _redis()
    if client is None:
        return
    try:
        client.publish(_channel(match_id), version)
    except redis.RedisError as error:
        # The waiters find the move on their next look at the database.
        logger.info("move not announced: %s", error, extra={"match_id": str(match_id)})


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
