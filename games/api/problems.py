"""One error format for every 4xx and 5xx: RFC 9457 problem details (application/problem+json).

Fields: ``type`` (a URI naming the error, ``about:blank`` style here), ``title`` (HTTP status
phrase), ``status``, ``code`` (stable, machine-readable), ``detail`` (a sentence in the request's
language), and where they apply: ``errors`` (per field), ``reason``, ``legal_actions`` and
``legal_cards`` (a refused move), ``current_version`` (a stale ``expected_version``).
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from django.http import Http404, HttpRequest, JsonResponse
from django.utils.translation import gettext as _
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import set_rollback

from games.errors import ServiceError

logger = logging.getLogger(__name__)
PROBLEM_CONTENT_TYPE = "application/problem+json"
TYPE_BASE = "https://batak.example/problems/"


def problem(status: int, code: str, detail: str, **extra: Any) -> dict[str, Any]:
    return {
        "type": TYPE_BASE + code,
        "title": HTTPStatus(status).phrase,
        "status": status,
        "code": code,
        "detail": detail,
        **extra,
    }


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


_DRF_CODES = {
    exceptions.ParseError: "malformed_request",
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.AuthenticationFailed: "authentication_failed",
    exceptions.PermissionDenied: "permission_denied",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.Throttled: "throttled",
}


def _problem_for(exc: Exception) -> dict[str, Any] | None:
    if isinstance(exc, ServiceError):
        return problem(exc.status, exc.code, exc.detail, **exc.extra)
    if isinstance(exc, Http404):
        return problem(404, "not_found", _("Not found."))
    if isinstance(exc, exceptions.ValidationError):
        return problem(
            400,
            "invalid_input",
            _("The request has invalid fields."),
            errors=_field_errors(exc.detail),
        )
    if isinstance(exc, exceptions.APIException):
        code = next(
            (code for kind, code in _DRF_CODES.items() if isinstance(exc, kind)), "error"
        )
        return problem(exc.status_code, code, str(exc.detail))
    return None


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    """DRF's exception handler: every error becomes a problem document."""
    body = _problem_for(exc)
    if body is None:
        logger.exception("unhandled error", exc_info=exc)
        body = problem(500, "server_error", _("Something went wrong on our side."))
    set_rollback()
    headers = {}
    if isinstance(exc, exceptions.APIException):
        if getattr(exc, "auth_header", None):
            headers["WWW-Authenticate"] = exc.auth_header  # type: ignore[attr-defined]
        if getattr(exc, "wait", None):
            headers["Retry-After"] = str(exc.wait)  # type: ignore[attr-defined]
    return Response(
        body, status=body["status"], headers=headers, content_type=PROBLEM_CONTENT_TYPE
    )


def not_found(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    """Django's 404 page for URLs outside any API view."""
    return JsonResponse(
        problem(404, "not_found", _("Not found.")), status=404, content_type=PROBLEM_CONTENT_TYPE
    )


def server_error(request: HttpRequest) -> JsonResponse:
    return JsonResponse(
        problem(500, "server_error", _("Something went wrong on our side.")),
        status=500,
        content_type=PROBLEM_CONTENT_TYPE,
    )
