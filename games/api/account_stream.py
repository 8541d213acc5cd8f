"""`GET /api/v1/me/stream`: a person's own stream, what happens to them across all their matches
on one connection (games/account_stream.py)."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Generator

from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.views import APIView

from games import account_stream, event_log
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
from games.models import AccountEventType

EXAMPLE = (
    "retry: 1000\n\n"
    "id: 48213.9917\nevent: turn.started\n"
    'data: {"type":"turn.started","timestamp":"2026-12-01T10:02:03Z",'
    '"data":{"match_id":"0b7e3c52-6a43-4b8e-9d0a-3f1f7c2a9e11","version":31,"seat":2,'
    '"deal_number":1,"phase":"play","deadline":"2026-12-01T10:02:33Z"}}\n\n'
    ": heartbeat\n\n"
)


class MyStreamQuerySerializer(serializers.Serializer):
    after = serializers.RegexField(
        event_log.CURSOR_PATTERN, max_length=37, required=False,
        help_text="An event's `id`: the stream starts after it (the `Last-Event-ID` header "
        "wins over it). `0.0`: from the oldest event kept. Left out: from now.",
    )
    event_type = serializers.ListField(
        child=StrictChoiceField(choices=AccountEventType.choices), required=False,
        max_length=len(AccountEventType.choices),
        help_text="Only these types (repeat the parameter); left out: every type.",
    )
    match_id = serializers.UUIDField(required=False, help_text="Only this match's events.")


class MyStreamView(APIView):
    content_negotiation_class = AnyAccept
    # Django's View declares it an instance variable, so no ClassVar.
    http_method_names = ["get"]  # noqa: RUF012

    @extend_schema(
        operation_id="streamMyEvents", tags=["accounts"],
        summary="Everything that happens to you, across your matches (Server-Sent Events)",
        description=(
            "What happens to you across all your matches, on one connection: a seat given to "
            "you at a match someone else made (`match.seated`: a platform's, a batch's), your "
            "matches starting and ending, your turns (`turn.started`, with the match and its "
            "clock), seats taken and left at your tables, rematches offered to you and "
            "started, your rating changing. Each event is an SSE event named by its type, its "
            "data `{type, timestamp, data}` (`x-sse-events` names each). Follow a match "
            "being played on its own stream (`streamEvents`): this one tells you which. "
            "Each event's `id` is a cursor across matches: reconnect with `Last-Event-ID` "
            "(EventSource does) and the stream goes on after it, with nothing missed and "
            "nothing twice; each match's events come in its order. Filter with `event_type` "
            "(repeated) and `match_id`. Events are kept ACCOUNT_STREAM_RETENTION_HOURS (24 "
            "hours unless configured otherwise): a cursor older than that goes on from the "
            "oldest kept. A comment line (`: heartbeat`) comes when nothing has happened for "
            f"{settings.STREAM_HEARTBEAT_SECONDS:g} s; the stream looks again then whether "
            "your token is still valid, and ends if not. The stream server (the front door "
            "routes `/stream` paths to it) keeps a stream open up to "
            f"{settings.STREAM_MAX_SECONDS:g} s; a server that holds a thread per request "
            f"ends it after {MAX_WSGI_SECONDS} s and holds {MAX_WSGI_PER_ACCOUNT} per process "
            "(reconnect: nothing is lost). Counts among your live streams (429 "
            "`too_many_streams` beyond)."
        ),
        parameters=[
            MyStreamQuerySerializer,
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
                examples=[OpenApiExample("Your turn", EXAMPLE)],
            ),
            **errors(400, 401, 403),
            429: OpenApiResponse(PROBLEM, description=(
                "Too many streams: yours (`too_many_streams`), the server process's "
                "(`server_busy`), or the request rate (`throttled`). Retry after "
                "`Retry-After` seconds."
            )),
        },
    )
    def get(self, request: Request) -> EventStreamResponse:
        query = valid_query(MyStreamQuerySerializer, request)
        resume = request.headers.get("Last-Event-ID", query.get("after"))
        user_id = request.user.pk
        assert user_id is not None  # signed in: the default permission
        after = (account_stream.LOG.latest(user_id) if resume is None
                 else event_log.Cursor.parse(resume))
        if after is None:
            raise InvalidStreamCursor()
        types = query.get("event_type")
        match_id = query.get("match_id")
        follower = log_streams.Follower(
            account_stream.LOG, user_id, after,
            event_log.Filter(frozenset(types) if types else None,
                             None if match_id is None else frozenset([match_id])),
            credential_of(request.auth))
        # Served on an event loop (batak_api/asgi.py) the stream holds no thread.
        events: AsyncGenerator[bytes, None] | Generator[bytes, None, None] = (
            log_streams.async_events(follower, settings.STREAM_MAX_SECONDS)
            if isinstance(request._request, ASGIRequest)
            else log_streams.sync_events(follower, MAX_WSGI_SECONDS))
        return EventStreamResponse(user_id, events, per_account=quotas_of(request).streams)
