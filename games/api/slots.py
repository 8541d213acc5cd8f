"""Bounded waiting: how many requests that wait (event-feed long polls, live streams) one account
and one server process may hold at once.

A long poll holds one of the server's threads for up to its `wait`, and so does a stream on a
WSGI server (gunicorn): unbounded, one account's twenty long polls took every thread of a
process and a `/healthz` from someone else waited for them. So such a request first takes a
slot, and is refused at once (429 with Retry-After) where none is free, before it holds
anything:

- per process, counted in memory: LONG_POLL_MAX_PER_PROCESS requests waiting in a thread (long
  polls, and streams on a WSGI server), half of gunicorn's threads by default, so that the rest
  always serve everyone else; STREAM_MAX_PER_PROCESS open streams in all;
- per account: LONG_POLL_MAX_PER_ACCOUNT long polls and STREAM_MAX_PER_ACCOUNT streams (a
  platform: its own quotas, games/api/quotas.py). With
  Redis (scaled out, several processes) the count holds across processes: a sorted set per
  account and kind of the slots' ids, scored by when their lease lapses, so the slots of a
  process that died lapse by themselves; a slot held longer than its lease (a stream) renews
  it. On the embedded default (one process, no Redis) the count in memory is the whole count,
  and it is kept scaled out too, as the fallback when Redis does not answer (fail open, as the
  cache does: batak_api/cache.py).

A slot is given back exactly once (``release``): when its request's wait ends, however it ends.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from types import TracebackType

import redis
from django.conf import settings

from games.errors import ServerBusy, ServiceError, TooManyLongPolls, TooManyStreams
from games.metrics import OPEN_WAITS
from runtime import redis_clients, windows

logger = logging.getLogger(__name__)

LONG_POLLS = "long_polls"
STREAMS = "streams"
WAITING_THREADS = "waiting_threads"

# What a refused long poll is told to wait: slots free as waits end, within seconds.
LONG_POLL_RETRY_SECONDS = 5
# A long poll's slot outlives its wait by this much at most if its process dies.
LONG_POLL_LEASE_MARGIN_SECONDS = 30
# A stream's lease, in heartbeats. A lease is renewed once a third of it has run (a stream sends
# at least once a heartbeat), so a renewal may come late without the slot lapsing.
STREAM_LEASE_HEARTBEATS = 3
RENEWALS_PER_LEASE = 3
# After a Redis error the per-account count is this process's alone for this long.
REDIS_PAUSE_SECONDS = 1.0

# Slots held in this process: (kind, account) and the process-wide totals. Re-entrant: a
# collection that finalises a dropped response (and so releases its slot) may run while this
# thread holds the lock.
_held: Counter[Hashable] = Counter()
_lock = threading.RLock()


def held(kind: str, user_id: int | None = None) -> int:
    """Slots of ``kind`` held in this process: by the account, or in all."""
    with _lock:
        return _held[(kind, user_id) if user_id is not None else kind]


class Slot:
    """One wait of one account. Taken when made (or refused with the ``refusal`` error); a
    context manager that releases it on leaving."""

    def __init__(
        self, kind: str, user_id: int, *, per_account: int, in_process_per_account: int,
        process_bounds: Sequence[tuple[str, int]], lease_seconds: float,
        refusal: type[ServiceError], retry_after: int,
    ) -> None:
        self._keys: list[Hashable] = []
        self._lease: _Lease | None = None
        self._open = OPEN_WAITS.labels(kind=kind)
        bounds = [((kind, user_id), in_process_per_account), *process_bounds]
        with _lock:
            full = next((key for key, limit in bounds if _held[key] >= limit), None)
            if full is None:
                for key, _limit in bounds:
                    _held[key] += 1
                self._keys = [key for key, _limit in bounds]
                self._open.inc()
        # Raised outside the lock: making it may run a collection that releases a slot.
        if full is not None:
            raise (refusal if full == bounds[0][0] else ServerBusy)(retry_after=retry_after)
        if not redis_clients.shared_url():
            return
        lease = _Lease(kind, user_id, lease_seconds)
        try:
            taken = lease.take(per_account)
        except BaseException:
            self.release()
            raise
        if not taken:
            self.release()
            raise refusal(retry_after=retry_after)
        self._lease = lease

    def __enter__(self) -> Slot:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.release()

    def keep(self) -> None:
        """Renew the lease across processes when it is due (a long wait calls this as it goes)."""
        lease = self._lease
        if lease is not None and time.monotonic() >= lease.renew_at:
            lease.renew_at = time.monotonic() + lease.seconds / RENEWALS_PER_LEASE
            _off_the_loop(lease.renew)

    def release(self) -> None:
        with _lock:
            keys, self._keys = self._keys, []
            for key in keys:
                _held[key] -= 1
                if _held[key] <= 0:
                    del _held[key]
            if keys:
                self._open.dec()
            lease, self._lease = self._lease, None
        if lease is not None:
            _off_the_loop(lease.drop)


def _off_the_loop(call: Callable[[], None]) -> None:
    """Run a Redis call here, or in a thread when this thread runs an event loop (a stream's
    end on the ASGI server), which must never wait on Redis."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        call()
        return
    loop.run_in_executor(None, call)


def long_poll(user_id: int, wait: float, *, per_account: int) -> Slot:
    """A slot for a long poll that waits up to ``wait`` seconds, of the ``per_account`` its
    account may hold."""
    return Slot(
        LONG_POLLS, user_id,
        per_account=per_account,
        in_process_per_account=per_account,
        process_bounds=[(WAITING_THREADS, settings.LONG_POLL_MAX_PER_PROCESS)],
        lease_seconds=wait + LONG_POLL_LEASE_MARGIN_SECONDS,
        refusal=TooManyLongPolls, retry_after=LONG_POLL_RETRY_SECONDS,
    )


def stream(user_id: int, *, per_account: int, thread_per_stream: int | None) -> Slot:
    """A slot for a live stream, of the ``per_account`` its account may hold. On a server that
    holds a thread for it (``thread_per_stream``: the most an account may hold in one process
    there) it also waits in a thread, as a long poll does."""
    bounds = [(STREAMS, settings.STREAM_MAX_PER_PROCESS)]
    if thread_per_stream is not None:
        bounds.append((WAITING_THREADS, settings.LONG_POLL_MAX_PER_PROCESS))
    heartbeat = settings.STREAM_HEARTBEAT_SECONDS
    return Slot(
        STREAMS, user_id,
        per_account=per_account,
        in_process_per_account=min(per_account, thread_per_stream or per_account),
        process_bounds=bounds,
        lease_seconds=STREAM_LEASE_HEARTBEATS * heartbeat,
        refusal=TooManyStreams, retry_after=int(heartbeat),
    )


# --- across processes --------------------------------------------------------------------------

# Both atomic, on Redis's clock (the processes' clocks may differ). KEYS[1]: the account's slots
# of one kind, ARGV: the lease in seconds, the slot's id (and, to take one, the bound).
_TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[2])
redis.call('EXPIRE', KEYS[1], math.ceil(tonumber(ARGV[1])))
return 1
"""
_RENEW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
if redis.call('ZADD', KEYS[1], 'XX', 'CH', now + tonumber(ARGV[1]), ARGV[2]) == 1 then
  redis.call('EXPIRE', KEYS[1], math.ceil(tonumber(ARGV[1])))
end
return 1
"""


class _Lease:
    """A slot's place in its account's count across processes, in Redis."""

    def __init__(self, kind: str, user_id: int, seconds: float) -> None:
        self.key = f"batak:slots:{windows.accounts_scope()}:{kind}:{user_id}"
        self.id = uuid.uuid4().hex
        self.seconds = seconds
        self.renew_at = time.monotonic() + seconds / RENEWALS_PER_LEASE

    def take(self, limit: int) -> bool:
        """Whether the account had a slot free (and now holds it); True when Redis does not
        answer."""
        answer = _call("eval", _TAKE, 1, self.key, self.seconds, self.id, limit)
        return answer is None or bool(answer)

    def renew(self) -> None:
        _call("eval", _RENEW, 1, self.key, self.seconds, self.id)

    def drop(self) -> None:
        _call("zrem", self.key, self.id)


_down_until = 0.0


def _call(command: str, *args: object) -> object:
    """A Redis command's answer; None when it failed (logged once a pause)."""
    global _down_until
    if time.monotonic() < _down_until:
        return None
    # The cache's short timeouts: admitting a request must not wait on a Redis that does not
    # answer.
    client = redis_clients.shared(socket_connect_timeout=0.5, socket_timeout=0.5)
    if client is None:
        return None
    try:
        return getattr(client, command)(*args)
    except redis.RedisError as error:
        logger.warning("slot counts across processes unavailable, counting here: %s", error)
        _down_until = time.monotonic() + REDIS_PAUSE_SECONDS
        return None
