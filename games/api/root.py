"""The API's root, `GET /api/v1/`: where each of its resources is, as GitHub's API root says it,
so that someone who finds the service's address finds the rest from there."""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.api.base import errors, example

# Each resource's key and its path (a URI template, RFC 6570, where it takes a parameter).
RESOURCES: dict[str, str] = {
    "guest_url": "/api/v1/auth/guest",
    "register_url": "/api/v1/auth/register",
    "token_url": "/api/v1/auth/token",
    "current_user_url": "/api/v1/me",
    "current_user_stream_url": "/api/v1/me/stream",
    "rule_presets_url": "/api/v1/rules/presets",
    "matches_url": "/api/v1/matches",
    "match_url": "/api/v1/matches/{match_id}",
    "seat_view_url": "/api/v1/matches/{match_id}/view",
    "actions_url": "/api/v1/matches/{match_id}/actions",
    "match_stream_url": "/api/v1/matches/{match_id}/stream",
    "lobby_url": "/api/v1/lobby",
    "quick_match_url": "/api/v1/quick-match",
    "leaderboard_url": "/api/v1/leaderboards/{game}",
    "player_url": "/api/v1/players/{username}",
    "deal_sets_url": "/api/v1/deal-sets",
    "daily_deal_set_url": "/api/v1/deal-sets/daily/{game}",
    "tour_tables_url": "/api/v1/tour/tables",
    "platform_players_url": "/api/v1/platform/players",
    "platform_matches_url": "/api/v1/platform/matches",
    "platform_stream_url": "/api/v1/platform/stream",
    "platform_webhooks_url": "/api/v1/platform/webhooks",
}


def _template(path: str) -> serializers.CharField:
    return serializers.CharField(help_text=f"`{path}`, absolute: a URI template (RFC 6570) "
                                           "where it names a parameter in braces.")


ApiRootSerializer = type("ApiRootSerializer", (serializers.Serializer,), {
    "schema_url": serializers.URLField(help_text="The OpenAPI document: generate a client "
                                                 "from it."),
    "api_docs_url": serializers.URLField(help_text="The API's reference, to read."),
    "docs_url": serializers.URLField(help_text="The service's guides (the docs site)."),
    "play_url": serializers.URLField(help_text="The table in a browser."),
    "status_url": serializers.URLField(help_text="Whether the service is ready (`/readyz`)."),
    **{key: _template(path) for key, path in RESOURCES.items()},
})


class ApiRootView(APIView):
    permission_classes = (AllowAny,)
    authentication_classes = ()

    @extend_schema(
        operation_id="getApiRoot", tags=["service"], summary="Where everything is",
        description=(
            "The API's resources, each by its absolute address: the OpenAPI document, the "
            "guides, the browser table, signing in, matches, the lobby, leaderboards, deal "
            "sets, the tour and a platform's resources. An address that takes a parameter is a "
            "URI template (RFC 6570): `{match_id}` stands for a match's id. No credentials "
            "needed."
        ),
        responses={200: ApiRootSerializer, **errors(429)},
        examples=[example("A service", {
            "schema_url": "https://batak.example/api/schema/",
            "api_docs_url": "https://batak.example/api/docs/",
            "docs_url": "https://batak-service.github.io/",
            "play_url": "https://batak.example/play/",
            "status_url": "https://batak.example/readyz",
            **{key: f"https://batak.example{path}" for key, path in RESOURCES.items()},
        })],
    )
    def get(self, request: Request) -> Response:
        absolute = request.build_absolute_uri
        # Where the service answers, a deployment's path prefix included (SCRIPT_NAME).
        service = absolute(reverse("games:api-root")).removesuffix("/api/v1/")
        return Response({
            "schema_url": absolute(reverse("schema")),
            "api_docs_url": absolute(reverse("swagger-ui")),
            "docs_url": settings.DOCS_URL,
            "play_url": absolute(reverse("play")),
            "status_url": absolute(reverse("readyz")),
            # Built from text, not `absolute`: it would quote a template's braces.
            **{key: service + path for key, path in RESOURCES.items()},
        })
