"""Bounds on what one request may send the API, checked before anything reads the body."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext

from games.api.problems import problem, problem_response


class RequestBodyLimitMiddleware:
    """Answers 413 ``request_too_large`` to an API request whose declared body is larger than
    API_MAX_BODY_BYTES, without reading it. A body without a Content-Length (chunked) is not
    read by Django at all, so the header is the whole check."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith("/api/"):
            try:
                length = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                length = 0
            if length > settings.API_MAX_BODY_BYTES:
                return problem_response(problem(
                    413, "request_too_large",
                    gettext("The request body is larger than %(limit)d bytes.")
                    % {"limit": settings.API_MAX_BODY_BYTES},
                    limit=settings.API_MAX_BODY_BYTES,
                ))
        return self.get_response(request)
