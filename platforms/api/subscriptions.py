"""The platform API's webhooks: `/api/v1/platform/webhooks...` (subscriptions, their
delivery log, redeliveries and replays)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response

from games.api.base import (
    TimeCursorPagination,
    errors,
    valid_input,
    valid_query,
)
from games.api.problems import problem_type
from platforms import webhooks
from platforms.api import serializers as ps
from platforms.api.base import (
    PlatformEndpoint,
)
from platforms.authentication import scoped
from platforms.errors import (
    DeliveryNotFound,
    WebhookNotFound,
)
from platforms.models import (
    DeliveryStatus,
    EventType,
    Scope,
    WebhookDelivery,
    WebhookSubscription,
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
    value={"type": problem_type("not_found"), "title": "Not Found",
           "status": 404, "code": "not_found", "detail": "Your platform has no such webhook."},
)


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


class DeliveryPagination(TimeCursorPagination):
    """Newest first, by cursor: a walk through the log sees each delivery once while new ones
    are made (they come before its first page)."""

    page_size = 50
    max_page_size = 200
    ordering = ("-created_at", "-pk")
    example_path = "/api/v1/platform/webhooks/7/deliveries"


class DeliveryQuerySerializer(serializers.Serializer):
    cursor = serializers.CharField(
        required=False, help_text="From a `next` or `previous` link; left out: the first page "
        "(the newest). One this list did not give is 400 `invalid_cursor`.",
    )
    page_size = serializers.IntegerField(min_value=1, max_value=DeliveryPagination.max_page_size,
                                         default=DeliveryPagination.page_size)
    status = serializers.ChoiceField(choices=DeliveryStatus.choices, required=False,
                                     help_text="Only the deliveries in this state.")
    event_type = serializers.ChoiceField(choices=EventType.choices, required=False,
                                         help_text="Only the deliveries of this event type.")
    match_id = serializers.UUIDField(required=False,
                                     help_text="Only the deliveries of this match's events.")


class DeliveriesView(WebhookEndpoint, generics.GenericAPIView):
    pagination_class = DeliveryPagination
    serializer_class = ps.DeliverySerializer

    @extend_schema(
        operation_id="listPlatformWebhookDeliveries", tags=["platform"],
        summary="Deliveries of a subscription",
        description="Newest first, 50 a page (up to 200 with `page_size`), by cursor (follow "
        "`next`): status, attempts, the last response code and "
        "latency; also of a deleted subscription, for as long as its log is kept. Filtered by "
        "`status`, `event_type` and `match_id` (each optional, all of them together). Scope "
        "`webhooks:manage`.",
        parameters=[DeliveryQuerySerializer],
        responses={200: ps.DeliverySerializer(many=True), **errors(400, 401, 403, 404)},
        examples=[OpenApiExample("Delivered", response_only=True, status_codes=["200"],
                                 value=DELIVERY)],
    )
    def get(self, request: Request, webhook_id: int) -> Response:
        query = valid_query(DeliveryQuerySerializer, request)
        subscription = self.subscription(webhook_id, deleted=True)
        rows = subscription.deliveries.select_related("event")
        if "status" in query:
            rows = rows.filter(status=query["status"])
        if "event_type" in query:
            rows = rows.filter(event__type=query["event_type"])
        if "match_id" in query:
            rows = rows.filter(event__match_id=query["match_id"])
        page = self.paginate_queryset(rows)
        data = [delivery_data(row) for row in page or []]
        return self.get_paginated_response(ps.DeliverySerializer(data, many=True).data)


class RedeliverView(WebhookEndpoint):
    @extend_schema(
        operation_id="redeliverPlatformWebhookDelivery", tags=["platform"],
        summary="Send a delivery again",
        description="One more attempt now, with the same `webhook-id`, whatever came of the "
        "earlier ones (an attempt under way is that one more). A delivery that was over is "
        "sent outside its match's order: it neither waits for nor holds back the match's live "
        "events (one still pending keeps its place). Answers the delivery. A deleted "
        "subscription's deliveries are 404. Scope `webhooks:manage`.",
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
                value={"type": problem_type("not_found"),
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


class RecoverView(WebhookEndpoint):
    @extend_schema(
        operation_id="recoverPlatformWebhook", tags=["platform"],
        summary="Send every failed delivery again",
        description=(
            "Once your receiver is back after an outage long enough for deliveries to fail "
            "(their retries spent): every delivery to this subscription that failed, of the "
            "events created in [`since`, `until`), is made pending again with a fresh round of "
            "retries and sent at once, oldest first, at most "
            f"{webhooks.REPLAY_MAX_EVENTS} a call (then `next_since` says where to go on). "
            "Each keeps its `webhook-id`. What succeeded, and what is still pending (it is "
            "on its way), is not sent again; recovering twice sends nothing twice. Answers how "
            "many were sent. Scope `webhooks:manage`."
        ),
        request=ps.RecoverInputSerializer,
        responses={202: ps.ReplaySerializer, **errors(400, 401, 403, 404)},
        examples=[
            OpenApiExample("Since the receiver went down", request_only=True,
                           value={"since": "2026-12-01T09:00:00Z"}),
            OpenApiExample("Recovered", response_only=True, status_codes=["202"],
                           value={"count": 12, "next_since": None}),
            WEBHOOK_NOT_FOUND,
        ],
    )
    def post(self, request: Request, webhook_id: int) -> Response:
        subscription = self.subscription(webhook_id)
        data = valid_input(ps.RecoverInputSerializer, request.data)
        recovered = webhooks.replay(subscription, since=data["since"], until=data.get("until"),
                                    failed_only=True)
        body = {"count": recovered.count, "next_since": recovered.next_since}
        return Response(ps.ReplaySerializer(body).data, status=status.HTTP_202_ACCEPTED)
