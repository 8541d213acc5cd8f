"""What every endpoint of the API shares: the match endpoint's base class (it loads the
match and asks the access policy before the handler runs), input checks, ETags and the
documentation's shared parts."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import AsyncIterator, Iterator
from datetime import UTC
from typing import Any, ClassVar
from urllib.parse import urlsplit

from asgiref.sync import sync_to_async
from django.contrib.auth.models import User
from django.core.handlers.asgi import ASGIRequest
from django.http import StreamingHttpResponse
from django.utils.dateparse import parse_datetime
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
)
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.pagination import Cursor, CursorPagination, PageNumberPagination
from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import access, presenters, seating
from games.api.problems import problem_type
from games.api.serializers.matches import MatchSerializer
from games.api.serializers.problems import ProblemSerializer
from games.errors import InvalidCursor, MatchNotFound
from games.models import Match, Seat, Visibility

# --- documentation helpers ---------------------------------------------------------------------

PROBLEM = ProblemSerializer


def errors(*codes: int) -> dict[int, Any]:
    return {code: PROBLEM for code in codes}


def example(name: str, value: Any) -> OpenApiExample:
    return OpenApiExample(name, value=value, response_only=True, status_codes=["200"])


VERSION_EXAMPLE = OpenApiExample(
    "Stale version", status_codes=["409"], response_only=True,
    value={"type": problem_type("stale_version"), "title": "Conflict",
           "status": 409, "code": "stale_version",
           "detail": "The match has changed since the version you sent; reload and retry.",
           "current_version": 17},
)
ILLEGAL_EXAMPLE = OpenApiExample(
    "Must follow suit", status_codes=["422"], response_only=True,
    value={"type": problem_type("must_follow_suit"),
           "title": "Unprocessable Entity", "status": 422, "code": "must_follow_suit",
           "detail": "You must follow suit.", "reason": "must_follow_suit",
           "legal_actions": [{"kind": "play", "card": "QC"}], "legal_cards": ["QC"]},
)
NOT_CREATOR_EXAMPLE = OpenApiExample(
    "Not the creator", status_codes=["403"], response_only=True,
    value={"type": problem_type("not_match_creator"), "title": "Forbidden",
           "status": 403, "code": "not_match_creator",
           "detail": "Only the match's creator may do this."},
)
# The longest key IdempotencyRecord.key holds.
MAX_IDEMPOTENCY_KEY_LENGTH = 255
IDEMPOTENCY_KEY_PATTERN = rf"^[\x21-\x7e]{{1,{MAX_IDEMPOTENCY_KEY_LENGTH}}}$"
IDEMPOTENCY_KEY = re.compile(IDEMPOTENCY_KEY_PATTERN)
IDEMPOTENCY_HEADER = OpenApiParameter(
    "Idempotency-Key", OpenApiTypes.STR, OpenApiParameter.HEADER, required=False,
    pattern=IDEMPOTENCY_KEY_PATTERN,
    description=f"A unique string of 1 to {MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII "
    "characters (e.g. a UUID). Repeating a request with the same key returns the first result "
    "instead of applying the action twice, for 24 hours after the key's first request (the "
    "operator's `IDEMPOTENCY_KEY_HOURS`), after which the key is a new request's; a key used "
    "for a different request is 422 "
    "`idempotency_key_reused`; a key whose first request is still being processed is 409 "
    "`idempotency_key_in_use`; a key outside the pattern is 400 `invalid_idempotency_key`.",
)


# What an endpoint answering through `etag_response` documents: the header it reads, the one it
# sends, and its 304, so that generated clients type the conditional request and its answer.
ETAG_PARAMETERS = [
    OpenApiParameter(
        "If-None-Match", OpenApiTypes.STR, OpenApiParameter.HEADER, required=False,
        description="The `ETag` of the copy you have: 304, with no body, while it is current.",
    ),
    OpenApiParameter(
        "ETag", OpenApiTypes.STR, OpenApiParameter.HEADER, response=[200, 304], required=True,
        description="A strong validator of the body: send it back as `If-None-Match`.",
    ),
]
NOT_MODIFIED = OpenApiResponse(
    description="Not modified: the copy whose `ETag` you sent in `If-None-Match` is current. "
    "No body."
)


# --- base classes ------------------------------------------------------------------------------


# The scope of a partner platform's key that reads its own matches (platforms' Scope
# `matches:read`, named here since games never imports platforms).
PLATFORM_MATCH_READS = "matches:read"


class MatchEndpoint(APIView):
    """Loads the match named in the URL and decides the caller's access to it before the
    handler runs (games/access.py), so no handler can forget the check: ``permission`` is what
    the endpoint needs. Every request of a seated person counts as their presence, and on
    endpoints with ``counts_spectators`` every request about a public match of anyone else
    signed in as watching it."""

    permission: ClassVar[access.Permission] = access.Permission.READ
    counts_spectators: ClassVar[bool] = False
    # The scope a partner platform's key needs to read this endpoint of the platform's own
    # matches (platforms/authentication.py); None: no key is accepted. A key asking about any
    # other match is told it does not exist.
    platform_key_scope: ClassVar[str | None] = None

    match: Match
    access: access.Access

    @property
    def seat(self) -> Seat | None:
        return self.access.seat

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        try:
            self.match = Match.objects.prefetch_related("seats").get(pk=kwargs["match_id"])
        except Match.DoesNotExist:
            raise MatchNotFound() from None
        platform = platform_key(request)
        if platform and self.match.circle_id != signed_in(request).pk:
            raise MatchNotFound()
        self.access = access.require(self.match, signed_in(request), self.permission)
        if self.seat is not None:
            if seating.present(self.match, self.seat, signed_in(request),
                               looks=request.method in SAFE_METHODS):
                # Their first look started the match: what follows reads it as it is now.
                self.match = Match.objects.prefetch_related("seats").get(pk=self.match.pk)
                self.access = access.require(self.match, signed_in(request), self.permission)
        elif (self.counts_spectators and not platform
              and self.match.visibility == Visibility.PUBLIC):
            seating.watching(self.match, signed_in(request))


def platform_key(request: Request) -> bool:
    """Whether the caller is a partner platform, by its key (platforms' `PlatformKey`), rather
    than a person: it reads its own matches as their creator, and is nobody's spectator."""
    return bool(getattr(request.auth, "is_platform_key", False))


def signed_in(request: Request) -> User:
    """The caller: every endpoint but sign-up and log-in lets only the signed in through
    (IsAuthenticated, the default permission)."""
    user = request.user
    assert user.is_authenticated
    return user


def created_match_response(match: Match) -> Response:
    """201 with the new match's summary: every way of opening a table answers the same."""
    body = MatchSerializer(presenters.match_summary(match)).data
    return Response(body, status=status.HTTP_201_CREATED)


def streamed_response(
    request: Request, chunks: Iterator[str], *, content_type: str, chunk_size: int = 64 * 1024
) -> StreamingHttpResponse:
    """A body sent as it is written, on either server. Served on an event loop (the embedded
    default, batak_api/asgi.py), a plain iterator would be read whole into memory before the
    first byte; there each ``chunk_size`` of it is written on the thread that serves the
    database, one step at a time."""
    batches = _batched(chunks, chunk_size)
    if not isinstance(request._request, ASGIRequest):
        return StreamingHttpResponse(batches, content_type=content_type)
    step = sync_to_async(lambda: next(batches, None), thread_sensitive=True)

    async def written() -> AsyncIterator[str]:
        while (batch := await step()) is not None:
            yield batch

    return StreamingHttpResponse(written(), content_type=content_type)


def _batched(chunks: Iterator[str], size: int) -> Iterator[str]:
    batch: list[str] = []
    length = 0
    for chunk in chunks:
        batch.append(chunk)
        length += len(chunk)
        if length >= size:
            yield "".join(batch)
            batch, length = [], 0
    if batch:
        yield "".join(batch)


def etag_response(request: Request, data: Any) -> Response:
    """200 with a strong ETag of the body, or 304 when the client already has it."""
    digest = hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()
    etag = f'"{digest[:32]}"'
    if etag in [tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")]:
        return Response(status=status.HTTP_304_NOT_MODIFIED, headers={"ETag": etag})
    return Response(data, headers={"ETag": etag})


class TimeCursorPagination(CursorPagination):
    """Pages by DRF's cursor on a time (the time, then an offset among equal times): a walk
    sees each row once while rows are added. A cursor the list did not give is 400
    `invalid_cursor`; `next` and `previous` are relative, as `MatchPagination`'s are. A list
    names its `ordering` (a time first), its page sizes and its `example_path`."""

    page_size_query_param = "page_size"
    # The list's path, for the schema's examples of its links.
    example_path = ""

    def decode_cursor(self, request: Request) -> Cursor | None:
        try:
            cursor = super().decode_cursor(request)
        except NotFound:
            raise InvalidCursor(field="cursor") from None
        # DRF checks only the cursor's encoding: a forged position would fail in the query.
        if cursor and cursor.position is not None and not _is_datetime(str(cursor.position)):
            raise InvalidCursor(field="cursor")
        return cursor

    def get_next_link(self) -> str | None:
        return path_and_query(super().get_next_link())

    def get_previous_link(self) -> str | None:
        return path_and_query(super().get_previous_link())

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        paged = super().get_paginated_response_schema(schema)
        for name, none in (("next", "the last"), ("previous", "the first")):
            paged["properties"][name].update(
                format="uri-reference", example=f"{self.example_path}?cursor=cD0yMDI2",
                description=f"The {name} page's path and query, relative to the server "
                f"(null on {none} page).",
            )
        return paged


def _is_datetime(text: str) -> bool:
    """A time the database can compare with: in range once in UTC (SQLite converts it, and a
    year 1 a day ahead of UTC, or 9999 behind, overflows there)."""
    try:
        moment = parse_datetime(text)
        return moment is not None and 1 < moment.astimezone(UTC).year < 9999
    except (ValueError, OverflowError):  # well formed, out of range
        return False


# Far beyond any list a person has; bounds the offset a page number asks the database for.
MAX_PAGE = 100_000


class MatchPagination(PageNumberPagination):
    """Pages of 20 (up to 100 with `page_size`). `next` and `previous` are the path and query of
    the neighbouring pages, relative to the server: they hold behind any proxy, whatever host
    and scheme the client used."""

    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100
    # The list's path, for the schema's examples of its links.
    example_path = "/api/v1/matches"

    def get_next_link(self) -> str | None:
        return path_and_query(super().get_next_link())

    def get_previous_link(self) -> str | None:
        return path_and_query(super().get_previous_link())

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        paged = super().get_paginated_response_schema(schema)
        for name, page, none in (("next", 4, "the last"), ("previous", 2, "the first")):
            paged["properties"][name].update(
                format="uri-reference", example=f"{self.example_path}?page={page}",
                description=f"The {name} page's path and query, relative to the server "
                f"(null on {none} page).",
            )
        return paged


def path_and_query(url: str | None) -> str | None:
    if url is None:
        return None
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}" if parts.query else parts.path


def valid_query(
    serializer_class: type[serializers.Serializer], request: Request
) -> dict[str, Any]:
    # As a plain dict: DRF reads a QueryDict as a form, where an empty value counts as absent,
    # and `?status=` must be refused, not ignored. A list is the parameter repeated.
    query = request.query_params
    data: dict[str, Any] = query.dict()
    # The class's declared fields: no serializer made on every request just to look.
    for name, field in serializer_class._declared_fields.items():
        if isinstance(field, serializers.ListField) and name in query:
            data[name] = query.getlist(name)
    return valid_input(serializer_class, data)


def valid_input(serializer_class: type[serializers.Serializer], data: Any) -> dict[str, Any]:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data
