"""Requests in flight per account: however many requests one account sends at once, at most
API_MAX_IN_FLIGHT_PER_ACCOUNT of them (a platform: its own quota, games/api/quotas.py) are
served at a time by one server process; the others are refused at once (429 `throttled`,
Retry-After 1 s) rather than queued for a thread. A gunicorn process has GUNICORN_THREADS
threads: without this bound one account's burst of slow requests would hold all of them and
everyone else's requests would wait behind it.

Counted per process, in memory, as threads are: `InFlightThrottle` (one of DRF's throttles,
so it runs once the request's account is known) takes the account's place and
`InFlightMiddleware` gives it back when the response is made, however the request ended.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.http import HttpRequest, HttpResponseBase
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from games.api.quotas import quotas_of

# Where the account whose place a request holds is noted, on Django's request.
_HOLDER = "_batak_in_flight_account"
# What a refused request is told to wait: a request in flight ends within moments.
RETRY_AFTER_SECONDS = 1

_lock = threading.Lock()
_in_flight: Counter[int] = Counter()


def in_flight(account_id: int) -> int:
    with _lock:
        return _in_flight[account_id]


class InFlightThrottle(BaseThrottle):
    def allow_request(self, request: Request, view: Any) -> bool:
        user = request.user
        django_request = request._request
        if not user.is_authenticated or hasattr(django_request, _HOLDER):
            return True
        with _lock:
            if _in_flight[user.pk] >= quotas_of(request).requests_in_flight:
                return False
            _in_flight[user.pk] += 1
        setattr(django_request, _HOLDER, user.pk)
        return True

    def wait(self) -> float:
        return RETRY_AFTER_SECONDS


def release(request: HttpRequest) -> None:
    """Give back the place ``request`` holds, if it holds one (once)."""
    account_id = request.__dict__.pop(_HOLDER, None)
    if account_id is None:
        return
    with _lock:
        _in_flight[account_id] -= 1
        if _in_flight[account_id] <= 0:
            del _in_flight[account_id]


class InFlightMiddleware:
    """Gives back a request's place once its response is made (sync or async)."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> HttpResponseBase | Awaitable[HttpResponseBase]:
        if self.is_async:
            return self._call_async(request)
        try:
            response: HttpResponseBase = self.get_response(request)
            return response
        finally:
            release(request)

    async def _call_async(self, request: HttpRequest) -> HttpResponseBase:
        try:
            response: HttpResponseBase = await self.get_response(request)
            return response
        finally:
            release(request)
