"""Limits that hold under races, as functions of a running server's address: many requests
of one client at once, all sent together, on the embedded default (tests/abuse/test_races.py,
SQLite) and on the scaled-out form (tests/integration/test_races.py, gunicorn on PostgreSQL
and Redis). Checking a limit, then acting on it, let every request of a burst count the same
past and all go through: 20 new matches where 10 are allowed, 20 password checks where 5 are.

``address`` is the client address the server is to see (it trusts one proxy's
X-Forwarded-For): each run counts from nothing, whoever else used the server before."""

from __future__ import annotations

import secrets
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.conf import settings

from platforms import services as platforms
from platforms.models import Scope
from tests.integration.harness import client

API = client.API
AT_ONCE = 20
OPEN_TABLE = [{"kind": "me"}] + [{"kind": "open"}] * 3
BOTS = [{"kind": "me"}] + [{"kind": "bot", "bot_level": "easy"}] * 3


def all_at_once(requests: list[Callable[[], client.Response]]) -> list[client.Response]:
    """Send ``requests`` from a thread each, released together once every thread is ready."""
    start = threading.Barrier(len(requests))

    def send(request: Callable[[], client.Response]) -> client.Response:
        start.wait()
        return request()

    with ThreadPoolExecutor(len(requests)) as pool:
        return list(pool.map(send, requests))


def header(response: client.Response, name: str) -> str:
    """A header of the answer, whatever its case (uvicorn sends them in lowercase)."""
    return next(value for key, value in response.headers.items() if key.lower() == name.lower())


def outcomes(responses: list[client.Response]) -> Counter[tuple[int, str]]:
    return Counter((r.status, (r.body or {}).get("code", "") if r.status >= 400 else "")
                   for r in responses)


def post_as(base_url: str, token: str | None, path: str, body: Any,
            headers: dict[str, str] | None = None) -> Callable[[], client.Response]:
    return lambda: client.Api(base_url, token).post(path, body, headers=headers)


def twenty_new_matches_at_once_stop_at_the_account_cap(base_url: str) -> None:
    cap = settings.MAX_UNFINISHED_MATCHES
    someone = client.guest(base_url, "Hoarder")
    body = {"deals": 1, "seats": OPEN_TABLE}
    answers = all_at_once(
        [post_as(base_url, someone.token, f"{API}/matches", body)] * AT_ONCE
    )
    got = outcomes(answers)
    assert got == {(201, ""): cap, (409, "too_many_matches"): AT_ONCE - cap}, got


def twenty_bot_matches_at_once_stop_at_the_bot_deals_cap(base_url: str) -> None:
    """13-deal matches against three computer players: 39 of their deals each."""
    allowed = settings.MAX_BOT_SEAT_DEALS // 39
    assert 0 < allowed < min(AT_ONCE, settings.MAX_UNFINISHED_MATCHES)
    someone = client.guest(base_url, "Botfarm")
    body = {"deals": 13, "seats": BOTS}
    answers = all_at_once(
        [post_as(base_url, someone.token, f"{API}/matches", body)] * AT_ONCE
    )
    got = outcomes(answers)
    assert got == {(201, ""): allowed, (409, "too_many_bot_deals"): AT_ONCE - allowed}, got


def twenty_joins_and_quick_matches_at_once_stop_at_the_account_cap(base_url: str) -> None:
    """Half take a seat at someone else's open table, half ask for a quick match of a kind of
    table nobody waits at (each opens a table): every path that adds a match to the account
    counts against the one cap."""
    cap = settings.MAX_UNFINISHED_MATCHES
    tables: list[str] = []
    while len(tables) < AT_ONCE // 2:
        host = client.guest(base_url, "Host")
        for _ in range(min(cap, AT_ONCE // 2 - len(tables))):
            body = {"deals": 1, "seats": OPEN_TABLE, "visibility": "public"}
            tables.append(client.expect(host.post(f"{API}/matches", body), 201, "table")["id"])
    joiner = client.guest(base_url, "Joiner")
    requests = [post_as(base_url, joiner.token, f"{API}/matches/{table}/join", {})
                for table in tables]
    # Kinds of table no other scenario asks for (a table found and joined would count too).
    requests += [
        post_as(base_url, joiner.token, f"{API}/quick-match",
                {"game": "spades", "deals": 40 + number, "fill_with_bots_after": None})
        for number in range(AT_ONCE - len(requests))
    ]
    answers = all_at_once(requests)
    got = outcomes(answers)
    assert got == {(200, ""): cap, (409, "too_many_matches"): AT_ONCE - cap}, got


def a_platforms_key(cap: int) -> str:
    """A new platform that may keep ``cap`` matches going (made in the test's database, which
    the server reads), serving all of a race's requests at once; the key of its server."""
    platform = platforms.register_platform(name="Racing Cards " + secrets.token_hex(3))
    platform.max_unfinished_matches = cap
    platform.requests_in_flight = AT_ONCE
    platform.save()
    _, key = platforms.issue_key(platform=platform, name="server",
                                 scopes=[scope.value for scope in Scope])
    return key


def twenty_platform_matches_at_once_stop_at_the_platform_cap(base_url: str, cap: int) -> None:
    """A platform's server (its API key) creates matches of its players: its own cap, as
    the platform's account holds it, holds too. The test's database must be the server's,
    committed (the platform is made there)."""
    server = {"Authorization": f"Api-Key {a_platforms_key(cap)}"}
    players = [f"racer-{number}" for number in range(4)]
    for player in players:
        answer = client.Api(base_url).request(
            "PUT", f"{API}/platform/players/{player}", {"display_name": player}, headers=server
        )
        assert answer.status in (200, 201), answer.body
    body = {"game": "auction", "deals": 1,
            "seats": [{"kind": "player", "external_id": player} for player in players]}
    answers = all_at_once(
        [post_as(base_url, None, f"{API}/platform/matches", body, server)] * AT_ONCE
    )
    got = outcomes(answers)
    assert got == {(201, ""): cap, (409, "too_many_matches"): AT_ONCE - cap}, got


def twenty_wrong_passwords_at_once_check_no_more_than_the_limit(
    base_url: str, address: str
) -> None:
    """Once the limit of failures is reached no password is checked until the window ends:
    of twenty at once, as many as the limit get 401, the rest 429, and so does the right
    password afterwards."""
    limit = settings.LOGIN_FAILURES_PER_ACCOUNT
    headers = {"X-Forwarded-For": address}
    username, password = "racer" + secrets.token_hex(4), "kozmaca-2026-" + secrets.token_hex(4)
    client.expect(client.Api(base_url).post(
        f"{API}/auth/register", {"username": username, "password": password}, headers=headers,
    ), 201, "register")
    wrong = {"username": username, "password": "not-" + password}
    answers = all_at_once([post_as(base_url, None, f"{API}/auth/token", wrong, headers)] * AT_ONCE)
    got = outcomes(answers)
    assert got == {(401, "authentication_failed"): limit,
                   (429, "login_locked"): AT_ONCE - limit}, got
    assert all(int(header(answer, "Retry-After")) >= 1
               for answer in answers if answer.status == 429)
    right = client.Api(base_url).post(
        f"{API}/auth/token", {"username": username, "password": password}, headers=headers
    )
    assert (right.status, right.body["code"]) == (429, "login_locked")


def twenty_guest_sign_ups_at_once_stop_at_the_rate(
    base_url: str, address: str, rate: int
) -> None:
    """One client address signs up ``rate`` guests in the rate's window, however many it asks
    for at once; another address is not held back by it."""
    headers = {"X-Forwarded-For": address}
    answers = all_at_once([post_as(base_url, None, f"{API}/auth/guest", {}, headers)] * AT_ONCE)
    got = outcomes(answers)
    assert got == {(201, ""): rate, (429, "throttled"): AT_ONCE - rate}, got
    refused = [answer for answer in answers if answer.status == 429]
    assert all(header(answer, "Content-Type") == "application/problem+json"
               and int(header(answer, "Retry-After")) >= 1 for answer in refused)
    elsewhere = {"X-Forwarded-For": f"203.0.113.{secrets.randbelow(250) + 1}"}
    assert client.Api(base_url).post(f"{API}/auth/guest", {}, headers=elsewhere).status == 201


ACCOUNT_CAPS = [
    twenty_new_matches_at_once_stop_at_the_account_cap,
    twenty_bot_matches_at_once_stop_at_the_bot_deals_cap,
    twenty_joins_and_quick_matches_at_once_stop_at_the_account_cap,
]
