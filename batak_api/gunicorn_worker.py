"""gunicorn's threaded worker, answering the requests it refuses itself as problem documents.

gunicorn refuses a request whose head it cannot read (a request line over its limit, a header
line over its limit, a malformed line) before the application sees it, with an HTML page. Behind
nginx (deploy/nginx.conf) such requests never arrive, but the embedded default and the tests
talk to gunicorn directly: there, the same answer as nginx's, so that every 4xx of the service
is `application/problem+json` whichever part of it answers.
"""

from __future__ import annotations

import socket
from http import HTTPStatus
from typing import Any

from gunicorn import util
from gunicorn.http import errors
from gunicorn.workers.gthread import ThreadWorker

# What gunicorn refuses while reading a request's head: anything else it catches is an error of
# the application, and keeps gunicorn's own handling (a 500, logged).
HEAD_REFUSALS = (
    errors.InvalidRequestLine, errors.InvalidRequestMethod,
    errors.InvalidHTTPVersion, errors.InvalidHeader, errors.InvalidHeaderName,
    errors.LimitRequestLine, errors.LimitRequestHeaders,
    errors.ObsoleteFolding, errors.InvalidSchemeHeaders,
)


class ProblemThreadWorker(ThreadWorker):
    def handle_error(self, req: Any, client: socket.socket, addr: Any, exc: BaseException) -> None:
        if not isinstance(exc, HEAD_REFUSALS):
            super().handle_error(req, client, addr, exc)
            return
        self.log.warning("Invalid request from ip=%s: %s", (addr or ("",))[0], exc)
        # gunicorn loads this class before the application, so Django is set up only here.
        from django.conf import settings
        from django.utils import translation

        from games.api.problems import render

        # The head was not read, so neither was its Accept-Language: the default language (this
        # thread may still have the language of the last request it served).
        with translation.override(settings.LANGUAGE_CODE):
            body = self._problem(exc)
        content = render(body)
        status = HTTPStatus(body["status"])
        head = (f"HTTP/1.1 {status.value} {status.phrase}\r\nConnection: close\r\n"
                "Content-Type: application/problem+json\r\nContent-Language: en\r\n"
                f"Content-Length: {len(content)}\r\n\r\n")
        try:
            util.write_nonblock(client, head.encode("latin-1") + content)
        except OSError:
            self.log.debug("Failed to send error message.")

    def _problem(self, exc: BaseException) -> dict[str, Any]:
        from games.api.problems import problem

        if isinstance(exc, errors.LimitRequestLine):
            return problem(414, "uri_too_long", "The request line is longer than "
                           f"{self.cfg.limit_request_line} bytes.")
        return problem(400, "bad_request", "The request cannot be read: malformed, a header line "
                       f"longer than {self.cfg.limit_request_field_size} bytes, or more than "
                       f"{self.cfg.limit_request_fields} header lines.")
