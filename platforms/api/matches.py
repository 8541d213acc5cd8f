"""The platform API's matches and leaderboards: `/api/v1/platform/matches...`,
`/api/v1/platform/leaderboards/...`."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import generics, status
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response

from games import access
from games import services as games_services
from games.api import examples
from games.api.base import (
    MatchPagination,
    errors,
    valid_input,
    valid_query,
)
from games.api.matches import MatchListQuerySerializer, match_table
from games.api.problems import problem_type
from games.models import Match
from platforms import services
from platforms.api import serializers as ps
from platforms.api.base import READ_PLAYERS, PlatformEndpoint, platform_match
from platforms.authentication import scoped
from platforms.errors import (
    PlatformMatchNotFound,
)
from platforms.models import (
    PlatformPlayer,
    Scope,
)
from ratings.api.leaderboard_serializers import PageQuerySerializer
from ratings.api.leaderboards import ENTRY, GAME_PARAMETER, PLACES, LeaderboardPage, entry_body

PLATFORM_MATCH = {**examples.MATCH, "invitation_code": None}


class PlatformMatchPagination(MatchPagination):
    example_path = "/api/v1/platform/matches"


class PlatformMatchesView(PlatformEndpoint, generics.GenericAPIView):
    pagination_class = PlatformMatchPagination
    serializer_class = ps.PlatformMatchSerializer

    def get_permissions(self) -> list[Any]:
        scope = Scope.MATCHES_WRITE if self.request.method == "POST" else Scope.MATCHES_READ
        return [scoped(scope)()]

    @extend_schema(
        operation_id="listPlatformMatches", tags=["platform"], summary="The platform's matches",
        description="Matches the platform created, newest first; `status` filters. Scope "
        "`matches:read`.",
        parameters=[MatchListQuerySerializer],
        responses={200: ps.PlatformMatchSerializer(many=True), **errors(400, 401, 403, 404)},
        examples=[OpenApiExample("A match", response_only=True, status_codes=["200"],
                                 value={**PLATFORM_MATCH, "players": ["user-42", None, None,
                                                                      None]})],
    )
    def get(self, request: Request) -> Response:
        query = valid_query(MatchListQuerySerializer, request)
        matches = Match.objects.filter(circle=self.platform.user).prefetch_related(
            "seats").order_by("-created_at")
        if "status" in query:
            matches = matches.filter(status=query["status"])
        page = self.paginate_queryset(matches)
        data = [platform_match(match) for match in page or []]
        return self.get_paginated_response(ps.PlatformMatchSerializer(data, many=True).data)

    @extend_schema(
        operation_id="createPlatformMatch", tags=["platform"], summary="Create a match",
        description=(
            "A match of the platform's players (seats by `external_id`) and computer players; "
            "it starts at once, or with `start: when_ready` once each player has posted "
            "`POST /matches/{id}/ready` (at `ready_by` at the latest). The players then play "
            "with their player tokens on the ordinary endpoints. Counted against the "
            "platform's limits (409 `too_many_matches`, `too_many_bot_deals`); an unknown "
            "player is 400 `unknown_player`. With `deal` (a deal's notation) the first deal is "
            "dealt with its cards, as `createMatch` does. Scope `matches:write`."
        ),
        request=ps.PlatformMatchInputSerializer,
        responses={201: ps.PlatformMatchSerializer, **errors(400, 401, 403, 409)},
        examples=[
            OpenApiExample(
                "Two players and two computer players", request_only=True,
                value={"game": "auction", "deals": 4, "seats": [
                    {"kind": "player", "external_id": "user-42"},
                    {"kind": "bot", "bot_level": "medium"},
                    {"kind": "player", "external_id": "user-7"},
                    {"kind": "bot", "bot_level": "hard"}]},
            ),
            OpenApiExample("The match", response_only=True, status_codes=["201"],
                           value={**PLATFORM_MATCH, "players": ["user-42", None, "user-7",
                                                                None]}),
        ],
    )
    def post(self, request: Request) -> Response:
        data = valid_input(ps.PlatformMatchInputSerializer, request.data)
        game, rules, deal = match_table(data, request.data)
        match = services.create_match(
            platform=self.platform, game=game, rules=rules, deal=deal,
            deal_count=data["deals"], seats=data["seats"], visibility=data["visibility"],
            clock_seconds=data.get("clock", games_services.DefaultClock.FOR_THE_SEATS),
            ready_within=(
                data.get("ready_within", ps.READY_WITHIN_DEFAULT)
                if data["start"] == "when_ready" else None
            ),
            rated=data["rated"], hints=data["hints"],
        )
        match = Match.objects.prefetch_related("seats").get(pk=match.pk)
        return Response(ps.PlatformMatchSerializer(platform_match(match)).data,
                        status=status.HTTP_201_CREATED)


class PlatformLeaderboardView(PlatformEndpoint):
    permission_classes: Sequence[type[BasePermission]] = [READ_PLAYERS]

    @extend_schema(
        operation_id="getPlatformLeaderboard", tags=["platform"],
        summary="A game's leaderboard of the platform's players",
        description=(
            "The board your players see (`GET /leaderboards/{game}`), with your id of each: "
            "best first, 50 a page (1 to 100 with `page_size`), by cursor. " + PLACES
            + " Scope `players:read` or `players:write`."
        ),
        parameters=[GAME_PARAMETER, PageQuerySerializer],
        responses={200: ps.PlatformLeaderboardSerializer, **errors(400, 401, 403, 404)},
        examples=[OpenApiExample("The all-time board", response_only=True, status_codes=["200"],
                                 value={"game": "auction", "season": "all", "starts": None,
                                        "min_rated_matches": 10,
                                        "results": [{**ENTRY, "external_id": "user-42"}],
                                        "next": None})],
    )
    def get(self, request: Request, game: str) -> Response:
        board = LeaderboardPage(request, game)
        ids = dict(PlatformPlayer.objects.filter(
            platform=self.platform, user_id__in=[entry.row.user_id for entry in board.entries]
        ).values_list("user_id", "external_id"))
        results = [{**entry_body(entry), "external_id": ids.get(entry.row.user_id)}
                   for entry in board.entries]
        return Response(ps.PlatformLeaderboardSerializer(board.body(results)).data)


class PlatformMatchView(PlatformEndpoint):
    permission_classes: Sequence[type[BasePermission]] = [scoped(Scope.MATCHES_READ)]

    @extend_schema(
        operation_id="getPlatformMatch", tags=["platform"], summary="One of the platform's matches",
        description="Its seats with the players' external ids, status, totals and, once "
        "finished, the ranking. Another platform's match is 404. Scope `matches:read`.",
        responses={200: ps.PlatformMatchSerializer, **errors(401, 403, 404)},
        examples=[OpenApiExample("A finished match", response_only=True, status_codes=["200"],
                                 value={**PLATFORM_MATCH, "status": "finished",
                                        "ranking": [1, 3, 2, 4],
                                        "players": ["user-42", None, "user-7", None]})],
    )
    def get(self, request: Request, match_id: str) -> Response:
        match = Match.objects.prefetch_related("seats").filter(pk=match_id).first()
        if match is None or not access.access(match, self.platform.user).allows(
            access.Permission.MANAGE
        ):
            raise PlatformMatchNotFound()
        return Response(ps.PlatformMatchSerializer(platform_match(match)).data)


class CancelPlatformMatchView(PlatformEndpoint):
    permission_classes: Sequence[type[BasePermission]] = [scoped(Scope.MATCHES_WRITE)]

    @extend_schema(
        operation_id="cancelPlatformMatch", tags=["platform"], summary="Cancel a match",
        description=(
            "Calls the platform's match off. A match still waiting (for its players to be "
            "ready, or for open seats) becomes `cancelled`; a match in play stops at once as "
            "`abandoned`, its deals and log kept for review. A match already over (`finished`, "
            "`cancelled`, `abandoned`) is 409 `match_over`, its status in `match_status`: a "
            "retried cancel changes nothing and says how the match ended. Another platform's "
            "match is 404. Scope `matches:write`."
        ),
        request=None,
        responses={200: ps.PlatformMatchSerializer, **errors(401, 403, 404, 409)},
        examples=[
            OpenApiExample("Cancelled before the start", response_only=True,
                           status_codes=["200"],
                           value={**PLATFORM_MATCH, "status": "cancelled",
                                  "players": ["user-42", None, "user-7", None]}),
            OpenApiExample(
                "Already over", status_codes=["409"], response_only=True,
                value={"type": problem_type("match_over"),
                       "title": "Conflict", "status": 409, "code": "match_over",
                       "detail": "This match is already over: there is nothing left to "
                       "cancel.", "match_status": "cancelled"},
            ),
        ],
    )
    def post(self, request: Request, match_id: uuid.UUID) -> Response:
        match = services.cancel_match(platform=self.platform, match_id=match_id)
        match = Match.objects.prefetch_related("seats").get(pk=match.pk)
        return Response(ps.PlatformMatchSerializer(platform_match(match)).data)
