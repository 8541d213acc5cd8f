"""Request bodies and what is not text (tests/abuse/bodies.py) on the scaled-out form: gunicorn
(`web`) and the stream server's uvicorn (`stream`), each reached directly."""

from __future__ import annotations

import json
import socket

import pytest

from tests.abuse import bodies

pytestmark = [pytest.mark.integration, pytest.mark.django_db]


@pytest.mark.parametrize("scenario", bodies.BODY_SCENARIOS, ids=lambda s: s.__name__)
def test_on_gunicorn(scenario, web: str) -> None:
    scenario(web)


@pytest.mark.parametrize("scenario", bodies.BODY_SCENARIOS, ids=lambda s: s.__name__)
def test_on_the_stream_server(scenario, stream: str) -> None:
    scenario(stream)


def test_the_stream_server_bounds_a_request_head(stream: str) -> None:
    """uvicorn's default parser (httptools) read 50 MB of headers into memory; the stream
    server's h11 refuses a head over 32 KiB as soon as it is over."""
    sent = 0
    with socket.create_connection(bodies._address(stream), timeout=10) as connection:
        connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n")
        try:
            while sent < 50 * 1024 * 1024:
                sent += connection.send(b"X-Padding: " + b"a" * 8000 + b"\r\n")
        except OSError:
            pass
        answer = connection.recv(200)
    assert answer.startswith(b"HTTP/1.1 400"), answer
    assert sent < 16 * 1024 * 1024


def _raw(url: str, request: bytes) -> tuple[bytes, dict[str, object]]:
    """Send `request` as it is and read the whole answer: its status line and its JSON body."""
    with socket.create_connection(bodies._address(url), timeout=10) as connection:
        connection.sendall(request)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert b"Content-Type: application/problem+json" in head, answer[:300]
    # Refused before its head was read, so before its Accept-Language: English, as it says.
    assert b"Content-Language: en" in head, answer[:300]
    return head.split(b"\r\n")[0], json.loads(body)


def test_gunicorn_refuses_an_unreadable_head_with_a_problem_document(web: str) -> None:
    """Reached directly (the embedded default, no nginx in front), gunicorn answered a request
    line over its 4094 bytes, found by schema fuzzing, with an HTML page."""
    status, body = _raw(web, b"GET /api/v1/matches?" + b"a" * 5000 + b" HTTP/1.1\r\n"
                        b"Host: localhost\r\nAccept-Language: tr\r\n\r\n")
    assert status == b"HTTP/1.1 414 Request-URI Too Long"
    assert (body["code"], body["title"]) == ("uri_too_long", "URI Too Long")
    status, body = _raw(web, b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Padding: "
                        + b"a" * 9000 + b"\r\n\r\n")
    assert (status, body["code"]) == (b"HTTP/1.1 400 Bad Request", "bad_request")
    status, body = _raw(web, b"GET /healthz HTTP/9.9\r\nHost: localhost\r\n\r\n")
    assert (status, body["code"]) == (b"HTTP/1.1 400 Bad Request", "bad_request")
