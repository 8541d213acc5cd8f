"""The races (tests/abuse/races.py) on the scaled-out form: gunicorn on PostgreSQL, the
counts in Redis."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest
from django.core.cache import cache

from tests.abuse import races
from tests.integration.harness.stack import Stack

pytestmark = [pytest.mark.integration, pytest.mark.django_db]

GUEST_RATE = 5


@pytest.mark.parametrize("race", races.ACCOUNT_CAPS, ids=lambda race: race.__name__)
def test_account_caps_hold(race, web: str) -> None:
    race(web)


@pytest.fixture(scope="module")
def behind_one_proxy(stack: Stack) -> Iterator[str]:
    """A gunicorn of its own that trusts one proxy's X-Forwarded-For (so each test names an
    address no earlier run has used) and signs up GUEST_RATE guests an hour per address."""
    name = "web-behind-proxy"
    yield stack.start_web(name, DJANGO_NUM_PROXIES="1",
                          GUEST_CREATION_RATE=f"{GUEST_RATE}/hour")
    stack.stop(name)


def an_address() -> str:
    return f"198.51.{secrets.randbelow(256)}.{secrets.randbelow(250) + 1}"


def test_the_log_in_lock_out_holds(behind_one_proxy: str) -> None:
    races.twenty_wrong_passwords_at_once_check_no_more_than_the_limit(
        behind_one_proxy, an_address()
    )


def test_the_guest_sign_up_rate_holds(behind_one_proxy: str) -> None:
    races.twenty_guest_sign_ups_at_once_stop_at_the_rate(
        behind_one_proxy, an_address(), GUEST_RATE
    )


def test_a_count_in_redis_goes_up_in_one_step_and_only_while_it_lasts() -> None:
    """What the counts above rely on (batak_api/cache.py): `incr` of a key that has gone is
    refused and makes none (a key without expiry would be a lock-out for good)."""
    key = "races-" + secrets.token_hex(4)
    with pytest.raises(ValueError):
        cache.incr(key)
    assert cache.get(key) is None
    assert cache.add(key, 1, 60)
    assert cache.incr(key) == 2 and cache.decr(key) == 1
    cache.delete(key)


# Last: committed rows for the server to see, and every table emptied after it.
@pytest.mark.django_db(transaction=True)
def test_a_platforms_cap_holds(web: str) -> None:
    races.twenty_platform_matches_at_once_stop_at_the_platform_cap(web, 5)
