"""Bounds on the request bodies the service takes, enforced by the servers' entry points while a
body is read, before Django sees any of it.

Django cannot do this itself on either kind of server: on ASGI its handler reads (spools) the
whole body before any middleware runs, so a 300 MB upload was taken in full before a check of
its Content-Length could refuse it; and a chunked body (no Content-Length) reached no view at
all, on either server: DRF reads a body only as long as its Content-Length says, so the view
saw none and acted on its defaults. So the applications themselves are wrapped: `BodyLimitASGI`
around batak_api/asgi.py's (uvicorn: the embedded default and the stream server) and
`BodyLimitWSGI` around batak_api/wsgi.py's (gunicorn, and runserver). Each refuses a body over
its limit with 413 `request_too_large` as soon as the declared length or the bytes received so
far are over it, storing nothing more (it drops a bounded part of the rest, `LINGER_*`, before
closing the connection), and hands Django a chunked body within the limit as
an ordinary one (read whole, with its Content-Length), so it is read exactly as the same body
sent with a Content-Length would be.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from http import HTTPStatus
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.utils import translation
from django.utils.translation import gettext

from games.api.problems import PROBLEM_CONTENT_TYPE, problem, render

logger = logging.getLogger("batak_api.request")

# What the WSGI wrapper leaves in the environ when it answered without reading the body: the
# server should then close the connection rather than read the rest (see gunicorn_conf.py).
BODY_LEFT_UNREAD = "batak.body_left_unread"
# After a refusal, the rest of the body is read and dropped for a while before the connection
# is closed (nginx's "lingering close"): a client that sends its whole body before reading the
# answer, as most HTTP libraries do, would otherwise meet a reset instead of the 413. Bounded,
# so that what a refusal costs stays small: then the connection is closed all the same.
LINGER_BYTES = 32 * 1024 * 1024
LINGER_SECONDS = 3.0

ASGIMessage = Mapping[str, Any]
Receive = Callable[[], Awaitable[ASGIMessage]]
Send = Callable[[ASGIMessage], Awaitable[None]]
ASGIApp = Callable[[dict[str, Any], Receive, Send], Awaitable[None]]
StartResponse = Callable[..., Any]
WSGIApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


def body_limit(path: str) -> int | None:
    """The most bytes a request body sent to ``path`` may have: API_MAX_BODY_BYTES for the API;
    elsewhere (the admin's forms) Django's own bound on a form's body, DATA_UPLOAD_MAX_MEMORY_SIZE
    (None there means no bound, as in Django)."""
    if path.startswith("/api/"):
        return int(settings.API_MAX_BODY_BYTES)
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return None if limit is None else int(limit)


@contextmanager
def request_language(accept_language: str) -> Iterator[str]:
    """Django's translations in the language Accept-Language asks for, for an answer given before
    Django's LocaleMiddleware has run (here, before the request reaches Django at all); yields
    that language's code, the answer's Content-Language."""
    request = HttpRequest()
    request.META["HTTP_ACCEPT_LANGUAGE"] = accept_language
    language = translation.get_language_from_request(request)
    with translation.override(language):
        yield language


def refusal(limit: int, accept_language: str) -> tuple[bytes, str]:
    """The 413 problem document, in the request's language, and that language."""
    with request_language(accept_language) as language:
        return render(problem(
            413, "request_too_large",
            gettext("The request body is larger than %(limit)d bytes.") % {"limit": limit},
            limit=limit,
        )), language


def _log_refusal(method: str, path: str, limit: int, declared: int | None) -> None:
    logger.info("%s %s %s", method, path, 413, extra={
        "method": method, "path": path, "status": 413, "limit": limit,
        "declared_length": declared,
    })


def _declared_length(value: str | bytes | None) -> int | None:
    """A Content-Length as a number; the servers refuse malformed ones before the application
    is called, so anything else counts as undeclared (what arrives is counted all the same)."""
    try:
        return int(value) if value else None
    except ValueError:
        return None


class BodyLimitASGI:
    """Reads each HTTP request's body, counting, before the application sees the request: over
    its limit (by the declared length, or by the bytes received so far), the answer is 413 and
    the connection is closed, with nothing more read; within it, the application is handed the
    whole body at once, and a body that came chunked gets the Content-Length it turned out to
    have. The body is at most the limit, so holding it costs no more than Django's own
    in-memory read of it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        limit = body_limit(scope["path"]) if scope["type"] == "http" else None
        if limit is None:
            await self.app(scope, receive, send)
            return
        headers: list[tuple[bytes, bytes]] = list(scope["headers"])
        declared = _declared_length(dict(headers).get(b"content-length"))
        if declared is not None and declared > limit:
            await self._refuse(scope, receive, send, limit, declared)
            return
        body = bytearray()
        more_body = True
        while more_body:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # the client has gone: nobody to answer
            body += message.get("body", b"")
            if len(body) > limit:
                await self._refuse(scope, receive, send, limit, declared)
                return
            more_body = message.get("more_body", False)
        if declared is None and body:
            scope = {**scope, "headers": [
                (name, value) for name, value in headers if name != b"transfer-encoding"
            ] + [(b"content-length", str(len(body)).encode())]}
        await self.app(scope, _replay(bytes(body), receive), send)

    @staticmethod
    async def _refuse(scope: Mapping[str, Any], receive: Receive, send: Send, limit: int,
                      declared: int | None) -> None:
        _log_refusal(scope["method"], scope["path"], limit, declared)
        accept_language = dict(scope["headers"]).get(b"accept-language", b"")
        content, language = refusal(limit, accept_language.decode("latin-1"))
        await send({"type": "http.response.start", "status": 413, "headers": [
            (b"content-type", PROBLEM_CONTENT_TYPE.encode()),
            (b"content-length", str(len(content)).encode()),
            (b"content-language", language.encode()),
            # The rest of the body is never read: the connection cannot carry another request.
            (b"connection", b"close"),
        ]})
        # The whole answer goes out at once; the response stays open while the rest of the
        # body is dropped (once a response is complete, uvicorn reads no more of its request).
        await send({"type": "http.response.body", "body": content, "more_body": True})
        await _linger(receive)
        await send({"type": "http.response.body", "body": b""})


async def _linger(receive: Receive) -> None:
    """Read and drop what is left of a refused body, LINGER_BYTES and LINGER_SECONDS at most."""
    dropped = 0
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(LINGER_SECONDS):
            while dropped < LINGER_BYTES:
                message = await receive()
                if message["type"] != "http.request" or not message.get("more_body", False):
                    return
                dropped += len(message.get("body", b""))


def linger(environ: Mapping[str, Any]) -> None:
    """`_linger` on a WSGI server, for its hook that runs once the answer is sent (gunicorn's
    post_request). A read waits for the client, so the time bound is checked between reads."""
    stream = environ["wsgi.input"]
    ends = time.monotonic() + LINGER_SECONDS
    dropped = 0
    with contextlib.suppress(OSError, ValueError):
        while dropped < LINGER_BYTES and time.monotonic() < ends:
            chunk = stream.read(64 * 1024)
            if not chunk:
                return
            dropped += len(chunk)


def _replay(body: bytes, receive: Receive) -> Receive:
    """``receive`` for the application: the body already read, then the server's own messages
    (a disconnect, which a live stream listens for)."""
    delivered = False

    async def replay() -> ASGIMessage:
        nonlocal delivered
        if delivered:
            return await receive()
        delivered = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


class BodyLimitWSGI:
    """The same bound on a WSGI server. A body with a Content-Length over the limit is refused
    unread (Django reads no further than the Content-Length anyway); a chunked body is read here,
    at most one byte past the limit, and handed on with its Content-Length. Only a server that
    ends the body's stream where the body ends (``wsgi.input_terminated``: gunicorn) can carry
    a chunked body; on another (wsgiref, runserver's) the answer is 411 Length Required."""

    def __init__(self, app: WSGIApp) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any],
                 start_response: StartResponse) -> Iterable[bytes]:
        limit = body_limit(environ.get("PATH_INFO", ""))
        if limit is None:
            return self.app(environ, start_response)
        declared = _declared_length(environ.get("CONTENT_LENGTH"))
        if declared is not None:
            if declared > limit:
                return self._refuse(environ, start_response, limit, declared)
        elif "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower():
            if not environ.get("wsgi.input_terminated"):
                return self._length_required(environ, start_response)
            body = environ["wsgi.input"].read(limit + 1)
            if len(body) > limit:
                return self._refuse(environ, start_response, limit, None)
            environ.pop("HTTP_TRANSFER_ENCODING")
            environ.update({"wsgi.input": io.BytesIO(body), "CONTENT_LENGTH": str(len(body))})
        return self.app(environ, start_response)

    @staticmethod
    def _refuse(environ: dict[str, Any], start_response: StartResponse, limit: int,
                declared: int | None) -> Iterable[bytes]:
        _log_refusal(environ["REQUEST_METHOD"], environ.get("PATH_INFO", ""), limit, declared)
        content, language = refusal(limit, environ.get("HTTP_ACCEPT_LANGUAGE", ""))
        return _unread_answer(environ, start_response, 413, content, language)

    @staticmethod
    def _length_required(environ: dict[str, Any],
                         start_response: StartResponse) -> Iterable[bytes]:
        with request_language(environ.get("HTTP_ACCEPT_LANGUAGE", "")) as language:
            content = render(problem(
                411, "length_required",
                gettext("Send the request body with a Content-Length: this server cannot read "
                        "a chunked one."),
            ))
        return _unread_answer(environ, start_response, 411, content, language)


def _unread_answer(environ: dict[str, Any], start_response: StartResponse, status: int,
                   content: bytes, language: str) -> Iterable[bytes]:
    """A problem document answered with the request's body left unread."""
    environ[BODY_LEFT_UNREAD] = True
    start_response(f"{status} {HTTPStatus(status).phrase}", [
        ("Content-Type", PROBLEM_CONTENT_TYPE), ("Content-Length", str(len(content))),
        ("Content-Language", language),
    ])
    return [content]
