"""The server time of each API request, charged to whoever pays for it (games/server_time.py),
and the refusal of an account past its budget (429 `server_time_exhausted` with `Retry-After`).

`ServerTimeMiddleware` meters the view: the CPU of the thread that runs it, from the URL
resolved to the answer made (authentication, throttles, the handler, its queries' client side).
It calls the view itself, from its `process_view`, the last of the middleware's: Django runs a
sync `process_view` in the thread that runs sync views, on either server (gunicorn's thread,
uvicorn's thread for sync code), so the thread's CPU clock counts this request's work alone.
Async views (the stream server's streams) are left to Django, unmetered: a stream's CPU is
bounded by the streams an account may hold. `ServerTimeThrottle`, one of DRF's throttles, runs
once the request's account is known and refuses it while its payers are past their refusal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from asgiref.sync import iscoroutinefunction
from django.conf import settings
from django.http import HttpRequest, HttpResponseBase
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from games import server_time
from games.errors import ServerTimeExhausted


class ServerTimeThrottle(BaseThrottle):
    def allow_request(self, request: Request, view: Any) -> bool:
        user = request.user
        if user.is_authenticated:
            wait = server_time.refusal(server_time.payers(user.pk))
            if wait > 0:
                raise ServerTimeExhausted(retry_after=max(1, int(wait + 0.999)))
        return True


class ServerTimeMiddleware:
    """Meters each API request's view (see the module); the last of the middleware."""

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> Any:
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view: Callable[..., Any], args: Any,
                     kwargs: Any) -> HttpResponseBase | None:
        if (settings.SERVER_TIME_PER_ACCOUNT is None
                or not request.path_info.startswith(tuple(settings.API_PATH_PREFIXES))
                or iscoroutinefunction(view)):
            return None
        with server_time.metered(lambda: _payers(request)):
            response: HttpResponseBase = view(request, *args, **kwargs)
        return response


def _payers(request: HttpRequest) -> tuple[server_time.Payer, ...]:
    user = request.__dict__.get("user")  # set by DRF once it authenticated the request
    return server_time.payers(user.pk) if user is not None and user.is_authenticated else ()
