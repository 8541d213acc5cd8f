"""The browser's middleware, skipped by the API's own callers.

Sessions, the session's user and messages serve the admin and the API's docs pages, and staff
trying the API from them with their browser session. Apps and platforms call the API with a
token or a key and no session cookie: for them the three did nothing a request could see (no
session to load, no user but the one DRF authenticates, no messages) but cost every request its
share of a move's milliseconds. So they are skipped for a request to the API
(`API_PATH_PREFIXES`) that carries no session cookie, and run for every other request exactly
as Django's own, in the same places of the stack. CSRF's and clickjacking's middleware stay
Django's own on every request: the API's views are exempt from CSRF, which leaves it a look at
a cookie, the header costs nothing, and `check --deploy` wants both by name.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth.middleware import AuthenticationMiddleware as DjangoAuthentication
from django.contrib.messages.middleware import MessageMiddleware as DjangoMessages
from django.contrib.sessions.middleware import SessionMiddleware as DjangoSessions
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse
from django.utils import translation

from games.api.problems import bad_request

# Where Django logs the Host headers it refuses.
_disallowed_host_logger = logging.getLogger("django.security.DisallowedHost")


def browserless(request: HttpRequest) -> bool:
    """An API request without a session: an app's, a platform's, or nobody's."""
    return (
        request.path_info.startswith(tuple(settings.API_PATH_PREFIXES))
        and settings.SESSION_COOKIE_NAME not in request.COOKIES
    )


class _BrowserOnly:
    """Django's middleware of the class it is mixed into, but for `browserless` requests,
    which go straight on (in either mode, sync or async: the next handler's answer, or its
    coroutine, is returned as it comes)."""

    get_response: Callable[[HttpRequest], Any]

    def __call__(self, request: HttpRequest) -> Any:
        if browserless(request):
            return self.get_response(request)
        return super().__call__(request)  # type: ignore[misc]


class SessionMiddleware(_BrowserOnly, DjangoSessions):
    pass


class AuthenticationMiddleware(_BrowserOnly, DjangoAuthentication):
    pass


class MessageMiddleware(_BrowserOnly, DjangoMessages):
    pass


class AllowedHostMiddleware:
    """A Host header the deployment does not serve (DJANGO_ALLOWED_HOSTS) is refused before
    anything else reads it, as the API's problem document. Django's own refusal comes from the
    first middleware to ask for the host, and with DEBUG on (the embedded default) it is its
    technical HTML page, which lists the settings: ``handler400`` serves DEBUG off only."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            request.get_host()
        except DisallowedHost as refused:
            _disallowed_host_logger.error(str(refused), extra={"status_code": 400})
            # In the language asked for, as LocaleMiddleware (further in) would have set it.
            language = translation.get_language_from_request(request)
            with translation.override(language):
                response = bad_request(request, refused)
            response.headers.setdefault("Content-Language", language)
            return response
        return self.get_response(request)
