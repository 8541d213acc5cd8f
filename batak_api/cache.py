"""Django's Redis cache, made to fail open.

The cache holds only what can be lost: API throttling counters, the log-in lock-out's counts and
the bot sweeper's notes. When Redis is unreachable, serving a person's move unthrottled is better
than refusing it with a 500, so here a Redis error reads as a miss and a write is dropped. After
an error Redis is left alone for a moment, so an outage costs each request nothing rather than a
connect timeout per call.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import redis
from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import RedisError

from runtime import redis_clients

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 1.0


# INCRBY of a key that exists, in one step. Django's EXISTS, then INCRBY, would make a key
# that never expires of one that expired between the two (a log-in lock-out for good).
INCREMENT_EXISTING = (
    "if redis.call('exists', KEYS[1]) == 1 then return redis.call('incrby', KEYS[1], ARGV[1]) end"
)


class FailOpenRedisCacheClient(RedisCacheClient):
    _down_until = 0.0

    def __init__(self, servers: list[str], **options: Any) -> None:
        super().__init__(servers, **options)
        # The settings' OPTIONS (timeouts), for the process's shared client.
        self._url = servers[0]
        self._options = {k: v for k, v in options.items() if k not in ("serializer", "pool_class")}

    def get_client(self, key: Any = None, *, write: bool = False) -> redis.Redis:
        # The process's one client of the cache's one server (Django's makes a client per call,
        # and a pool per thread).
        return redis_clients.client(self._url, **self._options)

    def _guard(self, method: str, fallback: Any, *args: Any) -> Any:
        return self._safely(getattr(super(), method), fallback, *args)

    def _safely(self, call: Callable[..., Any], fallback: Any, *args: Any) -> Any:
        if time.monotonic() < self._down_until:
            return fallback
        try:
            return call(*args)
        except RedisError as error:
            # One warning per pause: an outage would otherwise log a line per request.
            logger.warning("cache unavailable, going on without it: %s", error)
            self._down_until = time.monotonic() + RETRY_AFTER_SECONDS
            return fallback

    def get(self, key: Any, default: Any) -> Any:
        return self._guard("get", default, key, default)

    def get_many(self, keys: Any) -> dict[Any, Any]:
        return self._guard("get_many", {}, keys)

    def has_key(self, key: Any) -> bool:
        return self._guard("has_key", False, key)

    def add(self, key: Any, value: Any, timeout: Any) -> bool:
        return self._guard("add", False, key, value, timeout)

    def set(self, key: Any, value: Any, timeout: Any) -> None:
        self._guard("set", None, key, value, timeout)

    def set_many(self, data: Any, timeout: Any) -> None:
        self._guard("set_many", None, data, timeout)

    def touch(self, key: Any, timeout: Any) -> bool:
        return self._guard("touch", False, key, timeout)

    def delete(self, key: Any) -> bool:
        return self._guard("delete", False, key)

    def delete_many(self, keys: Any) -> None:
        self._guard("delete_many", None, keys)

    def incr(self, key: Any, delta: int) -> int:
        """As Django's, but atomic; with Redis unreachable, 0 (a count that limits nothing)."""
        client = self.get_client(key, write=True)
        value = self._safely(client.eval, 0, INCREMENT_EXISTING, 1, key, delta)
        if value is None:
            raise ValueError(f"Key '{key}' not found.")
        return int(value)


class FailOpenRedisCache(RedisCache):
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = FailOpenRedisCacheClient
