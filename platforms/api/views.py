"""The platform API under `/api/v1/platform/`: a partner platform's server, with its key."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.authentication import BaseAuthentication
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import access, presenters
from games import services as games_services
from games.api import examples
from games.api.base import MAX_PAGE, MatchPagination, errors, valid_input, valid_query
from games.api.matches import MatchListQuerySerializer
from games.models import Match
from platforms import services, webhooks
from platforms.api import serializers as ps
from platforms.authentication import PlatformKeyAuthentication, scoped
from platforms.errors import (
    DeliveryNotFound,
    InvalidExternalId,
    PlatformMatchNotFound,
    WebhookNotFound,
)
from platforms.models import (
    Platform,
    PlatformKey,
    PlatformPlayer,
    Scope,
    WebhookDelivery,
    WebhookSubscription,
)

EXTERNAL_ID = re.compile(ps.EXTERNAL_ID_PATTERN)
EXTERNAL_ID_PARAMETER = OpenApiParameter(
    "external_id", OpenApiTypes.STR, OpenApiParameter.PATH, pattern=ps.EXTERNAL_ID_PATTERN,
    description="The platform's own id of the player: 1 to 128 of A-Z a-z 0-9 `_ . : @ + -`.",
)


SUBSCRIPTION = {"id": 3, "url": "https://games.example/batak/hooks",
                "event_types": ["deal.ended", "match.finished", "turn.started"],
                "active": True, "created_at": "2026-12-01T10:00:00Z"}
DELIVERY = {"id": 41, "event_id": "msg_6f1c2d3e4b5a69788796a5b4c3d2e1f0",
            "event_type": "turn.started", "match_id": "0b7e3c52-6a43-4b8e-9d0a-3f1f7c2a9e11",
            "sequence": 12, "status": "succeeded", "attempts": 1,
            "last_status_code": 204, "last_latency_ms": 12, "last_error": "",
            "next_attempt_at": None, "delivered_at": "2026-12-01T10:02:03Z",
            "created_at": "2026-12-01T10:02:03Z"}
WEBHOOK_NOT_FOUND = OpenApiExample(
    "No such subscription", status_codes=["404"], response_only=True,
    value={"type": "https://batak.example/problems/not_found", "title": "Not Found",
           "status": 404, "code": "not_found", "detail": "Your platform has no such webhook."},
)


class PlatformEndpoint(APIView):
    authentication_classes: Sequence[type[BaseAuthentication]] = [PlatformKeyAuthentication]

    @property
    def platform(self) -> Platform:
        key = self.request.auth
        assert isinstance(key, PlatformKey)
        return key.platform


def platform_match(match: Match) -> dict[str, Any]:
    """The match's summary with the platform's external id of each seat's player."""
    summary = presenters.match_summary(match)
    users = {seat.index: seat.user_id for seat in match.seats.all()}
    # Keyed for lookups by a seat's user id, None for a computer or an open seat (no entry).
    ids: dict[int | None, str] = dict(
        PlatformPlayer.objects.filter(
            platform__user_id=match.created_by_id, user_id__in=[u for u in users.values() if u]
        ).values_list("user_id", "external_id")
    )
    return {**summary, "players": [ids.get(users.get(index)) for index in range(4)]}


class PlayerView(PlatformEndpoint):
    permission_classes: Sequence[type[BasePermission]] = [scoped(Scope.PLAYERS_WRITE)]

    @extend_schema(
        operation_id="putPlatformPlayer", tags=["platform"], summary="Create or update a player",
        description=(
            "Creates the platform's player `external_id` (201) or updates its display name and "
            "language (200), and answers a new player token for the platform's app, valid "
            "for 60 minutes and not extended by use: PUT again for a fresh one (earlier tokens "
            "keep working until they lapse). `display_name` is always sent; `language`, left "
            "out, stays as it was (a new player has none). Scope `players:write`."
        ),
        parameters=[EXTERNAL_ID_PARAMETER],
        request=ps.PlayerInputSerializer,
        responses={200: ps.PlayerSerializer, 201: ps.PlayerSerializer,
                   **errors(400, 401, 403)},
        examples=[OpenApiExample("A player", response_only=True, status_codes=["200", "201"],
                                 value={"external_id": "user-42", "display_name": "Ayşe",
                                        "language": "tr", "token": "4c1f0b2e…",
                                        "token_expiry": "2026-12-01T21:21:39Z"})],
    )
    def put(self, request: Request, external_id: str) -> Response:
        if not EXTERNAL_ID.fullmatch(external_id):
            raise InvalidExternalId(field="external_id")
        data = valid_input(ps.PlayerInputSerializer, request.data)
        issued = services.put_player(
            platform=self.platform, external_id=external_id,
            display_name=data["display_name"], language=data.get("language"),
        )
        body = {"external_id": external_id, "display_name": issued.player.user.first_name,
                "language": issued.player.language, "token": issued.token,
                "token_expiry": issued.expiry}
        return Response(ps.PlayerSerializer(body).data,
                        status=status.HTTP_201_CREATED if issued.created else status.HTTP_200_OK)


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
                                 value={**examples.MATCH, "players": ["user-42", None, None,
                                                                      None]})],
    )
    def get(self, request: Request) -> Response:
        query = valid_query(MatchListQuerySerializer, request)
        matches = Match.objects.filter(created_by=self.platform.user).prefetch_related(
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
            "it starts at once. The players then play with their "
            "player tokens on the ordinary endpoints. Counted against the platform's limits "
            "(409 `too_many_matches`, `too_many_bot_deals`); an unknown player is 400 "
            "`unknown_player`. Scope `matches:write`."
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
                           value={**examples.MATCH, "players": ["user-42", None, "user-7",
                                                                None]}),
        ],
    )
    def post(self, request: Request) -> Response:
        data = valid_input(ps.PlatformMatchInputSerializer, request.data)
        match = services.create_match(
            platform=self.platform, game=data["game"], rules=data.get("rules") or {},
            deal_count=data["deals"], seats=data["seats"], visibility=data["visibility"],
            clock_seconds=data.get("clock", games_services.DEFAULT_CLOCK),
        )
        match = Match.objects.prefetch_related("seats").get(pk=match.pk)
        return Response(ps.PlatformMatchSerializer(platform_match(match)).data,
                        status=status.HTTP_201_CREATED)


class PlatformMatchView(PlatformEndpoint):
    permission_classes: Sequence[type[BasePermission]] = [scoped(Scope.MATCHES_READ)]

    @extend_schema(
        operation_id="getPlatformMatch", tags=["platform"], summary="One of the platform's matches",
        description="Its seats with the players' external ids, status, totals and, once "
        "finished, the ranking. Another platform's match is 404. Scope `matches:read`.",
        responses={200: ps.PlatformMatchSerializer, **errors(401, 403, 404)},
        examples=[OpenApiExample("A finished match", response_only=True, status_codes=["200"],
                                 value={**examples.MATCH, "status": "finished",
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


class WebhooksView(PlatformEndpoint):
    permission_classes: Sequence[type[BasePermission]] = [scoped(Scope.WEBHOOKS_MANAGE)]

    @extend_schema(
        operation_id="listPlatformWebhooks", tags=["platform"], summary="Webhook subscriptions",
        description="The platform's subscriptions. Scope `webhooks:manage`.",
        responses={200: ps.SubscriptionSerializer(many=True), **errors(401, 403)},
        examples=[OpenApiExample("One subscription", response_only=True, status_codes=["200"],
                                 value=SUBSCRIPTION)],
    )
    def get(self, request: Request) -> Response:
        rows = WebhookSubscription.objects.filter(platform=self.platform, deleted_at__isnull=True)
        return Response(ps.SubscriptionSerializer(rows, many=True).data)

    @extend_schema(
        operation_id="createPlatformWebhook", tags=["platform"], summary="Subscribe to events",
        description=(
            "Events of the chosen types are POSTed to `url` as JSON `{type, timestamp, sequence, "
            "data}` and signed as the Standard Webhooks specification says (`webhook-id`, "
            "`webhook-timestamp`, `webhook-signature`: HMAC-SHA256 with the `secret`, shown "
            "only in this answer). A delivery is retried until the receiver answers 2xx, after "
            "5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h and 8 h (about a day), every "
            "attempt with the same `webhook-id`. A match's events come in order: while one is "
            "retried, the later ones of its match wait (`sequence` orders them). The payloads "
            "are the schema's `webhooks`. Scope `webhooks:manage`."
        ),
        request=ps.SubscriptionInputSerializer,
        responses={201: ps.NewSubscriptionSerializer, **errors(400, 401, 403)},
        examples=[OpenApiExample("Subscribed", response_only=True, status_codes=["201"],
                                 value={**SUBSCRIPTION, "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILP"
                                        "ZIcEtD4Rx5"})],
    )
    def post(self, request: Request) -> Response:
        data = valid_input(ps.SubscriptionInputSerializer, request.data)
        subscription = webhooks.subscribe(platform=self.platform, url=data["url"],
                                          event_types=data["event_types"])
        body = {**ps.SubscriptionSerializer(subscription).data, "secret": subscription.secret}
        return Response(ps.NewSubscriptionSerializer(body).data, status=status.HTTP_201_CREATED)


class WebhookEndpoint(PlatformEndpoint):
    permission_classes: Sequence[type[BasePermission]] = [scoped(Scope.WEBHOOKS_MANAGE)]

    def subscription(self, webhook_id: int, deleted: bool = False) -> WebhookSubscription:
        """The platform's subscription; a deleted one only if ``deleted`` (its log)."""
        found = WebhookSubscription.objects.filter(pk=webhook_id, platform=self.platform)
        if not deleted:
            found = found.filter(deleted_at__isnull=True)
        subscription = found.first()
        if subscription is None:
            raise WebhookNotFound()
        return subscription


def delivery_data(row: WebhookDelivery) -> dict[str, Any]:
    return {
        "id": row.pk, "event_id": row.event_id, "event_type": row.event.type,
        "match_id": row.event.match_id, "sequence": row.event.sequence,
        "status": row.status, "attempts": row.attempts,
        "last_status_code": row.last_status_code, "last_latency_ms": row.last_latency_ms,
        "last_error": row.last_error,
        "next_attempt_at": row.next_attempt_at if row.status == "pending" else None,
        "delivered_at": row.delivered_at, "created_at": row.created_at,
    }


class WebhookView(WebhookEndpoint):
    @extend_schema(
        operation_id="deletePlatformWebhook", tags=["platform"], summary="Unsubscribe",
        description="No more events are sent there: its pending deliveries are `cancelled` (an "
        "attempt under way may still arrive). Its deliveries stay readable for "
        "WEBHOOK_LOG_RETENTION_DAYS (30 days unless configured otherwise). Scope "
        "`webhooks:manage`.",
        responses={204: None, **errors(401, 403, 404)},
        examples=[WEBHOOK_NOT_FOUND],
    )
    def delete(self, request: Request, webhook_id: int) -> Response:
        webhooks.delete_subscription(self.subscription(webhook_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class DeliveryPagination(MatchPagination):
    page_size = 50
    example_path = "/api/v1/platform/webhooks/7/deliveries"


class DeliveryQuerySerializer(serializers.Serializer):
    page = serializers.IntegerField(min_value=1, max_value=MAX_PAGE, default=1)


class DeliveriesView(WebhookEndpoint, generics.GenericAPIView):
    pagination_class = DeliveryPagination
    serializer_class = ps.DeliverySerializer

    @extend_schema(
        operation_id="listPlatformWebhookDeliveries", tags=["platform"],
        summary="Deliveries of a subscription",
        description="Newest first, 50 a page: status, attempts, the last response code and "
        "latency; also of a deleted subscription, for as long as its log is kept. Scope "
        "`webhooks:manage`.",
        parameters=[DeliveryQuerySerializer],
        responses={200: ps.DeliverySerializer(many=True), **errors(400, 401, 403, 404)},
        examples=[OpenApiExample("Delivered", response_only=True, status_codes=["200"],
                                 value=DELIVERY)],
    )
    def get(self, request: Request, webhook_id: int) -> Response:
        valid_query(DeliveryQuerySerializer, request)
        subscription = self.subscription(webhook_id, deleted=True)
        rows = subscription.deliveries.select_related("event").order_by("-created_at", "-pk")
        page = self.paginate_queryset(rows)
        data = [delivery_data(row) for row in page or []]
        return self.get_paginated_response(ps.DeliverySerializer(data, many=True).data)


class RedeliverView(WebhookEndpoint):
    @extend_schema(
        operation_id="redeliverPlatformWebhookDelivery", tags=["platform"],
        summary="Send a delivery again",
        description="One more attempt now, with the same `webhook-id`, whatever came of the "
        "earlier ones (an attempt under way is that one more). It waits, as every delivery "
        "does, while an earlier one of its match to this subscription is pending. Answers the "
        "delivery. A deleted subscription's deliveries are 404. Scope `webhooks:manage`.",
        request=None,
        responses={202: ps.DeliverySerializer, **errors(401, 403, 404)},
        examples=[
            OpenApiExample("Sent again", response_only=True, status_codes=["202"],
                           value={**DELIVERY, "status": "pending", "attempts": 3,
                                  "last_status_code": 503, "last_error": "HTTP 503",
                                  "next_attempt_at": "2026-12-01T10:05:00Z",
                                  "delivered_at": None}),
            OpenApiExample(
                "No such delivery", status_codes=["404"], response_only=True,
                value={"type": "https://batak.example/problems/not_found",
                       "title": "Not Found", "status": 404, "code": "not_found",
                       "detail": "This webhook of your platform has no such delivery."},
            ),
        ],
    )
    def post(self, request: Request, webhook_id: int, delivery_id: int) -> Response:
        subscription = self.subscription(webhook_id)
        delivery = subscription.deliveries.filter(pk=delivery_id).first()
        if delivery is None:
            raise DeliveryNotFound()
        delivery = webhooks.redeliver(delivery)
        return Response(ps.DeliverySerializer(delivery_data(delivery)).data,
                        status=status.HTTP_202_ACCEPTED)


class ReplayView(WebhookEndpoint):
    @extend_schema(
        operation_id="replayPlatformWebhook", tags=["platform"], summary="Replay events",
        description=(
            "Sends the platform's events created in [`since`, `until`) again to this "
            "subscription, oldest first: those of its types (or of `event_types` among them), "
            f"of `match_id` if given; at most {webhooks.REPLAY_MAX_EVENTS} a call (then "
            "`next_since` says where to go on). Each keeps its `webhook-id`, so a receiver "
            "that has it already drops it; a delivered or failed one is made pending again, "
            "with a fresh round of retries, and one still pending is left as it is (replaying "
            "twice sends nothing twice). Events are kept for WEBHOOK_LOG_RETENTION_DAYS (30 "
            "days unless configured otherwise). Answers how many were sent. Scope "
            "`webhooks:manage`."
        ),
        request=ps.ReplayInputSerializer,
        responses={202: ps.ReplaySerializer, **errors(400, 401, 403, 404)},
        examples=[
            OpenApiExample("Since the receiver went down", request_only=True,
                           value={"since": "2026-12-01T09:00:00Z",
                                  "until": "2026-12-01T10:00:00Z",
                                  "event_types": ["match.finished"]}),
            OpenApiExample("Replayed", response_only=True, status_codes=["202"],
                           value={"count": 37, "next_since": None}),
            WEBHOOK_NOT_FOUND,
        ],
    )
    def post(self, request: Request, webhook_id: int) -> Response:
        subscription = self.subscription(webhook_id)
        data = valid_input(ps.ReplayInputSerializer, request.data)
        replayed = webhooks.replay(
            subscription, since=data["since"], until=data.get("until"),
            event_types=data.get("event_types"), match_id=data.get("match_id"),
        )
        body = {"count": replayed.count, "next_since": replayed.next_since}
        return Response(ps.ReplaySerializer(body).data, status=status.HTTP_202_ACCEPTED)

