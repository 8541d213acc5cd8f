"""Server-to-server calls of a partner platform: `Authorization: Api-Key <key>`, a key of
djangorestframework-api-key's (prefix looked up, secret checked against its hash). The request
then runs as the platform's own account, with the key (and its scopes) as ``request.auth``."""

from __future__ import annotations

from typing import Any, cast

from django.contrib.auth.models import User
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions, permissions
from rest_framework.request import Request
from rest_framework_api_key.permissions import KeyParser

from platforms.errors import MissingScope
from platforms.models import PlatformKey


class PlatformKeyAuthentication(authentication.BaseAuthentication):
    key_parser = KeyParser()

    def authenticate(self, request: Request) -> tuple[User, PlatformKey] | None:
        raw = self.key_parser.get(request)
        if raw is None:
            return None
        try:
            # The library's manager gives its model's instances typed as AbstractAPIKey.
            key = cast(PlatformKey, PlatformKey.objects.get_from_key(raw))
        except PlatformKey.DoesNotExist:
            raise exceptions.AuthenticationFailed() from None
        if key.has_expired:
            raise exceptions.AuthenticationFailed()
        return key.platform.user, key

    def authenticate_header(self, request: Request) -> str:
        return "Api-Key"


def scoped(scope: str) -> type[permissions.BasePermission]:
    """A permission: the request carries a platform key with ``scope``."""

    class HasScope(permissions.BasePermission):
        def has_permission(self, request: Request, view: Any) -> bool:
            key = request.auth
            if not isinstance(key, PlatformKey):
                return False
            if scope not in key.scopes:
                raise MissingScope(scope=scope)
            return True

    HasScope.__name__ = f"HasScope_{scope.replace(':', '_')}"
    return HasScope


class PlatformKeyScheme(OpenApiAuthenticationExtension):
    target_class = "platforms.authentication.PlatformKeyAuthentication"
    name = "platformKey"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "apiKey", "in": "header", "name": "Authorization",
            "description": "`Api-Key <key>`: a partner platform's key, issued by staff with "
            "scopes (`players:write`, `matches:write`, `matches:read`, `webhooks:manage`).",
        }
