"""Request bodies and what is not text (tests/abuse/bodies.py) on the scaled-out form: gunicorn
(`web`) and the stream server's uvicorn (`stream`), each reached directly."""

from __future__ import annotations

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
