"""Server-to-server calls of a partner platform: `Authorization: Api-Key <key>`, a key of
djangorestframework-api-key's (prefix looked up, secret checked against its hash). The request
then runs as the platform's own account, with the key (and its scopes) as ``request.auth``.

The platform API (platforms/api) takes keys only. The rest of the API takes them too, but
`PlatformKeysOnlyWhereAllowed`, a default permission, lets a key through only to the reads a
view opens to platforms (``platform_key_scope``, the reads of the platform's own matches:
games/api/base.py), with that scope."""

from __future__ import annotations

from typing import Any, cast

from django.contrib.auth.models import User
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions, permissions
from rest_framework.request import Request
from rest_framework_api_key.permissions import KeyParser

from platforms.errors import MissingScope, PlatformKeyNotAccepted
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


def scoped(scope: str, *or_scopes: str) -> type[permissions.BasePermission]:
    """A permission: the request carries a platform key with ``scope`` or one of
    ``or_scopes`` (a refusal names ``scope``)."""

    class HasScope(permissions.BasePermission):
        def has_permission(self, request: Request, view: Any) -> bool:
            key = request.auth
            if not isinstance(key, PlatformKey):
                return False
            if not {scope, *or_scopes} & set(key.scopes):
                raise MissingScope(scope=scope)
            return True

    HasScope.__name__ = "HasScope_" + "_".join(
        name.replace(":", "_") for name in (scope, *or_scopes))
    return HasScope


class PlatformKeysOnlyWhereAllowed(permissions.BasePermission):
    """A platform key is refused (403 `platform_key_not_accepted`) but on the reads a view
    opens to platforms, and there without their scope (403 `missing_scope`)."""

    def has_permission(self, request: Request, view: Any) -> bool:
        key = request.auth
        if not isinstance(key, PlatformKey):
            return True
        scope = getattr(view, "platform_key_scope", None)
        if scope is None or request.method not in permissions.SAFE_METHODS:
            raise PlatformKeyNotAccepted()
        if scope not in key.scopes:
            raise MissingScope(scope=scope)
        return True


class PlatformKeyScheme(OpenApiAuthenticationExtension):
    target_class = "platforms.authentication.PlatformKeyAuthentication"
    name = "platformKey"

    def get_security_requirement(
        self, auto_schema: Any
    ) -> dict[str, list[Any]] | list[dict[str, list[Any]]]:
        # Listed where a key is accepted: the platform API, and the reads opened to platforms.
        view = auto_schema.view
        if list(view.authentication_classes) == [PlatformKeyAuthentication] or (
            getattr(view, "platform_key_scope", None) and auto_schema.method == "GET"
        ):
            return {self.name: []}
        return []

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "apiKey", "in": "header", "name": "Authorization",
            "description": "`Api-Key <key>`: a partner platform's key, issued by staff with "
            "scopes (`players:read`, `players:write`, `matches:write`, `matches:read`, "
            "`webhooks:manage`).",
        }
