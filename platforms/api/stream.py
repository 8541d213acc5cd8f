"""The platform API's stream: `GET /api/v1/platform/stream`, every event of the platform's
matches and players on one connection (platforms/stream.py)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncGenerator, Generator, Sequence
from typing import Any

from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from games import event_log
from games.api import log_streams
from games.api.base import PROBLEM, errors, valid_query
from games.api.feed import AnyAccept
from games.api.quotas import quotas_of
from games.api.serializers.fields import StrictChoiceField
from games.api.streams import (
    CONTENT_TYPE,
    MAX_WSGI_PER_ACCOUNT,
    MAX_WSGI_SECONDS,
    EventStreamResponse,
    credential_of,
)
from games.errors import InvalidStreamCursor
from platforms import stream
from platforms.api.base import PlatformEndpoint
from platforms.authentication import scoped
from platforms.errors import BatchNotFound
from platforms.models import EventType, MatchBatch, Scope

EXAMPLE = (
    "retry: 1000\n\n"
    "id: 48213.9917\nevent: turn.started\n"
    'data: {"type":"turn.started","timestamp":"2026-12-01T10:02:03Z","sequence":12,'
    '"data":{"match_id":"0b7e3c52-6a43-4b8e-9d0a-3f1f7c2a9e11","version":31,"seat":2,'
    '"external_id":"user-42","deadline":"2026-12-01T10:02:33Z"}}\n\n'
    ": heartbeat\n\n"
)


class StreamQuerySerializer(serializers.Serializer):
    after = serializers.RegexField(
        event_log.CURSOR_PATTERN, max_length=37, required=False,
        help_text="An event's `id`: the stream starts after it (the `Last-Event-ID` header "
        "wins over it). `0.0`: from the oldest event kept. Left out: from now.",
    )
    event_type = serializers.ListField(
        child=StrictChoiceField(choices=EventType.choices), required=False,
        max_length=len(EventType.choices),
        help_text="Only these types (repeat the parameter); left out: every type.",
    )
    match_id = serializers.UUIDField(required=False, help_text="Only this match's events.")
    batch_id = serializers.UUIDField(
        required=False, help_text="Only the events of this batch's matches "
        "(`createPlatformMatchBatch`); one not of the platform is 404 `not_found`.",
    )


class PlatformStreamView(PlatformEndpoint):
    permission_classes: Sequence[type[BasePermission]] = [scoped(Scope.MATCHES_READ)]
    content_negotiation_class = AnyAccept
    # Django's View declares it an instance variable, so no ClassVar.
    http_method_names = ["get"]  # noqa: RUF012

    @extend_schema(
        operation_id="streamPlatformEvents", tags=["platform"],
        summary="Every event of the platform (Server-Sent Events)",
        description=(
            "Every event of every match of your circle (those you create and those your "
            "players open) and of your players, on one connection: each as an SSE event named "
            "by its type, whose data is the body its webhook has (the schema's `webhooks`; "
            "`x-sse-events` names each), whether or not a subscription wants it. Each event's "
            "`id` is a cursor across matches: reconnect with `Last-Event-ID` (EventSource "
            "does) and the stream goes on after it, with nothing missed and nothing twice. "
            "Each match's events come in its order (`sequence` increases); events of "
            "different matches interleave. Filter with `event_type` (repeated) and "
            "`match_id`. Events are kept PLATFORM_STREAM_RETENTION_HOURS (24 hours unless "
            "configured otherwise): a cursor older than that goes on from the oldest kept. "
            "A comment line (`: heartbeat`) comes when nothing has happened for "
            f"{settings.STREAM_HEARTBEAT_SECONDS:g} s; the stream looks again then whether "
            "the key is still usable, and ends if not. The stream server (the front door routes "
            "`/stream` paths to it) keeps a stream open up to "
            f"{settings.STREAM_MAX_SECONDS:g} s; a server that holds a thread per request "
            f"ends it after {MAX_WSGI_SECONDS} s and holds {MAX_WSGI_PER_ACCOUNT} per process "
            "(reconnect: nothing is lost). Counts among your platform's live streams (429 "
            "`too_many_streams` beyond). Scope `matches:read`."
        ),
        parameters=[
            StreamQuerySerializer,
            OpenApiParameter(
                "Last-Event-ID", OpenApiTypes.STR, OpenApiParameter.HEADER,
                pattern=event_log.CURSOR_PATTERN,
                description="The `id` of the last event received: the stream goes on after "
                "it. Sent by EventSource when it reconnects.",
            ),
        ],
        responses={
            (200, CONTENT_TYPE): OpenApiResponse(
                OpenApiTypes.STR, description="The stream of events.",
                examples=[OpenApiExample("A turn", EXAMPLE)],
            ),
            **errors(400, 401, 403, 404),
            429: OpenApiResponse(PROBLEM, description=(
                "Too many streams: the platform's (`too_many_streams`), the server process's "
                "(`server_busy`), or the request rate (`throttled`). Retry after "
                "`Retry-After` seconds."
            )),
        },
    )
    def get(self, request: Request) -> EventStreamResponse:
        query = valid_query(StreamQuerySerializer, request)
        resume = request.headers.get("Last-Event-ID", query.get("after"))
        platform_id = self.platform.pk
        after = (stream.LOG.latest(platform_id) if resume is None
                 else event_log.Cursor.parse(resume))
        if after is None:
            raise InvalidStreamCursor()
        types = query.get("event_type")
        credential = credential_of(request.auth)
        assert credential is not None  # a platform's key
        follower = log_streams.Follower(
            stream.LOG, platform_id, after,
            event_log.Filter(frozenset(types) if types else None, self._matches(query)),
            credential)
        # Served on an event loop (batak_api/asgi.py) the stream holds no thread.
        events: AsyncGenerator[bytes, None] | Generator[bytes, None, None] = (
            log_streams.async_events(follower, settings.STREAM_MAX_SECONDS)
            if isinstance(request._request, ASGIRequest)
            else log_streams.sync_events(follower, MAX_WSGI_SECONDS))
        return EventStreamResponse(self.platform.user_id, events,
                                   per_account=quotas_of(request).streams)

    def _matches(self, query: dict[str, Any]) -> frozenset[uuid.UUID] | None:
        """The matches whose events the stream sends (None: all of them)."""
        wanted: frozenset[uuid.UUID] | None = None
        if "match_id" in query:
            wanted = frozenset([query["match_id"]])
        if "batch_id" in query:
            batch = MatchBatch.objects.filter(pk=query["batch_id"],
                                              platform=self.platform).first()
            if batch is None:
                raise BatchNotFound()
            of_batch = frozenset(uuid.UUID(match_id) for match_id in batch.match_ids)
            wanted = of_batch if wanted is None else wanted & of_batch
        return wanted
