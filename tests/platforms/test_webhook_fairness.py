"""A platform's replays and redeliveries go in its own share of the webhook workers: on the
embedded default (here, the webhooks' lane), another platform's fresh event is delivered once
an attempt under way ends, not after the replayed backlog (scaled out:
tests/integration/test_platforms.py). A replay sends no delivery that is pending already."""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest

from platforms import events, services, webhooks
from platforms.models import DeliveryStatus, WebhookDelivery

from . import storms
from .receiver import Receiver
from .test_webhooks import wait_for

STORM = 60


@pytest.mark.django_db(transaction=True)
def test_a_replay_storm_of_one_platform_delays_no_other_platform_s_event(settings) -> None:
    settings.WEBHOOK_WORKER_THREADS = 2
    settings.WEBHOOK_PLATFORM_CONCURRENCY = 2
    receiver = Receiver()

    def slowly(body: dict[str, Any]) -> int:
        time.sleep(0.02)
        return 204

    receiver.decide = slowly
    storming, other = storms.storming_and_calm(receiver.url)
    for subscription in (storming, other):
        receiver.secrets[str(subscription.pk)] = subscription.secret
    stormy = storms.delivered_long_ago(storming, STORM)
    settings.IN_PROCESS_JOBS = True
    try:
        assert webhooks.replay(storming, since=storming.created_at).count == STORM
        calm = storms.calm_event(other)
        wait_for(lambda: not WebhookDelivery.objects.filter(
            status=DeliveryStatus.PENDING).exists(), 60)
    finally:
        receiver.stop()
    arrived = [record["body"]["data"]["match_id"] for record in receiver.got]
    assert arrived.count(stormy) == STORM and arrived.count(calm) == 1
    # Beside the storm's attempts under way (a thread's batch of them, sent over the platform's
    # two places while the calm event is committed, claimed and sent by the other thread),
    # not behind the storm.
    assert arrived.index(calm) < STORM // 4, arrived.index(calm)


@pytest.mark.django_db
def test_a_replay_sends_only_what_it_made_pending(
    monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any,
) -> None:
    platform = services.register_platform(name="Replaying")
    subscription = webhooks.subscribe(platform=platform, url="https://a.example/h",
                                      event_types=["deal.ended"])
    match_id = str(uuid.uuid4())
    events.emit(platform.pk, [("deal.ended", {"match_id": match_id, "version": version})
                                for version in (1, 2, 3)])
    delivered, pending, deleted = WebhookDelivery.objects.order_by("event__sequence")
    WebhookDelivery.objects.filter(pk=delivered.pk).update(status=DeliveryStatus.SUCCEEDED)
    deleted.delete()  # (e.g. subscribed after it)
    sent: list[int] = []
    monkeypatch.setattr(webhooks, "send", lambda delivery_ids, countdown=0: sent.extend(
        delivery_ids))
    with django_capture_on_commit_callbacks(execute=True):
        assert webhooks.replay(subscription, since=subscription.created_at).count == 3
    made_pending = WebhookDelivery.objects.exclude(pk=pending.pk).values_list("pk", flat=True)
    assert sorted(sent) == sorted(made_pending) and pending.pk not in sent


@pytest.mark.django_db
def test_an_attempt_hands_on_as_many_as_the_platform_may_make_at_once(
    monkeypatch: pytest.MonkeyPatch, settings
) -> None:
    """Two of a platform's attempts ending together read the same longest-due delivery: had
    each handed on that one only, the copy would find it taken, and the platform would go on
    one attempt at a time until the next sweep."""
    settings.WEBHOOK_PLATFORM_CONCURRENCY = 2
    platform = services.register_platform(name="Handing on")
    webhooks.subscribe(platform=platform, url="https://a.example/h", event_types=["deal.ended"])
    events.emit(platform.pk, [("deal.ended", {"match_id": str(uuid.uuid4()), "version": 1})
                                for _ in range(4)])
    sent: list[list[int]] = []
    monkeypatch.setattr(webhooks, "send", lambda delivery_ids, countdown=0: sent.append(
        list(delivery_ids)))
    first_two = list(WebhookDelivery.objects.order_by("pk").values_list("pk", flat=True)[:2])
    for _ in range(2):  # both ending before either's hand-on is attempted
        webhooks._hand_on(platform.pk)
    assert sent == [first_two, first_two]
