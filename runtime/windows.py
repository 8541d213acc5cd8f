"""Counts of tries in fixed windows, kept in the cache (in memory on the embedded default, Redis
scaled out): the log-in lock-out's (games/api/lockout.py), the guest sign-ups' and data
exports' throttles (games/api/windows.py) and the hints' rate (games/hints.py).

A try takes its place in the count before the work it limits, with one atomic step (`add` for
the first of a window, `incr` for the others; both atomic in memory and on Redis, see
batak_api/cache.py): of many requests at once, exactly ``limit`` get a place, and the others
are refused without doing the work. A read, then a write of the new count, would let them all
read the same count and all go ahead.
"""

from __future__ import annotations

import contextlib
import time

from django.conf import settings
from django.core.cache import cache


def take(key: str, limit: int, seconds: int) -> int | None:
    """Count one more try under ``key``, whose window is ``seconds`` long from its first try.
    None when the try has its place (at most ``limit`` of a window); otherwise the count is
    as it was, and the answer is the seconds until the window ends."""
    now = time.time()
    cache.add(f"{key}:ends", now + seconds, seconds)
    count = _count(key, seconds)
    if count <= limit:
        return None
    give_back(key)
    ends = cache.get(f"{key}:ends", now + seconds)
    return max(1, int(ends - now) + 1)


def take_in_clock_window(key: str, limit: int, seconds: int) -> tuple[int, int]:
    """Count one more try under ``key`` in the window of the clock it falls in (a minute from
    :00 for 60 seconds): one step, with no note of when a window began, so it suits a count kept
    on every request. The answer: the tries left in this window after this one (negative when
    it is over ``limit``, and then not counted), and the seconds until the window ends."""
    now = time.time()
    window = int(now // seconds)
    ends_in = max(1, int((window + 1) * seconds - now + 0.999))
    windowed = f"{key}:{window}"
    count = _count(windowed, seconds)
    if count > limit:
        give_back(windowed)
    return limit - count, ends_in


def give_back(key: str) -> None:
    """Uncount a try that took its place (it turned out not to count: a log-in that
    succeeded)."""
    with contextlib.suppress(ValueError):  # its window ended meanwhile
        cache.decr(key)


def forget(key: str) -> None:
    cache.delete_many([key, f"{key}:ends"])


def _count(key: str, seconds: int) -> int:
    while not cache.add(key, 1, seconds):
        try:
            return cache.incr(key)
        except ValueError:  # the window ended between the two steps: this try starts the next
            continue
    return 1


def accounts_scope() -> str:
    """Whose accounts: an account is a row of one database, and deployments (or test runs) may
    share a Redis with databases of their own, whose ids are the same numbers."""
    database = settings.DATABASES["default"]
    return f"{database.get('HOST') or ''}/{database['NAME']}"


def account_key(account: int) -> str:
    """An account's part of a key kept in a cache that other databases' accounts may share."""
    return f"{accounts_scope()}/{account}"


def parse_rate(rate: str) -> tuple[int, int]:
    """A rate as its settings give it, `count/period` (`20/minute`: second, minute, hour or day,
    read by their first letter as DRF reads them), as (count, seconds); ValueError otherwise."""
    count, _, period = rate.partition("/")
    seconds = {"s": 1, "m": 60, "h": 3600, "d": 86400}.get(period[:1])
    if not count.isdigit() or int(count) < 1 or seconds is None or not period.isalpha():
        raise ValueError(f"a rate is a count and a period (20/minute), not {rate!r}")
    return int(count), seconds
