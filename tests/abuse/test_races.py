"""The races (races.py) on the embedded default as `scripts/serve` runs it: uvicorn on SQLite,
with the cache in memory. The scaled-out form runs them in tests/integration/test_races.py."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest
from django.core.cache import cache
from rest_framework.throttling import SimpleRateThrottle

from tests.abuse import races


@pytest.fixture(autouse=True)
def all_in_flight(settings) -> None:
    """The races are about the caps: an account's twenty requests all in flight at once, not
    refused by the bound on requests in flight (games/api/in_flight.py)."""
    settings.API_MAX_IN_FLIGHT_PER_ACCOUNT = 100


@pytest.fixture
def behind_one_proxy(settings, monkeypatch) -> Iterator[str]:
    """The server trusts one proxy's X-Forwarded-For, signs up 5 guests an hour per address
    (no other throttle), and counts from nothing; the address to send."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES",
                        {"anon": None, "user": None, "guest": "5/hour"})
    cache.clear()
    yield f"198.51.100.{secrets.randbelow(250) + 1}"
    cache.clear()


@pytest.mark.parametrize("race", races.ACCOUNT_CAPS, ids=lambda race: race.__name__)
def test_account_caps_hold(race, asgi_server) -> None:
    race(asgi_server)


def test_a_platforms_cap_holds(asgi_server) -> None:
    races.twenty_platform_matches_at_once_stop_at_the_platform_cap(asgi_server, 5)


def test_the_log_in_lock_out_holds(asgi_server, behind_one_proxy) -> None:
    races.twenty_wrong_passwords_at_once_check_no_more_than_the_limit(
        asgi_server, behind_one_proxy
    )


def test_the_guest_sign_up_rate_holds(asgi_server, behind_one_proxy) -> None:
    races.twenty_guest_sign_ups_at_once_stop_at_the_rate(asgi_server, behind_one_proxy, 5)
