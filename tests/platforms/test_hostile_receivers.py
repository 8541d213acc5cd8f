"""Webhook receivers that misbehave on purpose: each attempt ends by its deadline and counts as a
failed attempt with its reason, a platform holds at most WEBHOOK_PLATFORM_CONCURRENCY attempts,
other platforms' deliveries go on meanwhile, and the service connects only to the address it
checked (no DNS rebinding, no special-purpose ranges, none registered either)."""

from __future__ import annotations

import ipaddress
import socket
import time
import uuid
from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.utils import timezone

from platforms import addresses, webhooks
from platforms.models import (
    DeliveryStatus,
    WebhookDelivery,
    WebhookEvent,
    WebhookSubscription,
)

from .conftest import new_platform
from .hostile import HostileReceiver
from .receiver import Receiver

DEADLINE = 1.0


def wait_until(check, seconds: float) -> None:
    started = time.monotonic()
    while not check():
        assert time.monotonic() - started < seconds, "timed out"
        time.sleep(0.02)


@pytest.fixture
def deadline(settings) -> None:
    settings.WEBHOOK_TIMEOUT_SECONDS = DEADLINE
    settings.WEBHOOK_RETRY_SECONDS = "30,30"
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = True


@pytest.fixture
def hostile() -> Iterator[list[HostileReceiver]]:
    started: list[HostileReceiver] = []
    yield started
    for receiver in started:
        receiver.stop()


def deliveries(url: str, count: int = 1, name: str = "") -> list[int]:
    """``count`` due deliveries of a new platform's subscription to ``url``."""
    platform = new_platform(name or f"Platform {uuid.uuid4().hex[:6]}").platform
    subscription = webhooks.subscribe(platform=platform, url=url, event_types=["deal.ended"])
    made = []
    for _ in range(count):
        event = WebhookEvent.objects.create(
            id=f"msg_{uuid.uuid4().hex}", platform=platform, type="deal.ended",
            payload={"type": "deal.ended", "timestamp": timezone.now().isoformat(), "data": {}},
        )
        made.append(WebhookDelivery.objects.create(
            subscription=subscription, event=event, next_attempt_at=timezone.now()
        ).pk)
    return made


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("mode", ["trickle", "silent", "bad-status", "huge-body"])
def test_a_misbehaving_receiver_is_a_failed_attempt_within_the_deadline(
    deadline, hostile, mode
) -> None:
    receiver = HostileReceiver(mode)
    hostile.append(receiver)
    [delivery_id] = deliveries(receiver.url)
    started = time.monotonic()
    assert webhooks.attempt(delivery_id) is (mode == "huge-body")
    assert time.monotonic() - started < DEADLINE + 1
    delivery = WebhookDelivery.objects.get(pk=delivery_id)
    assert delivery.attempts == 1 and delivery.in_flight_until is None
    if mode == "huge-body":  # the status is the answer; its body is never read
        assert delivery.status == DeliveryStatus.SUCCEEDED
        return
    assert delivery.status == DeliveryStatus.PENDING
    assert delivery.next_attempt_at > timezone.now() + timedelta(seconds=20)
    expected = {"trickle": "no answer within", "silent": "no answer within",
                "bad-status": "RemoteProtocolError"}[mode]
    assert expected in delivery.last_error


@pytest.mark.django_db(transaction=True)
def test_a_redirect_to_a_private_address_is_a_failed_attempt(deadline, hostile) -> None:
    target = Receiver()
    try:
        receiver = HostileReceiver("redirect", target=target.url)
        hostile.append(receiver)
        [delivery_id] = deliveries(receiver.url)
        assert webhooks.attempt(delivery_id) is False
        assert target.got == []
        assert WebhookDelivery.objects.get(pk=delivery_id).last_status_code == 307
    finally:
        target.stop()


@pytest.mark.django_db(transaction=True)
def test_an_attempt_is_counted_before_it_is_sent(deadline, settings) -> None:
    """A worker killed mid-attempt (here: the claim without the rest) has used up its
    attempt: the delivery is not due again until the retry's delay, and then it is the
    second attempt, so a receiver that kills workers is not retried forever."""
    settings.WEBHOOK_RETRY_SECONDS = "0,0"
    [delivery_id] = deliveries("http://127.0.0.1:9/h")
    claimed = webhooks._claim(delivery_id)
    assert claimed is not None and claimed.attempts == 1
    assert webhooks._claim(delivery_id) is None  # under way: not due
    WebhookDelivery.objects.filter(pk=delivery_id).update(next_attempt_at=timezone.now(),
                                                           in_flight_until=None)
    assert webhooks._claim(delivery_id).attempts == 2
    WebhookDelivery.objects.filter(pk=delivery_id).update(next_attempt_at=timezone.now(),
                                                           in_flight_until=None)
    # The third attempt is the last of two retries: when it fails, the delivery has failed.
    assert webhooks.attempt(delivery_id) is False
    assert WebhookDelivery.objects.get(pk=delivery_id).status == DeliveryStatus.FAILED


@pytest.mark.django_db(transaction=True)
def test_a_platform_has_at_most_its_share_of_attempts_under_way(
    deadline, hostile, settings
) -> None:
    settings.IN_PROCESS_JOBS = True
    settings.WEBHOOK_PLATFORM_CONCURRENCY = 2
    receiver = HostileReceiver("silent")
    hostile.append(receiver)
    ids = deliveries(receiver.url, count=6)
    webhooks.send(ids)
    # Both of its slots are taken (a first attempt in a process starts slowly on a busy
    # machine: a fixed half-deadline's wait saw one open), and no third while they hang.
    wait_until(lambda: receiver.most_open >= 2, DEADLINE)
    assert receiver.most_open == 2
    assert WebhookDelivery.objects.filter(pk__in=ids, attempts=0).count() == 4
    # As attempts end, the platform's waiting deliveries take their places, two at a time.
    wait_until(lambda: receiver.requests == 6, DEADLINE * 4)
    assert receiver.most_open == 2


@pytest.mark.django_db(transaction=True)
def test_a_hanging_receiver_holds_up_no_other_platform(deadline, hostile, settings) -> None:
    """On the embedded default's webhooks lane: while one platform's receiver hangs on every
    attempt its share allows, another platform's deliveries arrive at once."""
    settings.IN_PROCESS_JOBS = True
    settings.WEBHOOK_TIMEOUT_SECONDS = 5
    receiver = HostileReceiver("silent")
    hostile.append(receiver)
    webhooks.send(deliveries(receiver.url, count=12))
    time.sleep(0.3)
    good = Receiver()
    try:
        ids = deliveries(good.url, count=3)
        webhooks.send(ids)
        started = time.monotonic()
        while len(good.got) < 3:
            assert time.monotonic() - started < 3, "held up behind the hanging receiver"
            time.sleep(0.02)
    finally:
        good.stop()
    assert receiver.most_open == settings.WEBHOOK_PLATFORM_CONCURRENCY


@pytest.mark.django_db(transaction=True)
def test_the_sweep_takes_a_share_of_each_platform(deadline, settings) -> None:
    settings.WEBHOOK_PLATFORM_CONCURRENCY = 2
    backlog = deliveries("http://127.0.0.1:9/a", count=50)
    other = deliveries("http://127.0.0.1:9/b", count=1)
    due = webhooks.due_deliveries()
    assert set(due) == {*backlog[:2], *other}


# --- addresses ---------------------------------------------------------------------------------


@pytest.mark.parametrize("address", [
    "127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1",
    "0.0.0.0", "198.18.0.1", "192.0.0.8", "224.0.0.1", "255.255.255.255", "240.0.0.1",
    "::1", "::", "fe80::1", "fd00::1", "fec0::1", "ff02::1",
    "64:ff9b::a00:1",  # NAT64 of 10.0.0.1
    "64:ff9b::808:808",  # NAT64 of 8.8.8.8: a translator in the service's network reaches it
    "64:ff9b:1::1",
    "2002:7f00:1::1",  # 6to4 of 127.0.0.1
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",  # Teredo
    "::ffff:127.0.0.1", "::ffff:8.8.8.8",  # IPv4-mapped
    "::7f00:1",  # IPv4-compatible (deprecated) 127.0.0.1
    "2001:db8::1", "100::1", "5f00::1",
])
def test_special_purpose_addresses_are_not_public(address) -> None:
    assert not addresses.is_public(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111",
                                     "2a00:1450:4001:80b::200e"])
def test_public_addresses_are(address) -> None:
    assert addresses.is_public(ipaddress.ip_address(address))


REAL_GETADDRINFO = socket.getaddrinfo


class Resolver:
    """A name server that answers one address first and another to every later look-up, as
    a rebinding attacker's does."""

    def __init__(self, first: str, later: str) -> None:
        self.answers = [first]
        self.later = later
        self.asked = 0

    def __call__(self, host, port, *args, **kwargs):
        try:
            ipaddress.ip_address(host)
            return REAL_GETADDRINFO(host, port, *args, **kwargs)  # a literal is itself
        except ValueError:
            pass
        self.asked += 1
        address = self.answers.pop(0) if self.answers else self.later
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port or 0))]


@pytest.mark.django_db(transaction=True)
def test_the_service_connects_to_the_address_it_checked(deadline, monkeypatch) -> None:
    receiver = Receiver()
    try:
        port = receiver.url.split(":")[2].split("/")[0]
        resolver = Resolver("127.0.0.1", later="10.255.255.1")
        monkeypatch.setattr(socket, "getaddrinfo", resolver)
        [delivery_id] = deliveries(f"http://hooks.rebind.test:{port}/h")
        assert webhooks.attempt(delivery_id) is True
        assert resolver.asked == 1
        assert len(receiver.got) == 1
    finally:
        receiver.stop()


@pytest.mark.django_db(transaction=True)
def test_a_name_that_rebinds_to_loopback_gets_nowhere(deadline, settings, monkeypatch) -> None:
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False
    receiver = Receiver()
    try:
        port = receiver.url.split(":")[2].split("/")[0]
        # Checked as a documentation-free public address nobody answers on (no route here),
        # then loopback to whoever looks again.
        monkeypatch.setattr(socket, "getaddrinfo", Resolver("8.8.8.8", later="127.0.0.1"))
        [delivery_id] = deliveries(f"http://hooks.rebind.test:{port}/h")
        assert webhooks.attempt(delivery_id) is False
        assert receiver.got == []
    finally:
        receiver.stop()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("url", [
    "http://127.0.0.1:8790/h", "http://10.0.0.7/h", "http://[::1]/h", "http://[64:ff9b::a00:1]/h",
    "http://[2002:7f00:1::1]/h", "http://169.254.169.254/latest/meta-data",
    "http://localhost/h", "http://no-such-host.invalid/h",
])
def test_a_private_url_is_refused_when_registered(settings, url) -> None:
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False
    platform = new_platform("Inward")
    response = platform.post("/webhooks", {"url": url, "event_types": ["deal.ended"]})
    assert response.status_code == 400, response.content
    assert response.json()["errors"][0]["field"] == "url"
    assert not WebhookSubscription.objects.exists()


@pytest.mark.django_db
def test_a_url_with_a_control_character_is_refused(platform) -> None:
    for url in ("http://8.8.8.8:8790/\n", "http://8.8.8.8/a\r\nX: y", "http://8.8.8.8/\t"):
        response = platform.post("/webhooks", {"url": url, "event_types": ["deal.ended"]})
        assert response.status_code == 400, url


@pytest.mark.django_db(transaction=True)
def test_a_name_server_that_never_answers_is_cut_off_at_the_deadline(
    deadline, monkeypatch
) -> None:
    def slow(host, port, *args, **kwargs):
        time.sleep(DEADLINE * 3)
        return REAL_GETADDRINFO("127.0.0.1", port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", slow)
    [delivery_id] = deliveries("http://slow-dns.test:9/h")
    started = time.monotonic()
    assert webhooks.attempt(delivery_id) is False
    assert time.monotonic() - started < DEADLINE + 1
    assert "no answer within" in WebhookDelivery.objects.get(pk=delivery_id).last_error


def test_posts_sent_together_keep_to_their_places_and_share_one_deadline(settings) -> None:
    """`transport.post_all`: at most ``at_once`` of them reach the receiver at a time, over
    kept connections, and whatever is not answered by the one deadline fails as one would."""
    from threading import Lock

    from platforms import transport

    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = True
    settings.WEBHOOK_TIMEOUT_SECONDS = 0.7
    receiver = Receiver()
    guard, under_way, most = Lock(), [0], [0]

    def slowly(body: dict) -> int:
        with guard:
            under_way[0] += 1
            most[0] = max(most[0], under_way[0])
        time.sleep(0.2)
        with guard:
            under_way[0] -= 1
        return 204

    receiver.decide = slowly
    try:
        outcomes = transport.post_all([
            transport.Post(receiver.url, {"Content-Type": "application/json"}, b'{"n":%d}' % n)
            for n in range(10)
        ], at_once=2)
    finally:
        receiver.stop()
    assert most[0] == 2
    answered = [outcome for outcome in outcomes if outcome.code == 204]
    late = [outcome for outcome in outcomes if outcome.code is None]
    # Two at a time, 0.2 s each: six answered in the 0.7 s at most, the rest failed.
    assert 2 <= len(answered) <= 6 and len(answered) + len(late) == 10
    assert all(outcome.error == "no answer within 0.7 s" for outcome in late)
    assert any(not outcome.sent for outcome in late)  # (those still waiting for a place)
    assert [outcome.code for outcome in outcomes] == sorted(
        (outcome.code for outcome in outcomes), key=lambda code: code is None)  # in order
    assert len({tuple(record["connection"]) for record in receiver.got}) == 2


def test_an_answer_is_never_unpacked_and_no_receiver_s_cookie_is_kept(settings) -> None:
    """A short body that unpacks to 100 MB is read as it came (the answer was its status), and
    a cookie one answer sets is never sent with the next post to that host."""
    import tracemalloc

    from platforms import transport

    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = True
    bomb, cookie = HostileReceiver("gzip-bomb"), HostileReceiver("cookie")
    tracemalloc.start()
    try:
        [bombed] = transport.post_all([transport.Post(bomb.url, {}, b"{}")], at_once=1)
        _, peak = tracemalloc.get_traced_memory()
        outcomes = [transport.post_all([transport.Post(cookie.url, {}, b"{}")], at_once=1)[0]
                    for _ in range(2)]
    finally:
        tracemalloc.stop()
        bomb.stop()
        cookie.stop()
    assert bombed.code == 200 and peak < 20_000_000, peak
    assert b"accept-encoding: identity" in bomb.heads[0].lower()
    assert [outcome.code for outcome in outcomes] == [204, 204]
    assert len(cookie.heads) == 2 and not any(b"cookie" in head.lower() for head in cookie.heads)
