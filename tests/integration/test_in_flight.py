"""One account's requests in flight (games/api/in_flight.py) on real gunicorn: a process serves
at most API_MAX_IN_FLIGHT_PER_ACCOUNT of one account's requests at a time and refuses the next
at once (429 `throttled`, Retry-After), while another account's requests are served as usual;
the places come back when those requests end. tests/abuse/test_in_flight.py shows it in
process; this shows it where it matters, on gunicorn's gthread worker, whose few threads one
account's slow requests would otherwise hold.

The slow requests are not long polls (which have a bound of their own,
LONG_POLL_MAX_PER_ACCOUNT): they are `POST /matches` whose JSON body arrives slowly. gunicorn
hands a request to Django once its head is read; DRF runs its throttles, this one among them, in
`initial()`, before the view reads `request.data`, so the thread then waits for the body while
holding the account's place. (In production nginx reads whole bodies before gunicorn sees them,
deploy/nginx.conf: here the trickle, on gunicorn reached directly, stands for any request that is
slow to serve, one whose end the test chooses.)
"""

from __future__ import annotations

import http.client
import json
import socket
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import pytest

from tests.integration.harness import client
from tests.integration.harness.stack import Stack

pytestmark = [pytest.mark.integration, pytest.mark.django_db]

MAX_IN_FLIGHT = 2
# A refusal, or an answer from a free thread, takes milliseconds; a request queued behind the
# slow ones would wait until the test ends them. Loose enough for a loaded machine.
QUICK_SECONDS = 1.0
# Valid JSON the view refuses (400): the slow requests, once their bodies arrive, change nothing.
BODY = json.dumps({"deals": 0}).encode().ljust(200)
# What is sent at first: the rest is held back until the test lets the request end.
SENT_AT_FIRST = 5


class TrickledPost:
    """A `POST /matches` on a socket of its own whose head and first body bytes are sent, the
    rest of its body held back: the server waits for it, in a thread, mid-request."""

    def __init__(self, base_url: str, token: str) -> None:
        parts = urllib.parse.urlsplit(base_url)
        host, port = parts.hostname or "127.0.0.1", parts.port or 80
        self.socket = socket.create_connection((host, port), timeout=10)
        head = (
            f"POST {client.API}/matches HTTP/1.1\r\n"
            f"Host: {host}:{port}\r\n"
            f"Authorization: Token {token}\r\n"
            "Content-Type: application/json\r\n"
            f"Content-Length: {len(BODY)}\r\n"
            "\r\n"
        )
        self.socket.sendall(head.encode() + BODY[:SENT_AT_FIRST])

    def finish(self) -> int:
        """Send the rest of the body; the answer's status."""
        self.socket.sendall(BODY[SENT_AT_FIRST:])
        answer = http.client.HTTPResponse(self.socket)
        answer.begin()
        answer.read()
        return answer.status

    def close(self) -> None:
        self.socket.close()


@contextmanager
def small_server(stack: Stack) -> Iterator[str]:
    """One gunicorn process of 8 threads whose accounts may have 2 requests in flight each."""
    name = "in-flight"
    url = stack.start_web(
        name=name, workers=1, threads=8, API_MAX_IN_FLIGHT_PER_ACCOUNT=str(MAX_IN_FLIGHT)
    )
    try:
        yield url
    finally:
        stack.stop(name)


def refused_once_its_slow_requests_are_in(api: client.Api, seconds: float = 5) -> client.Response:
    """The account's first refused request: the slow ones reach the throttle moments after
    they are sent, and until then a quick request is served (and holds no place after)."""
    deadline = time.monotonic() + seconds
    while True:
        response = api.get(f"{client.API}/me")
        if response.status != 200 or time.monotonic() > deadline:
            return response
        time.sleep(0.05)


def assert_throttled_at_once(response: client.Response) -> None:
    assert response.status == 429, (response.status, response.body)
    assert response.body["code"] == "throttled", response.body
    assert int(response.headers["Retry-After"]) >= 1, response.headers
    assert response.seconds < QUICK_SECONDS, response.seconds


def test_an_accounts_slow_requests_hold_its_places_and_no_one_elses(stack: Stack) -> None:
    with small_server(stack) as url, ExitStack() as cleanup:
        busy = client.guest(url, "Busy")
        other = client.guest(url, "Other")
        cleanup.callback(busy.close)
        cleanup.callback(other.close)
        slow = [TrickledPost(url, str(busy.token)) for _ in range(MAX_IN_FLIGHT)]
        for post in slow:
            # Before the server stops: a thread waiting for a body would hold up its shutdown.
            cleanup.callback(post.close)

        assert_throttled_at_once(refused_once_its_slow_requests_are_in(busy))
        # Not a passing race: while its slow requests wait, the account stays refused.
        assert_throttled_at_once(busy.get(f"{client.API}/me"))

        # The other account's places are its own, and threads are left for it.
        served = other.get(f"{client.API}/me")
        assert served.status == 200, (served.status, served.body)
        assert served.seconds < QUICK_SECONDS, served.seconds

        # The slow requests end: the view reads their bodies (a 400 for `deals` 0). Their
        # places are given back before their answers are written, so no wait is needed here.
        assert [post.finish() for post in slow] == [400] * MAX_IN_FLIGHT
        again = busy.get(f"{client.API}/me")
        assert again.status == 200, (again.status, again.body)
