"""Throttles counted in a fixed window (runtime/windows.py): new accounts per client address,
data exports per account."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle

from runtime.windows import account_key, take

if TYPE_CHECKING:
    from rest_framework.views import APIView


class WindowThrottle(SimpleRateThrottle):
    """A throttle of its ``scope``'s rate (none when it is unset), counted in a fixed window
    with `take`: DRF's own throttles read their history, then write it, and let a burst of
    requests all through."""

    scope: str

    def get_rate(self) -> str | None:
        return self.THROTTLE_RATES.get(self.scope)

    def allow_request(self, request: Request, view: APIView) -> bool:
        limit, seconds = self.parse_rate(self.rate)
        if limit is None or seconds is None or not does_work(request, view):
            return True
        self._wait = take(self.counted_as(request), limit, seconds)
        return self._wait is None

    def counted_as(self, request: Request) -> str:
        """Whose tries are counted together."""
        raise NotImplementedError

    def wait(self) -> float | None:
        return self._wait


def does_work(request: Request, view: APIView) -> bool:
    """Whether the request is one the view serves (a HEAD is its GET); a preflight (OPTIONS)
    or a method it refuses (405) uses up nobody's quota."""
    method = (request.method or "").lower()
    return method != "options" and method in view.http_method_names and hasattr(view, method)


class SignUpThrottle(WindowThrottle):
    """New accounts per client address, guests and registered alike: the `guest` rate
    (GUEST_CREATION_RATE). Each account has its own caps (matches, streams, waits, hints);
    without this one client would make as many accounts as it likes, and every cap with
    them."""

    scope = "guest"

    def counted_as(self, request: Request) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class DataExportThrottle(WindowThrottle):
    """Exports of one's data per account: the `export` rate (DATA_EXPORT_RATE). An export
    reads every match the person played: a long history is seconds of the database's time,
    fine a few times a day, not in a loop."""

    scope = "export"

    def counted_as(self, request: Request) -> str:
        account = request.user.pk
        assert account is not None  # the view is for people signed in, checked before throttles
        return self.cache_format % {"scope": self.scope, "ident": account_key(account)}
