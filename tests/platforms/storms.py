"""One platform's replay storm beside another platform's events, as the fairness test
(tests/platforms/test_webhook_fairness.py) and benchmark (loadtest/fairness.py) set it up."""

from __future__ import annotations

import uuid

from django.db import transaction

from platforms import events, services, webhooks
from platforms.models import DeliveryStatus, WebhookDelivery, WebhookSubscription


def storming_and_calm(url: str) -> tuple[WebhookSubscription, WebhookSubscription]:
    """Two platforms, "Storm" and "Calm", each subscribed to `deal.ended` at ``url``."""
    storming, calm = (
        webhooks.subscribe(platform=services.register_platform(name=name), url=url,
                           event_types=["deal.ended"])
        for name in ("Storm", "Calm")
    )
    return storming, calm


def delivered_long_ago(subscription: WebhookSubscription, count: int) -> str:
    """``count`` events of one match of ``subscription``'s platform, all delivered (none is
    sent): what a replay sends again. Returns the match's id."""
    match_id = str(uuid.uuid4())
    sending = webhooks.send
    webhooks.send = lambda delivery_ids, countdown=0: None
    try:
        with transaction.atomic():
            events.emit(subscription.platform_id, [
                ("deal.ended", {"match_id": match_id, "version": version})
                for version in range(count)
            ])
    finally:
        webhooks.send = sending
    WebhookDelivery.objects.filter(subscription=subscription).update(
        status=DeliveryStatus.SUCCEEDED)
    return match_id


def calm_event(subscription: WebhookSubscription) -> str:
    """One event of a new match of ``subscription``'s platform, sent once committed. Returns
    the match's id."""
    match_id = str(uuid.uuid4())
    with transaction.atomic():
        events.emit(subscription.platform_id,
                      [("deal.ended", {"match_id": match_id, "version": 1})])
    return match_id
