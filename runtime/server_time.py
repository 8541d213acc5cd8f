"""Each account's server time, held to its budget: the CPU its requests take in the web
processes and its computer players' turns take in the workers (games/server_time.py says who
pays what and how much each may use).

An account's use is a leaky bucket (the generic cell rate algorithm, as redis-cell and most
API gateways keep it): one number per account, the moment its bucket would be empty, moved on
by each charge by the charge's seconds over the budget's rate. The bucket holds what the
budget gives in `BURST_SECONDS`: an account may use that much at once and its budget's rate
from then on, and what it used drains at that rate, so the wait it is told is exact rather
than the end of a fixed window (its server time over any stretch of T seconds is at most the
budget's rate times T + BURST_SECONDS). Past a full bucket its computer players' turns wait
(`deferral`: the seconds until it is within its budget again), past two (a client flooding
requests while its turns wait) its requests are refused (`refusal`).

Scaled out the buckets are in Redis (one key per account, moved on by a Lua script on Redis's
clock), so every process charges and reads the same bucket; on the embedded default, in this
process's memory. A charge answers the bucket as it left it, and each process keeps what it
last heard of the account's buckets: a check reads that and never waits on Redis, so a process
learns of another's charges (a worker's turns) at its own next charge of the account.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Sequence

import redis
from redis.commands.core import Script

from runtime import redis_clients, windows

logger = logging.getLogger(__name__)

# What a bucket holds: what its budget gives in this long. A person's play comes in bursts (a
# few quick cards, then a think), which it covers; a flood's first burst is all it gets at once.
BURST_SECONDS = 20.0
# Past this many full buckets, requests are refused (turns wait from one).
REFUSED_PAST = 2.0


@dataclasses.dataclass(frozen=True)
class Payer:
    """An account charged for server time, and how many seconds of it a minute it may use."""

    account: int
    seconds_per_minute: float

    @property
    def seconds_per_charged_second(self) -> float:
        """How far a second of server time moves the bucket's empty moment on."""
        return 60.0 / self.seconds_per_minute


# ARGV: the keys' prefix, then for each payer its account and how far to move its bucket on.
# Answers, for each, how far ahead of Redis's clock its bucket now empties (a string).
_CHARGE = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local ahead = {}
for i = 2, #ARGV, 2 do
  local key = ARGV[1] .. ARGV[i]
  local empties = math.max(tonumber(redis.call('GET', key) or '0'), now) + tonumber(ARGV[i + 1])
  redis.call('SET', key, tostring(empties), 'PX', math.ceil((empties - now) * 1000) + 1000)
  table.insert(ahead, tostring(empties - now))
end
return ahead
"""

_lock = threading.Lock()
# account -> the monotonic moment its bucket empties, as this process last heard (on the
# embedded default: the bucket itself).
_empties: dict[int, float] = {}


def charge(payers: Sequence[Payer], seconds: float) -> None:
    """Charge each of ``payers`` ``seconds`` of server time."""
    if not payers or seconds <= 0:
        return
    client = redis_clients.shared(socket_connect_timeout=0.5, socket_timeout=1)
    now = time.monotonic()
    if client is None:
        with _lock:
            for payer in payers:
                empties = max(_empties.get(payer.account, now), now)
                _empties[payer.account] = empties + seconds * payer.seconds_per_charged_second
        return
    arguments: list[str | int | float] = [_prefix()]
    for payer in payers:
        arguments += [payer.account, seconds * payer.seconds_per_charged_second]
    try:
        answer = _script(client)(args=arguments)
    except redis.RedisError:
        # Fail open, as the other per-account bounds do: the charge is lost, not the request.
        logger.warning("server time not charged: Redis unavailable")
        return
    with _lock:
        for payer, ahead in zip(payers, answer, strict=True):
            _empties[payer.account] = now + float(ahead)


def deferral(payers: Sequence[Payer]) -> float:
    """Seconds until every one of ``payers`` is within its budget (0: now)."""
    return _past(payers, 1.0)


def refusal(payers: Sequence[Payer]) -> float:
    """Seconds until none of ``payers`` is past `REFUSED_PAST` full buckets (0: now)."""
    return _past(payers, REFUSED_PAST)


def forget() -> None:
    """Forget what this process knows of every bucket (tests; on the embedded default, the
    buckets themselves)."""
    with _lock:
        _empties.clear()


def _past(payers: Sequence[Payer], buckets: float) -> float:
    now = time.monotonic()
    with _lock:
        return max([0.0, *(_empties.get(payer.account, now) - now - buckets * BURST_SECONDS
                           for payer in payers)])


# The charge's script, registered with this process's client (EVALSHA: its body goes once).
_registered: tuple[redis.Redis, Script] | None = None


def _script(client: redis.Redis) -> Script:
    global _registered
    if _registered is None or _registered[0] is not client:
        _registered = (client, client.register_script(_CHARGE))
    return _registered[1]


def _prefix() -> str:
    # Accounts are rows of one database; deployments (or test runs) may share a Redis.
    return f"batak:server-time:{windows.accounts_scope()}:"
