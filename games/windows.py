"""Counts of tries in fixed windows, kept in the cache (in memory on the embedded default, Redis
scaled out): the log-in lock-out's (games/api/lockout.py), the guest sign-ups' throttle
(games/api/windows.py) and the hints' rate (games/hints.py).

A try takes its place in the count before the work it limits, with one atomic step (`add` for
the first of a window, `incr` for the others; both atomic in memory and on Redis, see
batak_api/cache.py): of many requests at once, exactly ``limit`` get a place, and the others
are refused without doing the work. A read, then a write of the new count, would let them all
read the same count and all go ahead.
"""

from __future__ import annotations

import contextlib
import time

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
