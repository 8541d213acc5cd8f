"""The guest sign-ups' throttle, counted in a fixed window (games/windows.py)."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

from games.windows import take


class GuestSignUpThrottle(SimpleRateThrottle):
    """New guest accounts per client address: the `guest` rate (GUEST_CREATION_RATE), none
    when it is unset. Each account has its own caps (matches, streams, waits); without this
    one client would make as many accounts as it likes, and every cap with them. Counted in a
    fixed window with `take`: DRF's own throttles read their history, then write it, and let
    a burst of requests all through."""

    scope = "guest"

    def get_rate(self) -> str | None:
        return self.THROTTLE_RATES.get(self.scope)

    def get_cache_key(self, request: Request, view: APIView) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}

    def allow_request(self, request: Request, view: APIView) -> bool:
        limit, seconds = self.parse_rate(self.rate)
        if limit is None or seconds is None:
            return True
        self._wait = take(self.get_cache_key(request, view), limit, seconds)
        return self._wait is None

    def wait(self) -> float | None:
        return self._wait
