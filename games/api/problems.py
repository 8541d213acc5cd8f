"""One error format for every 4xx and 5xx: RFC 9457 problem details (application/problem+json).

Fields: ``type`` (a URL naming the error: its code's entry on the docs' errors page),
``title`` (the HTTP status in the request's language), ``status``, ``code`` (stable,
machine-readable), ``detail`` (a sentence in the request's language), and where they apply:
``errors`` (per field), ``reason``, ``legal_actions`` and ``legal_cards`` (a refused move),
``current_version`` (a stale ``expected_version``).

Every problem is rendered the same way, whichever layer answers (a DRF view, Django's 400, 404
and 500 handlers, the body-size limit): compact UTF-8 JSON.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import set_rollback

from games.errors import ServiceError

logger = logging.getLogger(__name__)
PROBLEM_CONTENT_TYPE = "application/problem+json"
UNKNOWN_FIELD = "unknown_field"

# The statuses the API answers with, as titles in the request's language.
TITLES = {
    400: _("Bad Request"),
    401: _("Unauthorized"),
    403: _("Forbidden"),
    404: _("Not Found"),
    405: _("Method Not Allowed"),
    406: _("Not Acceptable"),
    411: _("Length Required"),
    409: _("Conflict"),
    413: _("Content Too Large"),
    414: _("URI Too Long"),
    415: _("Unsupported Media Type"),
    422: _("Unprocessable Entity"),
    429: _("Too Many Requests"),
    500: _("Internal Server Error"),
    503: _("Service Unavailable"),
}


def problem_type(code: str) -> str:
    """The URL naming a problem: its code's entry on the docs' errors page."""
    return settings.PROBLEM_TYPE_BASE_URL + code


def problem(status: int, code: str, detail: str, **extra: Any) -> dict[str, Any]:
    return {
        "type": problem_type(code),
        "title": str(TITLES[status]),
        "status": status,
        "code": code,
        "detail": str(detail),
        **extra,
    }


def render(body: Any) -> bytes:
    """The API's one JSON rendering (as DRF's JSONRenderer renders): compact, UTF-8."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


def problem_response(body: dict[str, Any], headers: dict[str, str] | None = None) -> HttpResponse:
    """A problem document as a plain Django response, for the layers outside DRF's views."""
    return HttpResponse(
        render(body), status=body["status"], content_type=PROBLEM_CONTENT_TYPE, headers=headers
    )


def _field_errors(detail: Any, prefix: str = "") -> list[dict[str, str]]:
    """Flatten DRF's nested validation errors into ``[{field, code, message}]``."""
    if isinstance(detail, dict):
        errors = []
        for key, value in detail.items():
            name = prefix if key == "non_field_errors" else f"{prefix}.{key}" if prefix else key
            errors.extend(_field_errors(value, str(name)))
        return errors
    if isinstance(detail, list):
        errors = []
        for index, value in enumerate(detail):
            if isinstance(value, dict | list):
                errors.extend(_field_errors(value, f"{prefix}[{index}]"))
            else:
                errors.extend(_field_errors(value, prefix))
        return errors
    return [{"field": prefix, "code": getattr(detail, "code", "invalid"), "message": str(detail)}]


# DRF's own errors, each with a code of ours and a sentence of ours (DRF's sentences carry
# English details from the parser and are not translated everywhere).
_DRF_PROBLEMS: tuple[tuple[type[exceptions.APIException], str, Any], ...] = (
    (exceptions.ParseError, "malformed_request", _("The request body is not valid JSON.")),
    (exceptions.NotAuthenticated, "not_authenticated",
     _("Sign in first: send the header Authorization: Token <token>.")),
    (exceptions.AuthenticationFailed, "authentication_failed",
     _("The token is not valid; sign in again.")),
    (exceptions.PermissionDenied, "permission_denied",
     _("You may not do this.")),
    (exceptions.NotFound, "not_found", _("Not found.")),
    (exceptions.MethodNotAllowed, "method_not_allowed",
     _("This method is not allowed here.")),
    (exceptions.NotAcceptable, "not_acceptable",
     _("The API answers only in JSON (application/json).")),
    (exceptions.UnsupportedMediaType, "unsupported_media_type",
     _("Send the request body as JSON (Content-Type: application/json).")),
    (exceptions.Throttled, "throttled", _("Too many requests; wait a moment and retry.")),
)


def _problem_for(exc: Exception) -> dict[str, Any] | None:
    if isinstance(exc, ServiceError):
        return problem(exc.status, exc.code, exc.detail, **exc.extra)
    if isinstance(exc, Http404):
        return problem(404, "not_found", gettext("Not found."))
    if isinstance(exc, exceptions.ValidationError):
        errors = _field_errors(exc.detail)
        if any(error["code"] == UNKNOWN_FIELD for error in errors):
            return problem(
                400, UNKNOWN_FIELD, gettext("The request has fields this API does not know."),
                errors=errors,
            )
        return problem(
            400, "invalid_input", gettext("The request has invalid fields."), errors=errors
        )
    if isinstance(exc, exceptions.APIException):
        for kind, code, detail in _DRF_PROBLEMS:
            if isinstance(exc, kind):
                return problem(exc.status_code, code, str(detail))
        return problem(exc.status_code, "error", str(exc.detail))
    return None


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    """DRF's exception handler: every error becomes a problem document."""
    body = _problem_for(exc)
    if body is None:
        logger.exception("unhandled error", exc_info=exc)
        body = problem(500, "server_error", gettext("Something went wrong on our side."))
    set_rollback()
    headers = {}
    if isinstance(exc, exceptions.APIException):
        if getattr(exc, "auth_header", None):
            headers["WWW-Authenticate"] = exc.auth_header  # type: ignore[attr-defined]
        if getattr(exc, "wait", None):
            headers["Retry-After"] = str(max(1, round(exc.wait)))  # type: ignore[attr-defined]
    if isinstance(exc, ServiceError) and exc.retry_after is not None:
        headers["Retry-After"] = str(exc.retry_after)
    return Response(
        body, status=body["status"], headers=headers, content_type=PROBLEM_CONTENT_TYPE
    )


@csrf_exempt
def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Django's 404 for URLs outside any API view, whatever the method: the API takes tokens,
    not cookies, so no CSRF check stands before it."""
    return problem_response(problem(404, "not_found", gettext("Not found.")))


@csrf_exempt
def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Django's 400, for what it refuses before any view: a Host header the deployment does not
    serve (DJANGO_ALLOWED_HOSTS), and any other request it finds suspicious."""
    if isinstance(exception, DisallowedHost):
        return problem_response(problem(
            400, "disallowed_host", gettext("This service does not answer for that host name.")
        ))
    return problem_response(problem(
        400, "bad_request", gettext("The request cannot be read.")
    ))


def server_error(request: HttpRequest) -> HttpResponse:
    return problem_response(
        problem(500, "server_error", gettext("Something went wrong on our side."))
    )
