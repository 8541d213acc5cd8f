"""Request bodies and what is not text (tests/abuse/bodies.py) on the embedded default, uvicorn
in-process; and the bounds' own parts, which no live server is needed for."""

from __future__ import annotations

import http.client
import io
import json

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
    """The WSGI application, as gunicorn and runserver call it; the answer's headers are left
    in the environ as `answer_headers`."""
    started: list[str] = []
    base: dict = {"REQUEST_METHOD": "POST", "PATH_INFO": path, "SERVER_NAME": "localhost",
            "SERVER_PORT": "80", "HTTP_HOST": "localhost", "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(b""), "wsgi.errors": io.StringIO(),
            "CONTENT_TYPE": "application/json", **environ}

    def start_response(status: str, headers: list[tuple[str, str]]) -> None:
        started.append(status)
        base["answer_headers"] = dict(headers)

    answer = b"".join(wsgi_application(base, start_response))
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
    status, answer, environ = call_wsgi("/api/v1/auth/guest", HTTP_TRANSFER_ENCODING="chunked",
                                        HTTP_ACCEPT_LANGUAGE="tr", **{"wsgi.input": Unreadable()})
    assert status.startswith("411") and b'"code":"length_required"' in answer
    assert "Uzunluk Gerekli" in answer.decode()
    assert environ["answer_headers"]["Content-Language"] == "tr"


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["es", "fr", "pt", "ru", "tr"])
def test_a_refusal_on_wsgi_reads_in_the_request_language(settings, language) -> None:
    settings.API_MAX_BODY_BYTES = 1024
    status, answer, environ = call_wsgi("/api/v1/auth/guest", CONTENT_LENGTH="70000",
                                        HTTP_ACCEPT_LANGUAGE=f"{language},en;q=0.5",
                                        **{"wsgi.input": Unreadable()})
    english = call_wsgi("/api/v1/auth/guest", CONTENT_LENGTH="70000",
                        **{"wsgi.input": Unreadable()})[1]
    assert status.startswith("413") and environ["answer_headers"]["Content-Language"] == language
    assert b"1024" in answer and b"Content Too Large" not in answer
    assert answer.split(b'"detail":')[1] != english.split(b'"detail":')[1]


def test_a_refusal_reads_in_the_request_language(asgi_server) -> None:
    connection = http.client.HTTPConnection(asgi_server[len("http://"):], timeout=60)
    try:
        connection.request("POST", "/api/v1/auth/guest", b"{" * 70000,
                           {"Content-Type": "application/json", "Accept-Language": "fr"})
        reply = connection.getresponse()
        answer = json.loads(reply.read())
    finally:
        connection.close()
    assert (reply.status, answer["title"]) == (413, "Contenu trop volumineux")
    assert answer["detail"].startswith("Le corps de la requête")
    assert reply.getheader("Content-Language") == "fr"


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/healthz", "/api/v1/matches", "/admin/", "/play/"])
def test_a_host_it_does_not_serve_is_a_problem_document_with_debug_on_too(
    settings, path
) -> None:
    """With DEBUG on (the embedded default) Django answered its technical HTML page, which
    lists the settings."""
    settings.DEBUG = True
    status, answer, environ = call_wsgi(path, REQUEST_METHOD="GET", HTTP_HOST="elsewhere.example",
                                        HTTP_ACCEPT_LANGUAGE="tr")
    assert status.startswith("400")
    assert environ["answer_headers"]["Content-Type"] == "application/problem+json"
    assert environ["answer_headers"]["Content-Language"] == "tr"
    assert json.loads(answer)["code"] == "disallowed_host"
