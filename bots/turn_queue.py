"""Computer players' turns shared fairly between accounts, in front of the Celery workers.

Scaled out, a turn to play (a match at a version) waits in Redis in its account's list: a
match's account is its creator, so a platform's matches all count as the platform's one
account. Accounts with turns waiting are ranked by the worker time they have used (a sorted
set, start-time fair queueing): a worker takes the next turn of the account that used least,
and charges that account what the turn cost. An account that comes back after a pause starts
level with the turn taken last, not with the credit of its pause, so a flood from one account
is served from the workers' spare time and everyone else's turns go first. The broker carries
only tokens (`bots.tasks.play_next_turn`, one per turn queued): which turn a token plays is
decided when a worker takes it.

No turn is lost and none is played twice. The turn a token took is noted under the token's
task id until it is played: a token redelivered after its worker died (acks late), or retried
after a database error, plays that same turn again. A turn whose token is lost for good (Redis
restarted empty) is found by the sweeper (games/sweeper.py), which sends it again. Every move
is made only at the version it was decided for (games/computer_moves.py), so a copy of a turn
changes nothing. A turn is queued with the trace of what made it (its `traceparent`,
games/traces.py), and played in that trace by whichever worker takes it. The embedded default
has no Redis: its computer players play in the request or on their lane (bots/interface.py), in
the order sent.
"""

from __future__ import annotations

import dataclasses

import redis
from django.conf import settings
from kombu.exceptions import OperationalError as BrokerUnavailable

from games import redis_clients, traces, windows

# A token plays on (the next computer player of its match, and the next) for this long before
# it lets a waiting turn go first: the most another turn waits behind a running one, past one
# move. The three moves of a Medium turn fit in it even on a busy machine, one or two Hard
# searches fill it. At 0.1 s busy machines split people's Medium turns too, and each part
# queued again behind everyone: their turnaround p95 tripled with no flood at all.
SLICE_SECONDS = 0.25
# An account whose previous turn cost its worker this much or more (a whole slice of Hard
# searches, a table of computer players alone) gets no slice: while another turn waits, its
# token hands on after each move. A turn waiting for a worker then waits for one move at most,
# not for a slice: beside 4 accounts playing Hard players flat out, other people's turns
# waited p95 0.41 s for a worker with the slice, 0.19 s without. People's Medium turns cost
# 0.03-0.14 s on a busy 2-core machine and keep their slice.
HEAVY_TURN_SECONDS = 0.1
# The worker time charged to an account when one of its turns is taken, before its cost is
# known: the cost of its previous turn, or this for an account new to the queue.
FIRST_COST_SECONDS = 0.05
# What the queue remembers of an account after its last turn: its charge is only ever compared
# with the turns of the last minutes (an account away longer comes back level anyway).
USED_SECONDS = 3600
# How long a token's turn stays noted under its id: beyond its retries and time limits.
CLAIM_SECONDS = 300

# KEYS: the account's list of turns, the ranking, the time of the turn taken last, the
# account's charge. ARGV: the turn, the account, USED_SECONDS.
_PUSH = """
redis.call('RPUSH', KEYS[1], ARGV[1])
if not redis.call('ZSCORE', KEYS[2], ARGV[2]) then
  local clock = tonumber(redis.call('GET', KEYS[3]) or '0')
  local used = tonumber(redis.call('GET', KEYS[4]) or '0')
  redis.call('ZADD', KEYS[2], math.max(clock, used), ARGV[2])
end
redis.call('EXPIRE', KEYS[4], ARGV[3])
return 1
"""
# KEYS: the token's claim, the ranking, the time of the turn taken last. ARGV: the keys'
# prefix, CLAIM_SECONDS, USED_SECONDS, FIRST_COST_SECONDS. Answers "account turn charged".
_TAKE = """
local claimed = redis.call('GET', KEYS[1])
if claimed then return claimed end
while true do
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  if #first == 0 then return false end
  local account, start = first[1], tonumber(first[2])
  local turns = ARGV[1] .. ':turns:' .. account
  local turn = redis.call('LPOP', turns)
  local last = tonumber(redis.call('GET', ARGV[1] .. ':last:' .. account) or ARGV[4])
  local used = ARGV[1] .. ':used:' .. account
  redis.call('SET', used, start + last, 'EX', ARGV[3])
  if redis.call('LLEN', turns) == 0 then
    redis.call('ZREM', KEYS[2], account)
  else
    redis.call('ZADD', KEYS[2], start + last, account)
  end
  if tonumber(redis.call('GET', KEYS[3]) or '0') < start then
    redis.call('SET', KEYS[3], start)
  end
  if turn then
    local answer = account .. ' ' .. turn .. ' ' .. last
    redis.call('SET', KEYS[1], answer, 'EX', ARGV[2])
    return answer
  end
end
"""
# KEYS: the token's claim, the ranking. ARGV: the keys' prefix, the account, what the turn
# cost, what was charged for it, USED_SECONDS.
_DONE = """
redis.call('DEL', KEYS[1])
local correction = tonumber(ARGV[3]) - tonumber(ARGV[4])
local used = ARGV[1] .. ':used:' .. ARGV[2]
if redis.call('EXISTS', used) == 1 then redis.call('INCRBYFLOAT', used, correction) end
if redis.call('ZSCORE', KEYS[2], ARGV[2]) then
  redis.call('ZINCRBY', KEYS[2], correction, ARGV[2])
end
redis.call('SET', ARGV[1] .. ':last:' .. ARGV[2], ARGV[3], 'EX', ARGV[5])
return 1
"""


@dataclasses.dataclass(frozen=True)
class Turn:
    """A turn a token took: the computer players of ``match_id`` from ``version`` on."""

    account: int
    match_id: str
    version: int
    # Worker time charged to the account when it was taken (corrected by `done`).
    charged: float
    # The trace of the move that made the turn ("" when none was recorded).
    traceparent: str = ""


def slice_for(turn: Turn) -> float:
    """How long ``turn``'s token plays on while other turns wait: a slice, or none for an
    account whose previous turn was heavy (HEAVY_TURN_SECONDS)."""
    return SLICE_SECONDS if turn.charged < HEAVY_TURN_SECONDS else 0.0


def push(account: int, match_id: str, version: int) -> None:
    """Queue the turn in its account's list, in the current trace; BrokerUnavailable when
    Redis does not answer (what the callers already expect of the broker)."""
    turn = f"{match_id} {version} {traces.traceparent()}".rstrip()
    _call(
        "eval", _PUSH, 4, _key("turns", account), _key("ready"), _key("clock"),
        _key("used", account), turn, account, USED_SECONDS,
    )


def take(token: str) -> Turn | None:
    """The turn that token ``token`` plays: the one it took before (a redelivered or retried
    token), else the next turn of the account that used the workers least; None when no turn
    waits."""
    answer = _call(
        "eval", _TAKE, 3, _key("claim", token), _key("ready"), _key("clock"),
        _prefix(), CLAIM_SECONDS, USED_SECONDS, FIRST_COST_SECONDS,
    )
    if answer is None:
        return None
    assert isinstance(answer, bytes)
    # A turn queued without a trace has no `traceparent` between its version and its charge.
    account, match_id, version, *traceparent, charged = answer.decode().split()
    return Turn(int(account), match_id, int(version), float(charged), "".join(traceparent))


def done(token: str, turn: Turn, cost: float) -> None:
    """Token ``token`` has played ``turn``, which took ``cost`` seconds of its worker: the
    claim goes, and the account is charged what the turn really cost."""
    _call(
        "eval", _DONE, 2, _key("claim", token), _key("ready"),
        _prefix(), turn.account, cost, turn.charged, USED_SECONDS,
    )


def waiting() -> bool:
    """Whether any account has a turn waiting for a worker (its own other matches count)."""
    return bool(_call("exists", _key("ready")))


def _prefix() -> str:
    # The queue's name and the database: an account is a row of one database, and deployments
    # (or test runs) may share a Redis, each with its queue.
    return f"batak:turns:{settings.CELERY_TASK_DEFAULT_QUEUE}:{windows.accounts_scope()}"


def _key(kind: str, name: object = None) -> str:
    return f"{_prefix()}:{kind}" if name is None else f"{_prefix()}:{kind}:{name}"


def _call(command: str, *args: object) -> object:
    client = redis_clients.client(settings.REDIS_URL, socket_connect_timeout=0.5,
                                  socket_timeout=2)
    try:
        return getattr(client, command)(*args)
    except redis.RedisError as error:
        raise BrokerUnavailable(str(error)) from error
