"""Failed log-ins, counted per account and per client address in the cache (in memory on the
embedded default, Redis scaled out), in every configuration: after LOGIN_FAILURES_PER_ACCOUNT
failures for one username, or LOGIN_FAILURES_PER_ADDRESS from one address, within
LOGIN_LOCKOUT_SECONDS, log-in is refused (429 `login_locked`, with `Retry-After`) until the
window has passed; even the right password waits. A successful log-in clears its account's
count."""

from __future__ import annotations

import time

from django.conf import settings
from django.core.cache import cache
from django.utils.translation import gettext_lazy as _
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from games.errors import ServiceError


class LoginLocked(ServiceError):
    status = 429
    code = "login_locked"
    default_detail = _("Too many failed log-ins; wait before trying again.")


def _keys(request: Request, username: str) -> list[tuple[str, int]]:
    address = BaseThrottle().get_ident(request)
    return [
        (f"login-failures:account:{username.lower()}", settings.LOGIN_FAILURES_PER_ACCOUNT),
        (f"login-failures:address:{address}", settings.LOGIN_FAILURES_PER_ADDRESS),
    ]


def check(request: Request, username: str) -> None:
    """Raise `LoginLocked` while the account or the address is locked out."""
    now = time.time()
    for key, limit in _keys(request, username):
        failures, since = cache.get(key, (0, now))
        if failures >= limit:
            wait = int(since + settings.LOGIN_LOCKOUT_SECONDS - now) + 1
            if wait > 0:
                raise LoginLocked(retry_after=wait)


def failed(request: Request, username: str) -> None:
    now = time.time()
    for key, _limit in _keys(request, username):
        failures, since = cache.get(key, (0, now))
        cache.set(key, (failures + 1, since), settings.LOGIN_LOCKOUT_SECONDS)


def succeeded(request: Request, username: str) -> None:
    cache.delete(_keys(request, username)[0][0])
