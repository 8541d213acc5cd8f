"""How the API knows who is calling: a token (apps, platforms), or the admin's browser session
(staff trying the API from the docs pages)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from drf_spectacular import authentication as drf_spectacular_authentication
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from games.errors import ServiceError


class CsrfFailed(ServiceError):
    status = 403
    code = "csrf_failed"
    default_detail = _(
        "This request came with a session cookie but without its CSRF token; API clients send "
        "a token instead."
    )


class SessionAuthentication(authentication.SessionAuthentication):
    """DRF's session authentication, its CSRF refusal a problem of its own: only a browser
    session is checked for CSRF, never a request with a token."""

    def enforce_csrf(self, request: Request) -> None:
        try:
            super().enforce_csrf(request)
        except exceptions.PermissionDenied:
            raise CsrfFailed() from None


class SessionScheme(drf_spectacular_authentication.SessionScheme):
    """The schema names the session as drf-spectacular does DRF's own (`cookieAuth`)."""

    target_class = "games.api.authentication.SessionAuthentication"
