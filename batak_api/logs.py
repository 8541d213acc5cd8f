"""Structured logs: one JSON object a line, carrying the request, match or task it belongs to.

Code logs as usual (`logger.info("bot turn not queued", extra={...})`); `ContextFilter` adds the
ids bound for the current request or task (`runtime.log_context`, where the apps bind them), and
`JsonFormatter` writes the record, its extras and those ids as one line; `RequestLogMiddleware`
binds a request's ids and logs the request. This module is imported by the logging
configuration, gunicorn's included, so it must not need Django set up.
"""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from batak_api.metrics import count_request
from runtime.log_context import add_log_context, current_log_context, log_context

if TYPE_CHECKING:
    from django.http import HttpRequest, HttpResponse

# Attributes every LogRecord has; anything else on a record came from `extra=` or the context.
_STANDARD = frozenset(vars(logging.makeLogRecord({}))) | {"message", "asctime"}


class ContextFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        for name, value in current_log_context().items():
            if not hasattr(record, name):
                setattr(record, name, value)
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name, value in vars(record).items():
            if name not in _STANDARD and not name.startswith("_"):
                entry[name] = value
        if record.exc_info:
            entry["exc_info"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack_info"] = self.formatStack(record.stack_info)
        # One record is one line whatever it holds: json.dumps escapes newlines in strings.
        return json.dumps(entry, default=str, ensure_ascii=False)


request_logger = logging.getLogger("batak_api.request")
# A client's or proxy's id is kept so one request can be followed across services; anything
# that is not a short token is replaced, so it cannot forge log lines or fill them.
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
_PROBES = frozenset({"/healthz", "/readyz"})


class RequestLogMiddleware:
    """Gives each request an id (``X-Request-ID``, taken from the request or made up), binds it
    and the match named in the URL to every record logged meanwhile, and logs one line per
    request with its status and duration."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        given = request.headers.get("X-Request-ID", "")
        request_id = given if _REQUEST_ID.fullmatch(given) else uuid.uuid4().hex
        started = time.perf_counter()
        with log_context(request_id=request_id):
            response = self.get_response(request)
            response["X-Request-ID"] = request_id
            user = getattr(request, "user", None)
            count_request(request, response.status_code, time.perf_counter() - started)
            # Probes come every few seconds; their lines would drown the rest.
            level = logging.DEBUG if request.path in _PROBES else logging.INFO
            request_logger.log(
                level,
                "%s %s %s",
                request.method,
                request.path,
                response.status_code,
                extra={
                    "method": request.method,
                    "path": request.path,
                    "status": response.status_code,
                    "duration_ms": round((time.perf_counter() - started) * 1000, 2),
                    "user_id": user.pk if user is not None and user.is_authenticated else None,
                },
            )
        return response

    def process_view(
        self, request: HttpRequest, view: Callable[..., Any], args: Any, kwargs: dict[str, Any]
    ) -> None:
        if "match_id" in kwargs:
            add_log_context(match_id=str(kwargs["match_id"]))
