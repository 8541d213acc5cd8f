"""What a client may send in one request, and how the servers answer what is too much or not
text: scenarios as functions of a running server's address, like scenarios.py, run on the
embedded default (tests/abuse/test_bodies.py: uvicorn in-process) and scaled out
(tests/integration/test_bodies.py: gunicorn, and the stream server's uvicorn)."""

from __future__ import annotations

import http.client
import json
import select
import socket
import time
import urllib.parse
from typing import Any

from tests.abuse.scenarios import my_turn_view
from tests.integration.harness import client

API = client.API
HUGE = 300 * 1024 * 1024
# What may be on its way before an answer can stop it: the kernel's socket buffers on both
# sides, and the limit itself. A server that took the whole body first answers after all 300 MB.
IN_FLIGHT = 16 * 1024 * 1024
PIECE = b"x" * 65536


def _address(base_url: str) -> tuple[str, int]:
    parts = urllib.parse.urlsplit(base_url)
    assert parts.hostname and parts.port
    return parts.hostname, parts.port


def send_chunked(base_url: str, path: str, body: bytes, token: str | None = None,
                 pieces: int = 3) -> tuple[int, dict[str, Any]]:
    """POST ``body`` with Transfer-Encoding: chunked, in ``pieces`` chunks: status and answer."""
    connection = http.client.HTTPConnection(*_address(base_url), timeout=60)
    try:
        connection.putrequest("POST", path)
        connection.putheader("Content-Type", "application/json")
        connection.putheader("Transfer-Encoding", "chunked")
        if token:
            connection.putheader("Authorization", f"Token {token}")
        connection.endheaders()
        size = -(-len(body) // pieces)
        for start in range(0, len(body), size):
            chunk = body[start:start + size]
            connection.send(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        connection.send(b"0\r\n\r\n")
        reply = connection.getresponse()
        return reply.status, json.loads(reply.read())
    finally:
        connection.close()


def post_raw(base_url: str, path: str, body: bytes,
             headers: dict[str, str] | None = None) -> tuple[int, str, dict[str, Any]]:
    """POST ``body`` as it is: status, content type and parsed answer."""
    connection = http.client.HTTPConnection(*_address(base_url), timeout=60)
    try:
        connection.request("POST", path, body, {"Content-Type": "application/json",
                                                **(headers or {})})
        reply = connection.getresponse()
        return reply.status, reply.getheader("Content-Type", ""), json.loads(reply.read())
    finally:
        connection.close()


def stream_a_huge_body(base_url: str, chunked: bool) -> tuple[int, bytes, bool]:
    """Send a 300 MB body as fast as the server takes it, watching for an answer all along:
    the bytes sent when the answer came, the answer, and whether the server then closed the
    connection before all 300 MB were sent."""
    head = (f"POST {API}/auth/guest HTTP/1.1\r\nHost: localhost\r\n"
            "Content-Type: application/json\r\n")
    head += ("Transfer-Encoding: chunked\r\n\r\n" if chunked
             else f"Content-Length: {HUGE}\r\n\r\n")
    piece = b"%x\r\n%s\r\n" % (len(PIECE), PIECE) if chunked else PIECE
    answer, sent = b"", 0
    with socket.create_connection(_address(base_url), timeout=30) as connection:
        connection.sendall(head.encode())
        while sent < HUGE and b"\r\n\r\n" not in answer:
            readable, writable, _ = select.select([connection], [connection], [], 30)
            assert readable or writable, "the server neither answered nor took more"
            if readable:
                data = connection.recv(65536)
                assert data, f"closed without an answer after {sent} bytes"
                answer += data
            elif writable:
                sent += connection.send(piece)
        answered_at = sent
        deadline = time.monotonic() + 10
        while not _complete(answer) and time.monotonic() < deadline:
            answer += connection.recv(65536)
        try:
            while sent < HUGE:
                sent += connection.send(piece)
        except OSError:  # reset or broken pipe: the server closed the connection
            closed = True
        else:
            closed = False
    return answered_at, answer, closed


def _complete(answer: bytes) -> bool:
    head, _, body = answer.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(body) >= int(value)
    return False


def a_huge_body_is_refused_while_it_arrives(base_url: str) -> None:
    """300 MB, declared or chunked: the 413 comes before the body has (all but the bytes already
    in flight), and the server closes the connection rather than read the rest. The embedded
    default took a declared body whole (a 254 MB temporary file) before answering 413; a
    chunked one reached the view as no body at all."""
    for chunked in (False, True):
        answered_at, answer, closed = stream_a_huge_body(base_url, chunked)
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 413"), (chunked, answer[:300])
        assert b"application/problem+json" in head.lower()
        document = json.loads(body)
        assert (document["code"], document["limit"]) == ("request_too_large", 65536)
        assert answered_at < IN_FLIGHT, (chunked, answered_at)
        assert closed, f"the connection stayed open (chunked: {chunked})"


def chunked_bodies_are_read_as_any_other(base_url: str) -> None:
    """A chunked body is the same body: it once was dropped, so a match asked for as public
    spades was made private auction, and a move with a stale `expected_version` was taken."""
    api = client.guest(base_url, "Chunky")
    asked = {"game": "spades", "visibility": "public",
             "seats": [{"kind": "me"}] + [{"kind": "bot", "bot_level": "easy"}] * 3}
    status, match = send_chunked(base_url, f"{API}/matches", json.dumps(asked).encode(),
                                 api.token)
    assert status == 201, match
    assert (match["game"], match["visibility"]) == ("spades", "public")
    view = my_turn_view(api, match["id"])
    action = view["deal"]["legal_actions"][0]
    path = f"{API}/matches/{match['id']}/actions"
    stale = json.dumps({**action, "expected_version": view["version"] + 99}).encode()
    status, refused = send_chunked(base_url, path, stale, api.token)
    assert (status, refused["code"]) == (409, "stale_version"), refused
    assert client.view(api, match["id"])["version"] == view["version"]
    # Within the limit to the byte, in many chunks: still the same body.
    padded = json.dumps({"display_name": "Chunky", "pad": ""}).encode()
    padded = padded[:-2] + b" " * (65536 - len(padded)) + b'"}'
    assert len(padded) == 65536
    status, answer = send_chunked(base_url, f"{API}/auth/guest", padded, pieces=40)
    assert (status, answer["code"]) == (400, "unknown_field"), answer


def what_is_not_text_is_a_malformed_request(base_url: str) -> None:
    """A lone surrogate (as a key, a value, a choice), bytes that are not UTF-8, numbers JSON
    has no words for: 400 `malformed_request`. The surrogate was echoed back into an answer the
    renderer could not encode: a 500."""
    api = client.guest(base_url, "Texts")
    for path, body, token in (
        (f"{API}/auth/guest", rb'{"\ud800": 1}', None),
        (f"{API}/auth/guest", rb'{"display_name": "\udfff"}', None),
        (f"{API}/matches", rb'{"game": "\ud800"}', api.token),
        (f"{API}/matches", rb'{"rules": {"\udc00x": 1}}', api.token),
        (f"{API}/auth/guest", b'{"display_name": "\xff\xfe"}', None),
        (f"{API}/matches", b'{"deals": NaN}', api.token),
        (f"{API}/matches", b'{"deals": 1e999}', api.token),
    ):
        headers = {"Authorization": f"Token {token}"} if token else None
        status, content_type, answer = post_raw(base_url, path, body, headers)
        assert (status, answer["code"]) == (400, "malformed_request"), (body, answer)
        assert content_type == "application/problem+json"


def a_host_the_service_does_not_serve_is_a_problem_document(base_url: str) -> None:
    """Django's own 400 for a Host outside DJANGO_ALLOWED_HOSTS was an HTML page."""
    for path in ("/healthz", f"{API}/matches", "/admin/"):
        connection = http.client.HTTPConnection(*_address(base_url), timeout=30)
        try:
            connection.request("GET", path, headers={"Host": "elsewhere.example"})
            reply = connection.getresponse()
            assert reply.status == 400, path
            assert reply.getheader("Content-Type") == "application/problem+json", path
            assert json.loads(reply.read())["code"] == "disallowed_host"
        finally:
            connection.close()


BODY_SCENARIOS = [
    a_huge_body_is_refused_while_it_arrives,
    chunked_bodies_are_read_as_any_other,
    what_is_not_text_is_a_malformed_request,
    a_host_the_service_does_not_serve_is_a_problem_document,
]
