"""The webhook payloads as OpenAPI 3.1 `webhooks` (SPECTACULAR_SETTINGS["WEBHOOKS"])."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, OpenApiWebhook, extend_schema

from platforms.api.serializers import WEBHOOK_BODIES

HEADERS = (
    "Signed as the Standard Webhooks specification says: `webhook-id` (the event's id, the "
    "same on every retry: deduplicate on it), `webhook-timestamp` (Unix seconds) and "
    "`webhook-signature` (`v1,<base64 HMAC-SHA256 of id.timestamp.body>` with the "
    "subscription's secret). Answer 2xx within 5 seconds; anything else is retried, and the "
    "later events of the same match wait for it: order a match's events by `sequence`."
)

WEBHOOKS = [
    OpenApiWebhook(
        name=event_type.value,
        decorator=extend_schema(
            summary=event_type.label,
            description=HEADERS,
            request=body,
            responses={200: OpenApiResponse(description="Received (any 2xx).")},
        ),
    )
    for event_type, body in WEBHOOK_BODIES.items()
]
