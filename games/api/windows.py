"""Counts of tries in fixed windows, kept in the cache (in memory on the embedded default, Redis
scaled out): the log-in lock-out's (games/api/lockout.py) and the guest sign-ups' throttle.

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
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView


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


class WindowThrottle(SimpleRateThrottle):
    """A throttle of its ``scope``'s rate (none when it is unset), counted in a fixed window
    with `take`: DRF's own throttles read their history, then write it, and let a burst of
    requests all through."""

    scope: str

    def get_rate(self) -> str | None:
        return self.THROTTLE_RATES.get(self.scope)

    def allow_request(self, request: Request, view: APIView) -> bool:
        limit, seconds = self.parse_rate(self.rate)
        if limit is None or seconds is None:
            return True
        self._wait = take(self.counted_as(request), limit, seconds)
        return self._wait is None

    def counted_as(self, request: Request) -> str:
        """Whose tries are counted together."""
        raise NotImplementedError

    def wait(self) -> float | None:
        return self._wait


class GuestSignUpThrottle(WindowThrottle):
    """New guest accounts per client address: the `guest` rate (GUEST_CREATION_RATE). Each
    account has its own caps (matches, streams, waits); without this one client would make as
    many accounts as it likes, and every cap with them."""

    scope = "guest"

    def counted_as(self, request: Request) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class DataExportThrottle(WindowThrottle):
    """Exports of one's data per account: the `export` rate (DATA_EXPORT_RATE). An export
    reads every match the person played: a long history is seconds of the database's time,
    fine a few times a day, not in a loop."""

    scope = "export"

    def counted_as(self, request: Request) -> str:
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}
