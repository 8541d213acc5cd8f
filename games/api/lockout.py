"""Failed log-ins, counted per account and per client address in the cache (in memory on the
embedded default, Redis scaled out), in every configuration: after LOGIN_FAILURES_PER_ACCOUNT
failures for one username, or LOGIN_FAILURES_PER_ADDRESS from one address, within a window of
LOGIN_LOCKOUT_SECONDS from the first, log-in is refused (429 `login_locked`, with `Retry-After`)
until the window has passed; even the right password waits. A successful log-in clears its
account's count.

A try is counted before its password is checked, and uncounted if it was right: so however
many arrive at once, no more than the limit are ever checked."""

from __future__ import annotations

from django.conf import settings
from django.utils.translation import gettext_lazy as _
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from games.errors import ServiceError
from runtime import windows


class LoginLocked(ServiceError):
    status = 429
    code = "login_locked"
    default_detail = _("Too many failed log-ins; wait before trying again.")


def _keys(request: Request, username: str) -> list[tuple[str, int]]:
    address = BaseThrottle().get_ident(request)
    return [
        (f"login-tries:account:{username.lower()}", settings.LOGIN_FAILURES_PER_ACCOUNT),
        (f"login-tries:address:{address}", settings.LOGIN_FAILURES_PER_ADDRESS),
    ]


def attempt(request: Request, username: str) -> None:
    """Count this log-in in the account's and the address's windows before its password is
    checked; `LoginLocked`, counting nothing, when either holds its limit already. Of many
    tries at once no more than the limit reach a password check (runtime/windows.py)."""
    counted: list[str] = []
    for key, limit in _keys(request, username):
        wait = windows.take(key, limit, settings.LOGIN_LOCKOUT_SECONDS)
        if wait is not None:
            for earlier in counted:
                windows.give_back(earlier)
            raise LoginLocked(retry_after=wait)
        counted.append(key)


def succeeded(request: Request, username: str) -> None:
    """The right password: the account's count starts again, and the address's forgets this
    try (a failed one stays counted)."""
    (account, _limit), (address, _limit) = _keys(request, username)
    windows.forget(account)
    windows.give_back(address)
