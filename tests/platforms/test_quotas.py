"""A platform's key is held to the platform's own quotas, which staff set per platform, not to a
person's limits: requests a minute, requests in flight, live streams, long polls. Every counted
answer tells where the caller stands in the RateLimit fields."""

from __future__ import annotations

import re

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient, APIRequestFactory, force_authenticate
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

from games.api import slots
from games.api.in_flight import InFlightThrottle, release
from games.api.quotas import account_quotas, quotas_of
from games.quotas import Quotas
from platforms.models import Platform, PlatformKey
from tests.api.conftest import API, new_player
from tests.platforms.conftest import PlatformClient, new_platform, problem
from tests.platforms.test_platform_reads import platform_match

pytestmark = pytest.mark.django_db

FIELD = re.compile(r'"requests";r=(\d+);t=(\d+)')


@pytest.fixture(autouse=True)
def fresh_counts():
    cache.clear()
    yield
    cache.clear()


def set_quotas(platform: PlatformClient, **quotas: int) -> None:
    Platform.objects.filter(pk=platform.platform.pk).update(**quotas)


def left(response) -> tuple[int, int]:
    found = FIELD.fullmatch(response["RateLimit"])
    assert found, response["RateLimit"]
    return int(found[1]), int(found[2])


def test_a_platforms_requests_a_minute_are_its_own_and_told_on_every_answer(platform) -> None:
    set_quotas(platform, requests_per_minute=3)
    other = new_platform("Beta Games")

    answers = [platform.get("/players") for _ in range(3)]
    assert [answer.status_code for answer in answers] == [200, 200, 200]
    assert {answer["RateLimit-Policy"] for answer in answers} == {'"requests";q=3;w=60'}
    assert [left(answer)[0] for answer in answers] == [2, 1, 0]
    refused = platform.get("/players")
    problem(refused, 429, "throttled")
    assert left(refused)[0] == 0
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert int(refused["Retry-After"]) == left(refused)[1]
    # Another platform, and a person, are held to their own.
    assert other.get("/players").status_code == 200
    assert other.get("/players")["RateLimit-Policy"] == '"requests";q=6000;w=60'


def test_the_default_quota_is_sized_for_a_thousand_matches(platform) -> None:
    answer = platform.get("/players")
    assert answer["RateLimit-Policy"] == '"requests";q=6000;w=60'
    assert left(answer)[0] == 5999
    assert platform.platform.quotas == Quotas(
        requests=(6000, 60), requests_in_flight=16, streams=1100, long_polls=16)


def test_a_person_under_a_request_rate_is_told_it_too(db, monkeypatch) -> None:
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"anon": None, "user": "2/minute"})
    person = new_player("Ayla")
    assert [left(person.get("/me"))[0] for _ in range(2)] == [1, 0]
    problem(person.get("/me"), 429, "throttled")
    # An answer the rate did not count has no fields: no rate in the debug settings.
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"anon": None, "user": None})
    assert "RateLimit" not in new_player("Cem").get("/me")


def _key_request(platform: PlatformClient):
    key = PlatformKey.objects.select_related("platform__user").get(platform=platform.platform)
    request = APIRequestFactory().get("/")
    force_authenticate(request, user=key.platform.user, token=key)
    return APIView().initialize_request(request)


def test_a_platforms_requests_in_flight_are_its_own(platform, settings) -> None:
    settings.API_MAX_IN_FLIGHT_PER_ACCOUNT = 1
    set_quotas(platform, requests_in_flight=3)
    requests = [_key_request(platform) for _ in range(4)]
    throttle = InFlightThrottle()
    try:
        assert [throttle.allow_request(request, None) for request in requests] \
            == [True, True, True, False]
    finally:
        for request in requests:
            release(request._request)
    assert quotas_of(requests[0]).requests_in_flight == 3
    assert account_quotas().requests_in_flight == 1


@pytest.mark.django_db(transaction=True)
def test_a_platforms_streams_and_long_polls_are_its_own(platform, settings) -> None:
    settings.STREAM_MAX_PER_ACCOUNT = settings.LONG_POLL_MAX_PER_ACCOUNT = 1
    set_quotas(platform, live_streams=2, long_polls=2)
    match_id, _ = platform_match(platform)
    key: APIClient = platform.client
    account = platform.platform.user_id
    version = key.get(f"{API}/matches/{match_id}").json()["version"]
    waits = f"{API}/matches/{match_id}/events?after={version}&wait=1"
    with slots.stream(account, per_account=2, thread_per_stream=None), \
            slots.long_poll(account, 5, per_account=2):
        # One of each held: a person would be refused the next, the platform is not.
        stream = key.get(f"{API}/matches/{match_id}/stream", HTTP_ACCEPT="text/event-stream")
        assert stream.status_code == 200
        stream.close()
        assert key.get(waits).status_code == 200
        set_quotas(platform, live_streams=1, long_polls=1)
        problem(key.get(f"{API}/matches/{match_id}/stream", HTTP_ACCEPT="text/event-stream"),
                429, "too_many_streams")
        problem(key.get(waits), 429, "too_many_long_polls")
