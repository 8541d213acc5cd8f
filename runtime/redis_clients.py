"""One Redis client, and so one connection pool, per process, URL and options.

redis-py's clients and pools are thread-safe, and making a client costs about 0.1 ms: Django's
Redis cache made one per call, two a throttled request. The cache, the event feed's
announcements, the bounds on waiting requests and the readiness probe each ask here. A client
never crosses a fork (gunicorn's and Celery's prefork workers): a child starts with none and
makes its own, so no two processes ever share a socket.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import redis
from django.conf import settings

_clients: dict[tuple[str, tuple[tuple[str, Any], ...]], redis.Redis] = {}
_lock = threading.Lock()


def client(url: str, **options: Any) -> redis.Redis:
    """This process's client of ``url`` with ``options`` (`redis.Redis.from_url`'s)."""
    key = (url, tuple(sorted(options.items())))
    found = _clients.get(key)
    if found is None:
        with _lock:
            found = _clients.get(key)
            if found is None:
                found = _clients[key] = redis.Redis.from_url(url, **options)
    return found


def shared_url() -> str:
    """The URL of the service's shared Redis (scaled out); "" on the embedded default, which
    has none."""
    return str(settings.REDIS_URL)


def shared(**options: Any) -> redis.Redis | None:
    """This process's client of the service's shared Redis with ``options``; None on the
    embedded default."""
    url = shared_url()
    return client(url, **options) if url else None


def health() -> str:
    """For the readiness probe: "in-process" (no shared Redis), "ok" or "unreachable"."""
    found = shared(socket_connect_timeout=1, socket_timeout=1)
    if found is None:
        return "in-process"
    try:
        found.ping()
    except redis.RedisError:
        return "unreachable"
    return "ok"


def _forget_after_fork() -> None:
    # The parent's sockets stay the parent's; its lock may have been held by another thread
    # at the fork, so the child takes a fresh one.
    global _lock
    _clients.clear()
    _lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_after_fork)
