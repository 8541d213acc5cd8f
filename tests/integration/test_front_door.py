"""nginx in front, as compose.yaml runs it (deploy/nginx.conf, pointed at this stack's gunicorn
and stream server): what it refuses it answers with a problem document, before the servers
behind it could answer with their own pages, and slow clients never reach gunicorn's threads."""

from __future__ import annotations

import http.client
import json
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

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


def _nginx(stack: Stack, name: str, web: str, stream: str, root: Path) -> str:
    """deploy/nginx.conf in Debian's nginx, in front of ``web`` and ``stream``; its base URL."""
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(nginx).exists():
        _unavailable("nginx is not installed (scripts/test installs Debian's nginx)")
    port = free_port()
    site = (ROOT / "deploy" / "nginx.conf").read_text()
    site = site.replace("server web:8000;", f"server {web[len('http://'):]};")
    site = site.replace("server stream:8001;", f"server {stream[len('http://'):]};")
    site = site.replace("listen 8000;", f"listen 127.0.0.1:{port};")
    (root / "site.conf").write_text(site)
    (root / "nginx.conf").write_text(MAIN.format(root=root))
    stack.start(name, [nginx, "-p", str(root), "-c", str(root / "nginx.conf")])
    url = f"http://127.0.0.1:{port}"
    wait_until(lambda: _status(url, "/healthz") == 200, 20, f"{name} passing /healthz on")
    return url


@pytest.fixture(scope="module")
def front_door(stack: Stack, stream: str, tmp_path_factory: pytest.TempPathFactory
               ) -> Iterator[str]:
    yield _nginx(stack, "nginx", stack.urls["web"], stream, tmp_path_factory.mktemp("nginx"))
    stack.stop("nginx")


@pytest.fixture(scope="module")
def admin_front_door(stack: Stack, stream: str, tmp_path_factory: pytest.TempPathFactory
                     ) -> Iterator[str]:
    """The same, in front of a gunicorn that serves the admin's pages as the image does: from
    `collectstatic`'s files (scripts/image-steps static), which the stack's web has none of."""
    static = tmp_path_factory.mktemp("static")
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--no-input", "-v", "0"],
                   cwd=ROOT, env={**stack.env, "DJANGO_STATIC_ROOT": str(static)}, check=True)
    web = stack.start_web("admin-web", workers=1, threads=4, DJANGO_STATIC_ROOT=str(static))
    yield _nginx(stack, "admin-nginx", web, stream, tmp_path_factory.mktemp("admin-nginx"))
    stack.stop("admin-nginx")
    stack.stop("admin-web")


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


def _exchange(url: str, method: str, path: str, headers: dict[str, str], body: bytes = b""
              ) -> tuple[http.client.HTTPResponse, bytes]:
    host, port = url[len("http://"):].split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        connection.request(method, path, body, headers)
        reply = connection.getresponse()
        return reply, reply.read()
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
    # nginx's own answers are in English, and say so.
    refused, _ = _exchange(front_door, "GET", f"/healthz?{'a' * 5000}", {})
    assert (refused.status, refused.getheader("Content-Language")) == (414, "en")


def test_the_metrics_are_not_served_from_outside(front_door: str) -> None:
    """Not even with their token: the scraper reads the servers directly."""
    answer = _get(front_door, "/metrics", {"Authorization": f"Bearer {METRICS_TOKEN}"})
    assert _problem(answer) == (404, "not_found")


def test_the_services_own_answers_pass_as_they_are(front_door: str) -> None:
    assert _problem(_get(front_door, "/api/v1/nowhere")) == (404, "not_found")
    reply, body = _exchange(front_door, "GET", "/api/v1/nowhere", {"Accept-Language": "tr"})
    assert reply.getheader("Content-Language") == "tr" and json.loads(body)["title"] != "Not Found"
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


@pytest.mark.django_db(transaction=True)
def test_the_admin_logs_in_through_nginx_on_its_port(admin_front_door: str,
                                                     django_user_model: Any) -> None:
    """As a browser at http://localhost:<port> does (compose's http://localhost:8000), under the
    production settings and the default DJANGO_CSRF_TRUSTED_ORIGINS: the form's Origin keeps the
    port, and so does the Host header nginx passes on (with `$host` it did not: 403)."""
    django_user_model.objects.create_superuser("door-admin", password="a long passphrase")
    site = "localhost:" + admin_front_door.rsplit(":", 1)[1]
    browser = {"Host": site}
    login, page = _exchange(admin_front_door, "GET", "/admin/login/?next=/admin/", browser)
    assert login.status == 200
    # A browser keeps a Secure cookie for http://localhost (a trustworthy origin); http.client
    # keeps none at all, so the test carries them.
    cookies = SimpleCookie()
    for header in login.headers.get_all("Set-Cookie") or []:
        cookies.load(header)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.decode())
    assert token, page[:500]
    form = (f"csrfmiddlewaretoken={token.group(1)}&username=door-admin"
            "&password=a+long+passphrase&next=%2Fadmin%2F").encode()
    posted, _ = _exchange(admin_front_door, "POST", "/admin/login/?next=/admin/", {
        **browser, "Origin": f"http://{site}", "Referer": f"http://{site}/admin/login/",
        "Content-Type": "application/x-www-form-urlencoded",
        "Cookie": f"csrftoken={cookies['csrftoken'].value}",
    }, form)
    assert (posted.status, posted.getheader("Location")) == (302, "/admin/"), posted.status
    for header in posted.headers.get_all("Set-Cookie") or []:
        cookies.load(header)
    admin = _get(admin_front_door, "/admin/", {**browser, "Cookie": "; ".join(
        f"{name}={morsel.value}" for name, morsel in cookies.items())})
    assert admin[0] == 200


def test_the_streams_go_to_the_stream_server(front_door: str) -> None:
    """A person's own stream and a match's are served on the event loop (gunicorn's say in
    `X-Stream-Notice` that they end after 30 s)."""
    reply, body = _exchange(front_door, "POST", "/api/v1/auth/guest",
                            {"Content-Type": "application/json"}, b"{}")
    assert reply.status == 201, body
    token = json.loads(body)["token"]
    host, port = front_door[len("http://"):].split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        connection.request("GET", "/api/v1/me/stream", headers={
            "Authorization": f"Token {token}", "Accept": "text/event-stream"})
        stream = connection.getresponse()
        assert stream.status == 200
        assert stream.getheader("X-Stream-Notice") is None
        assert stream.readline() == b"retry: 1000\n"
    finally:
        connection.close()
