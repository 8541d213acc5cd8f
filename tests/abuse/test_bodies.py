"""Request bodies and what is not text (tests/abuse/bodies.py) on the embedded default, uvicorn
in-process; and the bounds' own parts, which no live server is needed for."""

from __future__ import annotations

import io

import pytest

from batak_api.limits import BODY_LEFT_UNREAD
from batak_api.wsgi import application as wsgi_application
from tests.abuse import bodies


@pytest.mark.parametrize("scenario", bodies.BODY_SCENARIOS, ids=lambda s: s.__name__)
def test_on_the_embedded_default(scenario, asgi_server) -> None:
    scenario(asgi_server)


class Unreadable(io.RawIOBase):
    def read(self, size: int = -1) -> bytes:
        raise AssertionError("the body was read")


def call_wsgi(path: str, **environ: object) -> tuple[str, bytes, dict]:
    """The WSGI application, as gunicorn and runserver call it."""
    started: list[str] = []
    base = {"REQUEST_METHOD": "POST", "PATH_INFO": path, "SERVER_NAME": "localhost",
            "SERVER_PORT": "80", "HTTP_HOST": "localhost", "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(b""), "wsgi.errors": io.StringIO(),
            "CONTENT_TYPE": "application/json", **environ}
    answer = b"".join(wsgi_application(base, lambda status, headers: started.append(status)))
    return started[0], answer, base


@pytest.mark.django_db
def test_a_declared_body_over_the_limit_is_refused_unread_on_wsgi(settings) -> None:
    settings.API_MAX_BODY_BYTES = 1024
    status, answer, environ = call_wsgi("/api/v1/auth/guest", CONTENT_LENGTH="1025",
                                        **{"wsgi.input": Unreadable()})
    assert status.startswith("413") and b'"limit":1024' in answer
    assert environ[BODY_LEFT_UNREAD]


@pytest.mark.django_db
def test_a_chunked_body_is_read_to_one_byte_past_the_limit_on_wsgi(settings) -> None:
    settings.API_MAX_BODY_BYTES = 1024
    stream = io.BytesIO(b"{" + b" " * 5000 + b"}")
    status, _, _ = call_wsgi("/api/v1/auth/guest", HTTP_TRANSFER_ENCODING="chunked",
                             **{"wsgi.input": stream, "wsgi.input_terminated": True})
    assert status.startswith("413") and stream.tell() == 1025


@pytest.mark.django_db
def test_a_chunked_body_where_the_server_cannot_end_it_is_411(settings) -> None:
    """wsgiref (runserver) hands the application the raw socket: no way to tell where a
    chunked body ends, so it is refused rather than dropped."""
    status, answer, _ = call_wsgi("/api/v1/auth/guest", HTTP_TRANSFER_ENCODING="chunked",
                                  HTTP_ACCEPT_LANGUAGE="tr", **{"wsgi.input": Unreadable()})
    assert status.startswith("411") and b'"code":"length_required"' in answer
    assert "Uzunluk Gerekli" in answer.decode()


def test_a_refusal_reads_in_the_request_language(asgi_server) -> None:
    status, _, answer = bodies.post_raw(asgi_server, "/api/v1/auth/guest", b"{" * 70000,
                                        {"Accept-Language": "fr"})
    assert (status, answer["title"]) == (413, "Contenu trop volumineux")
