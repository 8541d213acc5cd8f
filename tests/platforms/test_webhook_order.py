"""Webhooks in order and on time: a match's deliveries to a subscription wait while an earlier
one is retried (other matches' do not), every body carries the match's `sequence`, and a retry
is made when it is due, not at the next sweep, while other deliveries flow."""

from __future__ import annotations

import itertools
import time
import uuid
from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from platforms import events, webhooks
from platforms.models import DeliveryStatus, WebhookDelivery, WebhookEvent
from runtime import work

from .conftest import new_platform
from .receiver import Receiver
from .test_webhooks import wait_for


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    serving = Receiver()
    yield serving
    serving.stop()


@pytest.fixture
def in_process(settings) -> None:
    settings.WEBHOOK_TIMEOUT_SECONDS = 2
    # Deliveries on the webhooks' lane, in-process; the sweep is only for what was lost, so
    # it is kept out of the way: what is measured is the retries' own schedule.
    settings.IN_PROCESS_JOBS = True
    settings.WEBHOOK_SWEEP_INTERVAL_SECONDS = 30


def emit(platform_id: int, match_id: uuid.UUID, *types: str) -> None:
    """One move of ``match_id`` that makes events of ``types`` (one version), committed."""
    with transaction.atomic():
        events.emit(platform_id, [
            (event_type, {"match_id": str(match_id), "version": 1}) for event_type in types
        ])


def accepted(receiver: Receiver, match_id: uuid.UUID) -> list[dict]:
    return [r for r in receiver.got
            if r["status"] == 204 and r["body"]["data"]["match_id"] == str(match_id)]


@pytest.mark.django_db(transaction=True)
def test_a_match_s_events_wait_for_its_retried_one_and_arrive_in_order(
    receiver, in_process, settings
) -> None:
    settings.WEBHOOK_RETRY_SECONDS = "0.3,0.3,0.3,0.3"
    platform = new_platform("Ordered").platform
    subscribe_to(platform, receiver)
    match, other = uuid.uuid4(), uuid.uuid4()
    refused: list[int] = []

    def decide(body: dict) -> int:  # the match's first event is refused thrice, then taken
        if body["data"]["match_id"] == str(match) and body["sequence"] == 1 and len(refused) < 3:
            refused.append(1)
            return 503
        return 204

    receiver.decide = decide
    emit(platform.pk, match, "turn.started")
    wait_for(lambda: len(receiver.got) == 1)
    for _ in range(4):  # two events of one move share its version; sequences tell them apart
        emit(platform.pk, match, "deal.ended", "turn.started")
    emit(platform.pk, other, "deal.ended")
    wait_for(lambda: len(receiver.unique()) == 10)
    ours = accepted(receiver, match)
    assert [r["body"]["sequence"] for r in ours] == list(range(1, 10))
    assert len(refused) == 3
    # Another match's event is not held up by this one's retries.
    assert accepted(receiver, other)[0]["at"] < ours[0]["at"]
    # Once the retried one is taken, the next is sent at once (not at a sweep, 30 s away).
    assert ours[1]["at"] - ours[0]["at"] < 0.5
    assert set(WebhookEvent.objects.values_list("match_id", flat=True)) == {match, other}


@pytest.mark.django_db(transaction=True)
def test_a_delivery_that_finally_fails_lets_the_next_of_its_match_go(
    receiver, in_process, settings
) -> None:
    settings.WEBHOOK_RETRY_SECONDS = "0.2,0.2"
    platform = new_platform("Given up").platform
    subscribe_to(platform, receiver)
    match = uuid.uuid4()
    receiver.decide = lambda body: 500 if body["sequence"] == 1 else 204
    emit(platform.pk, match, "turn.started")
    emit(platform.pk, match, "deal.ended")
    statuses = WebhookDelivery.objects.order_by("event__sequence").values_list(
        "status", flat=True)
    wait_for(lambda: list(statuses.all()) == [DeliveryStatus.FAILED, DeliveryStatus.SUCCEEDED])
    assert [r["status"] for r in receiver.got] == [500, 500, 500, 204]


def test_a_waiting_delivery_is_not_due_for_the_sweep(db) -> None:
    platform = new_platform("Swept").platform
    webhooks.subscribe(platform=platform, url="https://a.example/h", event_types=["deal.ended"])
    match, other = uuid.uuid4(), uuid.uuid4()
    events.emit(platform.pk, [("deal.ended", {"match_id": str(match), "version": 1}),
                                ("deal.ended", {"match_id": str(match), "version": 2}),
                                ("deal.ended", {"match_id": str(other), "version": 1})])
    first = {row.event.match_id: row.pk for row in
             WebhookDelivery.objects.select_related("event").order_by("-event__sequence")}
    assert sorted(webhooks.due_deliveries()) == sorted(first.values())
    payloads = WebhookEvent.objects.order_by("match_id", "sequence")
    assert all(event.payload["sequence"] == event.sequence for event in payloads)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("traffic_of", ["another platform", "the same platform"])
def test_a_retry_is_made_when_due_while_other_deliveries_flow(receiver, in_process, settings,
                                                               traffic_of) -> None:
    """Another match's events flow meanwhile (to a receiver that takes 0.1 s each): the retries
    come when due, not at the sweep after (once a second, and later when the periodic jobs
    before it are slow under load), nor after the newer events."""
    settings.WEBHOOK_RETRY_SECONDS = "1,1,1,1"
    settings.WEBHOOK_SWEEP_INTERVAL_SECONDS = 1  # the default
    work.start_in_process()
    platform = new_platform("Busy").platform
    subscribe_to(platform, receiver)
    busy = platform if traffic_of == "the same platform" else new_platform("Other").platform
    if busy != platform:
        subscribe_to(busy, receiver)
    flaky = uuid.uuid4()
    refused: list[int] = []

    def decide(body: dict) -> int:
        if body["data"]["match_id"] != str(flaky):
            time.sleep(0.1)
            return 204
        if len(refused) < 3:
            refused.append(1)
            return 503
        return 204

    receiver.decide = decide
    emit(platform.pk, flaky, "deal.ended")
    deadline = time.monotonic() + 20
    traffic = 0
    while not accepted(receiver, flaky):
        assert time.monotonic() < deadline, "timed out"
        emit(busy.pk, uuid.uuid4(), "deal.ended")
        traffic += 1
        time.sleep(0.1)
    attempts = [r["at"] for r in receiver.got if r["body"]["data"]["match_id"] == str(flaky)]
    late = [later - earlier - 1.0 for earlier, later in itertools.pairwise(attempts)]
    print(f"retry lateness (s), traffic of {traffic_of}: "
          f"{[round(value, 3) for value in late]}; {traffic} others sent")
    assert len(late) == 3 and max(late) < 0.25
    wait_for(lambda: len(receiver.unique()) == traffic + 1)


def subscribe_to(platform, receiver: Receiver) -> None:
    subscription = webhooks.subscribe(platform=platform, url=receiver.url,
                                      event_types=["deal.ended", "turn.started"])
    receiver.secrets[str(subscription.pk)] = subscription.secret


def test_a_last_attempt_that_never_reported_back_fails_and_lets_the_next_go(
    db, settings, monkeypatch, django_capture_on_commit_callbacks
) -> None:
    """Its worker was killed on the last attempt: once the attempt's lease is over, the
    delivery is failed (not pending forever, holding back the later events of its match)."""
    settings.WEBHOOK_RETRY_SECONDS = "1,1"
    platform = new_platform("Killed").platform
    webhooks.subscribe(platform=platform, url="https://a.example/h", event_types=["deal.ended"])
    match = uuid.uuid4()
    events.emit(platform.pk, [("deal.ended", {"match_id": str(match), "version": 1}),
                                ("deal.ended", {"match_id": str(match), "version": 2})])
    first, second = WebhookDelivery.objects.order_by("event__sequence")
    lapsed = timezone.now() - timedelta(seconds=1)
    WebhookDelivery.objects.filter(pk=first.pk).update(
        attempts=3, in_flight_until=lapsed, next_attempt_at=lapsed)
    assert webhooks.due_deliveries() == [first.pk]
    sent: list[int] = []
    monkeypatch.setattr(webhooks, "send", lambda ids, countdown=0: sent.extend(ids))
    with django_capture_on_commit_callbacks(execute=True):
        assert webhooks._claim(first.pk) is None
    first.refresh_from_db()
    assert (first.status, first.attempts, first.in_flight_until) == (
        DeliveryStatus.FAILED, 3, None)
    assert first.last_error == "the last attempt did not finish"
    assert sent == [second.pk] and webhooks.due_deliveries() == [second.pk]
    # Sent again on request, it has one more attempt (not failed at once).
    WebhookDelivery.objects.filter(pk=second.pk).update(status=DeliveryStatus.SUCCEEDED)
    webhooks.redeliver(first)
    claimed = webhooks._claim(first.pk)
    assert claimed is not None and claimed.attempts == 4


def test_an_event_sent_again_holds_back_no_live_one(db, monkeypatch) -> None:
    """An old event replayed or redelivered (and retried for a day at worst) neither holds back
    the events the match makes meanwhile nor waits for them; live ones still keep their
    order."""
    monkeypatch.setattr(webhooks, "send", lambda ids, countdown=0: None)
    platform = new_platform("Replayed").platform
    subscription = webhooks.subscribe(platform=platform, url="https://a.example/h",
                                      event_types=["deal.ended"])
    match = uuid.uuid4()
    before = timezone.now()

    def live() -> WebhookDelivery:
        events.emit(platform.pk, [("deal.ended", {"match_id": str(match), "version": 1})])
        return WebhookDelivery.objects.order_by("-event__sequence").first()

    def retrying(*deliveries: WebhookDelivery) -> None:  # refused: its next attempt is later
        WebhookDelivery.objects.filter(pk__in=[d.pk for d in deliveries]).update(
            attempts=1, next_attempt_at=timezone.now() + timedelta(hours=1))

    one, two = live(), live()
    WebhookDelivery.objects.update(status=DeliveryStatus.SUCCEEDED)
    assert webhooks.replay(subscription, since=before).count == 2
    retrying(one)
    assert webhooks.due_deliveries() == [two.pk]  # nor does one replayed wait for another
    first, second = live(), live()
    assert sorted(webhooks.due_deliveries()) == sorted([two.pk, first.pk])
    retrying(first)  # a live one still holds back the later live ones ...
    assert webhooks.due_deliveries() == [two.pk]
    WebhookDelivery.objects.filter(pk=two.pk).update(status=DeliveryStatus.FAILED)
    webhooks.redeliver(two)  # ... not one redelivered after it
    assert webhooks.due_deliveries() == [two.pk]
    webhooks.redeliver(first)  # still pending: it keeps its place in the order
    assert sorted(webhooks.due_deliveries()) == sorted([two.pk, first.pk])
    assert not WebhookDelivery.objects.get(pk=first.pk).resent
    assert second.status == DeliveryStatus.PENDING
