"""Server time scaled out: the buckets are in Redis, shared by every process, and the web
processes and the workers both charge them (tests/abuse/test_server_time.py tests the rule)."""

from __future__ import annotations

import time
from typing import Any

import pytest
import redis
from django.conf import settings

from runtime import server_time, windows
from runtime.server_time import Payer
from tests.integration.harness import client
from tests.integration.test_fair_turns import flooding_account

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_processes_share_one_bucket_per_account() -> None:
    payer = (Payer(10**9 + 7, 6.0),)  # a bucket of 2 s
    server_time.charge(payer, 1.0)  # half of it, charged by "one process"
    server_time.forget()  # what another process knows: nothing yet
    assert server_time.deferral(payer) == 0
    server_time.charge(payer, 1.6)  # its own charge answers the bucket both filled
    assert server_time.deferral(payer) == pytest.approx(6.0, abs=0.5)
    server_time.forget()


def _bucket(server: redis.Redis, account: int) -> tuple[float, float]:
    """When ``account``'s bucket empties (0: never charged, or long empty), and Redis's clock."""
    key = f"batak:server-time:{windows.accounts_scope()}:{account}"
    with server.pipeline() as both:
        both.get(key)
        both.time()
        empties, (seconds, microseconds) = both.execute()
    return float(empties or 0), seconds + microseconds / 1e6


def test_requests_and_computer_players_turns_are_charged(web: str, django_user_model: Any
                                                         ) -> None:
    server = redis.Redis.from_url(settings.REDIS_URL)
    person = client.guest(web)
    _, before = _bucket(server, 0)
    account = client.expect(person.get(f"{client.API}/me"), 200, "me")["id"]
    assert _bucket(server, account)[0] > before  # its requests, charged by gunicorn
    # A table of computer players alone: after the one request that creates it only the
    # workers spend time on it, so its bucket is moved on later than that request's charge.
    # (A budget of 600 s a minute drains a second of bucket a second: each charge leaves it
    # moments ahead, so when it was moved on, not how far, tells who charged it.)
    flood = flooding_account(web, django_user_model)
    flooder = client.expect(flood.get(f"{client.API}/me"), 200, "me")["id"]
    hard = {"kind": "bot", "bot_level": "hard"}
    client.expect(flood.post(f"{client.API}/matches", {"deals": 1, "seats": [hard] * 4}),
                  201, "a table of computer players")
    by_the_request, _ = _bucket(server, flooder)
    latest = by_the_request
    deadline = time.monotonic() + 30
    while latest < by_the_request + 0.2 and time.monotonic() < deadline:
        time.sleep(0.05)
        latest = max(latest, _bucket(server, flooder)[0])
    assert latest >= by_the_request + 0.2, (by_the_request, latest)
