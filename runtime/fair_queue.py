"""Work shared fairly between accounts: the one rule of every queue where one account's flood
could hold up everyone else's (computer players' turns, webhook deliveries, post-deal analyses).

Each account with work waiting is ranked by the worker time it has used (start-time fair
queueing): a worker takes the next item of the account that used least, charges that account
the cost of its previous item (FIRST_COST_SECONDS for an account new to the queue) and, once the
item is done, corrects the charge to what it really cost. An account that comes back after a
pause starts level with the item taken last, not with the credit of its pause, so a flood from
one account is served from the workers' spare time and everyone else's work goes first. One
account's items are taken in the order they were queued.

The rule has two stores. Scaled out, `FairQueue`: the items wait in Redis, in front of the
Celery workers, and the broker carries only tokens (one per item queued): which item a token
serves is decided when a worker takes it. The item a token took is noted under the token's task
id until it is done: a token redelivered after its worker died (acks late), or retried after a
database error, serves that same item again; each queue's work is idempotent, so a copy changes
nothing, and what a lost token left behind (Redis restarted empty) its sweep finds. On the
embedded default, `FairOrder`: the lanes' work waits in the serving process's memory
(runtime/lanes.py).
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Callable, Container, Hashable
from typing import Generic, TypeVar

import redis
from django.conf import settings
from kombu.exceptions import OperationalError as BrokerUnavailable

from runtime import redis_clients, windows

# The worker time charged to an account when one of its items is taken, before its cost is
# known: the cost of its previous item, or this for an account new to the queue.
FIRST_COST_SECONDS = 0.05
# What a queue remembers of an account after its last item: its charge is only ever compared
# with the items of the last minutes (an account away longer comes back level anyway).
USED_SECONDS = 3600
# How long a token's item stays noted under its id: beyond its retries and time limits.
CLAIM_SECONDS = 300

Item = TypeVar("Item")


class FairOrder(Generic[Item]):
    """The rule in this process's memory, for a lane of the embedded default; its lane holds
    its lock around every call. An account that has fallen level with the item taken last is
    forgotten: it comes back as one new to the queue."""

    def __init__(self) -> None:
        self._items: dict[Hashable, collections.deque[Item]] = {}
        # Of the accounts with items waiting: where each stands.
        self._ranking: dict[Hashable, float] = {}
        self._used: dict[Hashable, float] = {}
        self._last_cost: dict[Hashable, float] = {}
        self._clock = 0.0

    def __len__(self) -> int:
        return sum(len(items) for items in self._items.values())

    def accounts(self) -> list[Hashable]:
        """The accounts with items waiting."""
        return list(self._ranking)

    def push(self, account: Hashable, item: Item) -> None:
        self._items.setdefault(account, collections.deque()).append(item)
        if account not in self._ranking:
            self._ranking[account] = max(self._clock, self._used.get(account, 0.0))

    def take(self, busy: Container[Hashable] = ()) -> tuple[Hashable, Item, float] | None:
        """The next item of the account that used least, of those not ``busy`` (at the most
        items they may have under way): (its account, it, the charge)."""
        ready = [account for account in self._ranking if account not in busy]
        if not ready:
            return None
        account = min(ready, key=self._ranking.__getitem__)
        start = self._ranking[account]
        items = self._items[account]
        item = items.popleft()
        charged = self._last_cost.get(account, FIRST_COST_SECONDS)
        self._used[account] = start + charged
        if items:
            self._ranking[account] = start + charged
        else:
            del self._ranking[account], self._items[account]
        self._clock = max(self._clock, start)
        for level in [other for other, used in self._used.items()
                      if used <= self._clock and other not in self._ranking]:
            del self._used[level]
            self._last_cost.pop(level, None)
        return account, item, charged

    def done(self, account: Hashable, charged: float, cost: float) -> None:
        """An item of ``account`` charged ``charged`` took ``cost`` seconds of its thread."""
        correction = cost - charged
        if account in self._used:
            self._used[account] += correction
        if account in self._ranking:
            self._ranking[account] += correction
        self._last_cost[account] = cost


@dataclasses.dataclass(frozen=True)
class Taken:
    """An item a token took: ``item`` of ``account``, charged ``charged`` seconds when taken."""

    account: int
    item: str
    charged: float


# Queues an item of an account (used by the scripts below). ARGV of each script: the keys'
# prefix first.
_ENQUEUE = f"""
local function enqueue(prefix, account, item)
  redis.call('RPUSH', prefix .. ':items:' .. account, item)
  if not redis.call('ZSCORE', prefix .. ':ready', account) then
    local clock = tonumber(redis.call('GET', prefix .. ':clock') or '0')
    local used = tonumber(redis.call('GET', prefix .. ':used:' .. account) or '0')
    redis.call('ZADD', prefix .. ':ready', math.max(clock, used), account)
  end
  redis.call('EXPIRE', prefix .. ':used:' .. account, {USED_SECONDS})
end
local function now()
  local time = redis.call('TIME')
  return tonumber(time[1]) + tonumber(time[2]) / 1000000
end
"""
# ARGV: the prefix, the account, the item, the seconds before it is due. An item not due yet
# waits in `later` (one entry for an account's item however often it is queued) until a token
# looks after it is due.
_PUSH = _ENQUEUE + """
local delay = tonumber(ARGV[4])
if delay > 0 then
  redis.call('ZADD', ARGV[1] .. ':later', now() + delay, ARGV[2] .. ' ' .. ARGV[3])
else
  enqueue(ARGV[1], ARGV[2], ARGV[3])
end
return 1
"""
# ARGV: the prefix, the token, CLAIM_SECONDS, FIRST_COST_SECONDS, the items an account may have
# under way at once (0: no limit), the seconds an item counts as under way at most. Answers
# "account item charged". An account at its limit is passed over; its items under way are
# noted, by token, in `running` until done or for that long (a worker killed mid-item gives
# its place back).
_TAKE = _ENQUEUE + f"""
local prefix = ARGV[1]
local claim = prefix .. ':claim:' .. ARGV[2]
local limit = tonumber(ARGV[5])
local claimed = redis.call('GET', claim)
if claimed then return claimed end
local time = now()
for _, entry in ipairs(redis.call('ZRANGEBYSCORE', prefix .. ':later', '-inf', time)) do
  local space = string.find(entry, ' ', 1, true)
  enqueue(prefix, string.sub(entry, 1, space - 1), string.sub(entry, space + 1))
  redis.call('ZREM', prefix .. ':later', entry)
end
local passed = 0
while true do
  local first = redis.call('ZRANGE', prefix .. ':ready', passed, passed, 'WITHSCORES')
  if #first == 0 then return false end
  local account, start = first[1], tonumber(first[2])
  local running = prefix .. ':running:' .. account
  if limit > 0 then redis.call('ZREMRANGEBYSCORE', running, '-inf', time) end
  if limit > 0 and redis.call('ZCARD', running) >= limit then
    passed = passed + 1
  else
    local items = prefix .. ':items:' .. account
    local item = redis.call('LPOP', items)
    local last = tonumber(redis.call('GET', prefix .. ':last:' .. account) or ARGV[4])
    redis.call('SET', prefix .. ':used:' .. account, start + last, 'EX', {USED_SECONDS})
    if redis.call('LLEN', items) == 0 then
      redis.call('ZREM', prefix .. ':ready', account)
    else
      redis.call('ZADD', prefix .. ':ready', start + last, account)
    end
    if tonumber(redis.call('GET', prefix .. ':clock') or '0') < start then
      redis.call('SET', prefix .. ':clock', start)
    end
    if item then
      local answer = account .. ' ' .. item .. ' ' .. last
      redis.call('SET', claim, answer, 'EX', ARGV[3])
      if limit > 0 then
        redis.call('ZADD', running, time + tonumber(ARGV[6]), ARGV[2])
        redis.call('EXPIRE', running, math.ceil(tonumber(ARGV[6])))
      end
      return answer
    end
  end
end
"""
# ARGV: the prefix, the token, the account, what the item cost, what was charged for it.
# Answers how many of the account's items wait.
_DONE = f"""
local prefix = ARGV[1]
redis.call('DEL', prefix .. ':claim:' .. ARGV[2])
redis.call('ZREM', prefix .. ':running:' .. ARGV[3], ARGV[2])
local correction = tonumber(ARGV[4]) - tonumber(ARGV[5])
local used = prefix .. ':used:' .. ARGV[3]
if redis.call('EXISTS', used) == 1 then redis.call('INCRBYFLOAT', used, correction) end
if redis.call('ZSCORE', prefix .. ':ready', ARGV[3]) then
  redis.call('ZINCRBY', prefix .. ':ready', correction, ARGV[3])
end
redis.call('SET', prefix .. ':last:' .. ARGV[3], ARGV[4], 'EX', {USED_SECONDS})
return redis.call('LLEN', prefix .. ':items:' .. ARGV[3])
"""


# ARGV: the ready set, an account. How many other accounts have items waiting.
_OTHERS_READY = """
local others = redis.call('ZCARD', ARGV[1])
if redis.call('ZSCORE', ARGV[1], ARGV[2]) then others = others - 1 end
return others
"""


class FairQueue:
    """The rule in Redis, in front of the Celery workers of the queue named by the setting
    ``queue_setting``: its items, strings, wait in their account's list. With
    ``per_account_setting``, an account has at most that setting's number of items under way
    at once: a token passes over an account at its limit (its items wait here, costing the
    workers nothing), and the token that finishes one of its items sends another on for the
    rest (`done`). Every call raises BrokerUnavailable when Redis does not answer (what the
    callers already expect of the broker)."""

    def __init__(self, name: str, queue_setting: str, per_account_setting: str | None = None,
                 under_way_seconds: Callable[[], float] = lambda: CLAIM_SECONDS) -> None:
        self.name = name
        self._queue_setting = queue_setting
        self._per_account_setting = per_account_setting
        # How long an item taken counts as under way at most (its worker may have died).
        self._under_way_seconds = under_way_seconds

    @property
    def per_account(self) -> int:
        """How many items one account may have under way at once (0: as many as tokens)."""
        if self._per_account_setting is None:
            return 0
        return int(getattr(settings, self._per_account_setting))

    def push(self, account: int, item: str, delay: float = 0.0) -> None:
        """Queue ``item`` of ``account``, due in ``delay`` seconds."""
        self._call("eval", _PUSH, 0, self._prefix(), account, item, delay)

    def take(self, token: str) -> Taken | None:
        """The item that token ``token`` serves: the one it took before (a redelivered or
        retried token), else the next item of the account that used the workers least; None
        when no item is due."""
        answer = self._call("eval", _TAKE, 0, self._prefix(), token, CLAIM_SECONDS,
                            FIRST_COST_SECONDS, self.per_account, self._under_way_seconds())
        if answer is None:
            return None
        assert isinstance(answer, bytes)
        account, rest = answer.decode().split(" ", 1)
        item, charged = rest.rsplit(" ", 1)
        return Taken(int(account), item, float(charged))

    def done(self, token: str, account: int, charged: float, cost: float) -> bool:
        """Token ``token`` has served its item of ``account``, charged ``charged``, which took
        ``cost`` seconds of its worker: the claim goes, and the account is charged what the
        item really cost. True when the account has a limit and items waiting: tokens may have
        passed them over, so the caller sends one more."""
        waiting = self._call("eval", _DONE, 0, self._prefix(), token, account, cost, charged)
        return self.per_account > 0 and bool(waiting)

    def waiting(self, excluding: int | None = None) -> bool:
        """Whether any account (other than ``excluding``) has an item waiting for a worker."""
        ready = f"{self._prefix()}:ready"
        if excluding is None:
            return bool(self._call("exists", ready))
        return bool(self._call("eval", _OTHERS_READY, 0, ready, excluding))

    def _prefix(self) -> str:
        # The queue's name and the database: an account is a row of one database, and
        # deployments (or test runs) may share a Redis, each with its queues.
        queue = getattr(settings, self._queue_setting)
        return f"batak:{self.name}:{queue}:{windows.accounts_scope()}"

    def _call(self, command: str, *args: object) -> object:
        client = redis_clients.shared(socket_connect_timeout=0.5, socket_timeout=2)
        if client is None:
            raise BrokerUnavailable("no shared Redis")
        try:
            return getattr(client, command)(*args)
        except redis.RedisError as error:
            raise BrokerUnavailable(str(error)) from error
