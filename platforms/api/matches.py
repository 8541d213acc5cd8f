"""The platform API's matches and leaderboards: `/api/v1/platform/matches...`,
`/api/v1/platform/leaderboards/...`."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response

from games import access
from games import services as games_services
from games.api import examples
from games.api.base import (
    MatchPagination,
    TimeCursorPagination,
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
    BatchNotFound,
    PlatformMatchNotFound,
)
from platforms.models import (
    MatchBatch,
    PlatformPlayer,
    Scope,
)
from ratings.api.leaderboard_serializers import PageQuerySerializer
from ratings.api.leaderboards import ENTRY, GAME_PARAMETER, PLACES, LeaderboardPage, entry_body

PLATFORM_MATCH = {**examples.MATCH, "invitation_code": None}


class PlatformMatchPagination(MatchPagination):
    example_path = "/api/v1/platform/matches"


class ReadsAndCreates(PlatformEndpoint, generics.GenericAPIView):
    """A list that a POST adds to: `matches:write` to create, `matches:read` to list."""

    def get_permissions(self) -> list[Any]:
        scope = Scope.MATCHES_WRITE if self.request.method == "POST" else Scope.MATCHES_READ
        return [scoped(scope)()]


class PlatformMatchesView(ReadsAndCreates):
    pagination_class = PlatformMatchPagination
    serializer_class = ps.PlatformMatchSerializer


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
        match = services.create_match(platform=self.platform,
                                      **_match_arguments(data, request.data))
        match = Match.objects.prefetch_related("seats").get(pk=match.pk)
        return Response(ps.PlatformMatchSerializer(platform_match(match)).data,
                        status=status.HTTP_201_CREATED)


def _match_arguments(data: dict[str, Any], sent: Any) -> dict[str, Any]:
    """`services.create_match`'s arguments for one match asked for (``data`` validated from
    ``sent``)."""
    game, rules, deal = match_table(data, sent)
    return {
        "game": game, "rules": rules, "deal": deal, "deal_count": data["deals"],
        "seats": data["seats"], "visibility": data["visibility"],
        "clock_seconds": data.get("clock", games_services.DefaultClock.FOR_THE_SEATS),
        "ready_within": (data.get("ready_within", ps.READY_WITHIN_DEFAULT)
                         if data["start"] == "when_ready" else None),
        "rated": data["rated"], "hints": data["hints"],
    }


def batch_body(batch: MatchBatch, *, with_matches: bool) -> dict[str, Any]:
    body: dict[str, Any] = {"id": batch.id, "starts_at": batch.starts_at,
                            "match_count": len(batch.match_ids), "created_at": batch.created_at}
    if with_matches:
        found = {str(match.pk): match for match in services.batch_matches(batch)}
        body["matches"] = [platform_match(found[match_id]) for match_id in batch.match_ids
                           if match_id in found]
    return body


BATCH = {"id": "5f0c6a1e-3b8d-4c2e-9a71-0d4e8b2f6c13", "starts_at": "2026-12-01T20:00:00Z",
         "match_count": 200, "created_at": "2026-12-01T19:00:00Z"}
BATCH_NOT_FOUND = OpenApiExample(
    "No such batch", status_codes=["404"], response_only=True,
    value={"type": problem_type("not_found"), "title": "Not Found",
           "status": 404, "code": "not_found", "detail": "Your platform has no such batch."},
)


class BatchPagination(TimeCursorPagination):
    """Newest first, by cursor."""

    page_size = 50
    max_page_size = 200
    ordering = ("-created_at", "-pk")
    example_path = "/api/v1/platform/batches"


class BatchListQuerySerializer(serializers.Serializer):
    cursor = serializers.CharField(
        required=False, help_text="From a `next` or `previous` link; left out: the first page "
        "(the newest). One this list did not give is 400 `invalid_cursor`.",
    )
    page_size = serializers.IntegerField(min_value=1, max_value=BatchPagination.max_page_size,
                                         default=BatchPagination.page_size)


class BatchesView(ReadsAndCreates):
    pagination_class = BatchPagination
    serializer_class = ps.MatchBatchSerializer


    @extend_schema(
        operation_id="listPlatformMatchBatches", tags=["platform"],
        summary="The platform's batches of matches",
        description="Newest first, 50 a page (up to 200 with `page_size`), by cursor. Scope "
        "`matches:read`.",
        parameters=[BatchListQuerySerializer],
        responses={200: ps.MatchBatchSerializer(many=True), **errors(400, 401, 403)},
        examples=[OpenApiExample("A batch", response_only=True, status_codes=["200"],
                                 value=BATCH)],
    )
    def get(self, request: Request) -> Response:
        valid_query(BatchListQuerySerializer, request)
        page = self.paginate_queryset(MatchBatch.objects.filter(platform=self.platform))
        data = [batch_body(batch, with_matches=False) for batch in page or []]
        return self.get_paginated_response(ps.MatchBatchSerializer(data, many=True).data)

    @extend_schema(
        operation_id="createPlatformMatchBatch", tags=["platform"],
        summary="Create many matches at once",
        description=(
            f"1 to {ps.MAX_BATCH} matches in one call, each as `createPlatformMatch` takes it: "
            "all of them or, when one is refused, none (the problem's `field` says which, "
            "`matches[i]…`). Counted against the platform's limits like as many single "
            "matches. With `starts_at` every match of the batch starts then, its turn clocks "
            "with it, its players ready from the first (a match with an open seat starts "
            "once it is taken, not before its time); until then it is `waiting`, with "
            "`ready_by` the start. Follow a batch's matches on the platform's stream "
            "(`streamPlatformEvents` with `batch_id`) or by webhooks, as any of the "
            "platform's matches. Scope `matches:write`."
        ),
        request=ps.MatchBatchInputSerializer,
        responses={201: ps.MatchBatchDetailSerializer, **errors(400, 401, 403, 409)},
        examples=[
            OpenApiExample(
                "Two matches at eight", request_only=True,
                value={"starts_at": "2026-12-01T20:00:00Z", "matches": [
                    {"game": "auction", "deals": 4, "seats": [
                        {"kind": "player", "external_id": "user-42"},
                        {"kind": "bot", "bot_level": "medium"},
                        {"kind": "player", "external_id": "user-7"},
                        {"kind": "bot", "bot_level": "hard"}]},
                    {"game": "spades", "deals": 4, "seats": [
                        {"kind": "player", "external_id": "user-9"},
                        {"kind": "bot", "bot_level": "easy"},
                        {"kind": "bot", "bot_level": "easy"},
                        {"kind": "bot", "bot_level": "easy"}]}]},
            ),
            OpenApiExample("The batch", response_only=True, status_codes=["201"],
                           value={**BATCH, "match_count": 1, "matches": [
                               {**PLATFORM_MATCH, "players": ["user-42", None, "user-7",
                                                               None]}]}),
        ],
    )
    def post(self, request: Request) -> Response:
        data = valid_input(ps.MatchBatchInputSerializer, request.data)
        sent = request.data["matches"]
        batch = services.create_batch(
            platform=self.platform, starts_at=data.get("starts_at"),
            matches=[_match_arguments(one, sent[index])
                     for index, one in enumerate(data["matches"])],
        )
        return Response(ps.MatchBatchDetailSerializer(batch_body(batch, with_matches=True)).data,
                        status=status.HTTP_201_CREATED)


class BatchEndpoint(PlatformEndpoint):
    def batch(self, batch_id: uuid.UUID) -> MatchBatch:
        batch = MatchBatch.objects.filter(pk=batch_id, platform=self.platform).first()
        if batch is None:
            raise BatchNotFound()
        return batch


class BatchView(BatchEndpoint):
    permission_classes: Sequence[type[BasePermission]] = [scoped(Scope.MATCHES_READ)]

    @extend_schema(
        operation_id="getPlatformMatchBatch", tags=["platform"], summary="A batch of matches",
        description="The batch and each of its matches as `getPlatformMatch` answers it. "
        "Scope `matches:read`.",
        responses={200: ps.MatchBatchDetailSerializer, **errors(401, 403, 404)},
        examples=[BATCH_NOT_FOUND],
    )
    def get(self, request: Request, batch_id: uuid.UUID) -> Response:
        body = batch_body(self.batch(batch_id), with_matches=True)
        return Response(ps.MatchBatchDetailSerializer(body).data)


class CancelBatchView(BatchEndpoint):
    permission_classes: Sequence[type[BasePermission]] = [scoped(Scope.MATCHES_WRITE)]

    @extend_schema(
        operation_id="cancelPlatformMatchBatch", tags=["platform"],
        summary="Cancel a batch of matches",
        description="Every match of the batch not over yet is called off as "
        "`cancelPlatformMatch` does: one waiting (a scheduled one before its time) is "
        "cancelled, one in play abandoned; those over stay as they are. Answers how many of "
        "each. Scope `matches:write`.",
        request=None,
        responses={200: ps.BatchCancelledSerializer, **errors(401, 403, 404)},
        examples=[OpenApiExample("Called off before its time", response_only=True,
                                 status_codes=["200"], value={"cancelled": 200,
                                                              "abandoned": 0}),
                  BATCH_NOT_FOUND],
    )
    def post(self, request: Request, batch_id: uuid.UUID) -> Response:
        counts = services.cancel_batch(platform=self.platform, batch=self.batch(batch_id))
        return Response(ps.BatchCancelledSerializer(counts).data)


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
