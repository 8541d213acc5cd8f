"""An account's quotas, and the request rate told on every answer.

Every account has the same quotas (the settings': THROTTLE_USER_RATE,
API_MAX_IN_FLIGHT_PER_ACCOUNT, STREAM_MAX_PER_ACCOUNT, LONG_POLL_MAX_PER_ACCOUNT) but a partner
platform's, which staff set per platform: a platform follows hundreds of matches from one
account, so its credential (``request.auth``) carries its own `Quotas` (platforms/models.py).
The platforms app depends on this one, not the other way: any credential with a ``quotas``
attribute that is a `Quotas` brings its own.

The request rate is counted per account in a window of the clock (runtime/windows.py), one
step a request, and every answer to a counted request tells where the account stands, in the
IETF's RateLimit fields (draft-ietf-httpapi-ratelimit-headers):
``RateLimit-Policy: "requests";q=600;w=60`` and ``RateLimit: "requests";r=599;t=42`` — the
quota, the window, what is left of it and the seconds until it is whole again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase
from django.utils.deprecation import MiddlewareMixin
from rest_framework.request import Request

from games.api.windows import WindowThrottle, does_work
from games.quotas import Quotas
from runtime.windows import account_key, parse_rate, take_in_clock_window

if TYPE_CHECKING:
    from rest_framework.views import APIView

# The policy's name in the RateLimit fields.
POLICY = "requests"
# Where a counted request notes (quota, window, left, resets in) on Django's request.
_NOTED = "_batak_rate_limit"


def account_quotas() -> Quotas:
    """Every account's quotas, as the settings give them."""
    rate = WindowThrottle.THROTTLE_RATES.get(AccountRateThrottle.scope)
    return Quotas(
        requests=parse_rate(rate) if rate else None,
        requests_in_flight=settings.API_MAX_IN_FLIGHT_PER_ACCOUNT,
        streams=settings.STREAM_MAX_PER_ACCOUNT,
        long_polls=settings.LONG_POLL_MAX_PER_ACCOUNT,
    )


def quotas_of(request: Request) -> Quotas:
    """The quotas of the account a request is made for: its credential's own, or every
    account's."""
    own = getattr(request.auth, "quotas", None)
    return own if isinstance(own, Quotas) else account_quotas()


class AccountRateThrottle(WindowThrottle):
    """Requests per account and window (the `user` rate, THROTTLE_USER_RATE, or the
    credential's own quota); requests without an account are the `anon` throttle's."""

    scope = "user"

    def allow_request(self, request: Request, view: APIView) -> bool:
        account = request.user.pk
        rate = quotas_of(request).requests if account is not None else None
        if account is None or rate is None or not does_work(request, view):
            return True
        quota, seconds = rate
        key = self.cache_format % {"scope": self.scope, "ident": account_key(account)}
        left, resets_in = take_in_clock_window(key, quota, seconds)
        setattr(request._request, _NOTED, (quota, seconds, max(0, left), resets_in))
        self._wait = None if left >= 0 else resets_in
        return self._wait is None


class RateLimitFieldsMiddleware(MiddlewareMixin):
    """Adds the RateLimit fields to the answer of every request the account rate counted
    (sync or async: Django's mixin)."""

    def process_response(self, request: HttpRequest, response: HttpResponseBase
                         ) -> HttpResponseBase:
        noted = getattr(request, _NOTED, None)
        if noted is not None:
            quota, seconds, left, resets_in = noted
            response["RateLimit-Policy"] = f'"{POLICY}";q={quota};w={seconds}'
            response["RateLimit"] = f'"{POLICY}";r={left};t={resets_in}'
        return response
