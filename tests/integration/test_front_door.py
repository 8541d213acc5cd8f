"""nginx in front, as compose.yaml runs it (deploy/nginx.conf, pointed at this stack's gunicorn
and stream server): what it refuses it answers with a problem document, before the servers
behind it could answer with their own pages, and slow clients never reach gunicorn's threads."""

from __future__ import annotations

import http.client
import json
import shutil
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.conftest import _unavailable
from tests.integration.harness.stack import METRICS_TOKEN, ROOT, Stack, free_port, wait_until

pytestmark = [pytest.mark.integration, pytest.mark.django_db]

MAIN = """daemon off;
pid {root}/nginx.pid;
error_log {root}/error.log info;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {root}/body;
    proxy_temp_path {root}/proxy;
    include {root}/site.conf;
}}
"""


@pytest.fixture(scope="module")
def front_door(stack: Stack, stream: str, tmp_path_factory: pytest.TempPathFactory
               ) -> Iterator[str]:
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(nginx).exists():
        _unavailable("nginx is not installed (scripts/test installs Debian's nginx)")
    root = tmp_path_factory.mktemp("nginx")
    port = free_port()
    site = (ROOT / "deploy" / "nginx.conf").read_text()
    site = site.replace("server web:8000;", f"server {stack.urls['web'][len('http://'):]};")
    site = site.replace("server stream:8001;", f"server {stream[len('http://'):]};")
    site = site.replace("listen 8000;", f"listen 127.0.0.1:{port};")
    (root / "site.conf").write_text(site)
    (root / "nginx.conf").write_text(MAIN.format(root=root))
    stack.start("nginx", [nginx, "-p", str(root), "-c", str(root / "nginx.conf")])
    url = f"http://127.0.0.1:{port}"
    wait_until(lambda: _status(url, "/healthz") == 200, 20, "nginx passing /healthz on")
    yield url
    stack.stop("nginx")


def _status(url: str, path: str) -> int:
    try:
        return _get(url, path)[0]
    except OSError:
        return 0


def _get(url: str, path: str, headers: dict[str, str] | None = None,
         timeout: float = 10) -> tuple[int, str, bytes]:
    host, port = url[len("http://"):].split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        connection.request("GET", path, headers=headers or {})
        reply = connection.getresponse()
        return reply.status, reply.getheader("Content-Type", ""), reply.read()
    finally:
        connection.close()


def _problem(answer: tuple[int, str, bytes]) -> tuple[int, str]:
    status, content_type, body = answer
    assert content_type == "application/problem+json", (status, body[:200])
    return status, json.loads(body)["code"]


def test_what_nginx_refuses_is_a_problem_document(front_door: str) -> None:
    """Before gunicorn's own bounds (a request line over 4094 bytes, a header line over 8190),
    and with the same answers (tests/integration/test_bodies.py)."""
    for path in ("/healthz", "/api/v1/matches/x/stream"):
        assert _problem(_get(front_door, f"{path}?{'a' * 5000}")) == (414, "uri_too_long")
        assert _problem(_get(front_door, path, {"X-Padding": "a" * 9000})) == (
            400, "bad_request")
    host, port = front_door[len("http://"):].split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        connection.request("POST", "/api/v1/auth/guest", b"{" + b" " * 300_000 + b"}",
                           {"Content-Type": "application/json"})
        reply = connection.getresponse()
        answer = reply.status, reply.getheader("Content-Type", ""), reply.read()
    finally:
        connection.close()
    assert _problem(answer) == (413, "request_too_large")


def test_the_metrics_are_not_served_from_outside(front_door: str) -> None:
    """Not even with their token: the scraper reads the servers directly."""
    answer = _get(front_door, "/metrics", {"Authorization": f"Bearer {METRICS_TOKEN}"})
    assert _problem(answer) == (404, "not_found")


def test_the_services_own_answers_pass_as_they_are(front_door: str) -> None:
    assert _problem(_get(front_door, "/api/v1/nowhere")) == (404, "not_found")
    assert _problem(_get(front_door, "/healthz", {"Host": "elsewhere.example"})) == (
        400, "disallowed_host")


def test_slow_clients_hold_no_thread_of_gunicorn(front_door: str, stack: Stack) -> None:
    """Sixty requests half sent (a head without its end, a body without its last bytes): more
    than gunicorn's threads here (2 x 16). Sent to gunicorn itself they keep every thread, and
    `/healthz` waited past 20 s; through nginx, which reads requests whole before passing them
    on, it answers at once."""
    host, port = front_door[len("http://"):].split(":")
    slow = []
    try:
        for number in range(60):
            connection = socket.create_connection((host, int(port)), timeout=10)
            if number % 2:
                connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-A: ")
            else:
                connection.sendall(b"POST /api/v1/auth/guest HTTP/1.1\r\nHost: localhost\r\n"
                                   b"Content-Type: application/json\r\n"
                                   b"Content-Length: 100\r\n\r\n{")
            slow.append(connection)
        time.sleep(1)
        started = time.monotonic()
        assert _get(front_door, "/healthz", timeout=5)[0] == 200
        assert time.monotonic() - started < 2
    finally:
        for connection in slow:
            connection.close()
