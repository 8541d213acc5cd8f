"""How the API knows who is calling: a token (apps, platforms), or the admin's browser session
(staff trying the API from the docs pages)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.auth.models import User
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from drf_spectacular import authentication as drf_spectacular_authentication
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from knox import auth as knox_auth
from knox.models import AuthToken
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from games.errors import ServiceError

# Tokens issued for at most this long are never extended by use.
SHORT_LIVED = timedelta(days=1)


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


class TokenAuthentication(knox_auth.TokenAuthentication):
    """knox's token authentication (hashed, expiring, revocable tokens), refusing a token that
    is not even text with 401 rather than failing on it, and reading the token alone: knox
    reads every other token of the account on every request to delete the expired ones, which
    the retention purge does instead (games/retention.py)."""

    def authenticate_credentials(self, token: bytes) -> tuple[User, AuthToken]:
        try:
            token.decode("utf-8")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed() from None
        return super().authenticate_credentials(token)

    def _cleanup_token(self, auth_token: AuthToken) -> bool:
        """Whether the token has expired (it is deleted then)."""
        if auth_token.expiry is None or auth_token.expiry >= timezone.now():
            return False
        auth_token.delete()
        return True

    def renew_token(self, auth_token: AuthToken) -> None:
        # A token issued short-lived (a platform's player token) stays short: only tokens
        # issued for longer than SHORT_LIVED are moved on by use.
        if auth_token.expiry is not None and (
            auth_token.expiry - auth_token.created <= SHORT_LIVED
        ):
            return
        super().renew_token(auth_token)


class TokenScheme(OpenApiAuthenticationExtension):
    target_class = "games.api.authentication.TokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "apiKey", "in": "header", "name": "Authorization",
            "description": "`Token <token>`, the token of `/auth/guest`, `/auth/register` or "
            "`/auth/token`. It lapses after 30 days unused and ends with `/auth/logout`.",
        }

