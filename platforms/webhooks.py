"""Webhooks to partner platforms, signed as the Standard Webhooks specification says.

Events are written in the transaction of the move that causes them (a receiver of
`games.signals.match_progressed`), one `WebhookDelivery` per subscription that wants the type,
so an event exists exactly when its move was committed. Once committed each delivery is sent
by a worker (scaled out; a thread of the process on the embedded default), never by the
request that made the move: a receiver that is down slows no move. A delivery is attempted
until the receiver answers 2xx, at the delays of WEBHOOK_RETRY_SECONDS (about a day in all),
then marked failed; staff may send it again from the admin. Every attempt of one event carries
the same `webhook-id`: delivery is at least once, and receivers deduplicate on the id.
"""

from __future__ import annotations

import base64
import ipaddress
import json
import logging
import secrets
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterable
from datetime import timedelta
from typing import Any, cast

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from standardwebhooks.webhooks import Webhook

from games import engine, lanes
from games.models import Match, MatchStatus
from platforms.models import (
    DeliveryStatus,
    EventType,
    Platform,
    PlatformPlayer,
    WebhookDelivery,
    WebhookEvent,
    WebhookSubscription,
)

logger = logging.getLogger(__name__)

CHUNK = 200


def new_secret() -> str:
    # Standard base64 of 24 random bytes (32 characters, no padding): what every Standard
    # Webhooks library decodes. (URL-safe base64 is not: `-` and `_` fail to decode.)
    return Webhook._SECRET_PREFIX + base64.b64encode(secrets.token_bytes(24)).decode()


def subscribe(*, platform: Platform, url: str, event_types: Iterable[str]) -> WebhookSubscription:
    return WebhookSubscription.objects.create(
        platform=platform, url=url, event_types=sorted(set(event_types)), secret=new_secret()
    )


# --- events ------------------------------------------------------------------------------------

# Matches known not to be a platform's. A platform's account is made with the platform
# (`services.register_platform`), so a match created by any other account never becomes one:
# most moves are spared the look-up. Match ids are random UUIDs, never handed out again (an
# account id would be: SQLite reuses the ids of rolled-back rows). Bounded by starting afresh.
_NOT_PLATFORMS: set[uuid.UUID] = set()
_NOT_PLATFORMS_MAX = 100_000


def _platform_id(match: Match) -> int | None:
    if match.id in _NOT_PLATFORMS:
        return None
    platform_id = Platform.objects.filter(user_id=match.created_by_id).values_list(
        "pk", flat=True
    ).first()
    if platform_id is None:
        if len(_NOT_PLATFORMS) >= _NOT_PLATFORMS_MAX:
            _NOT_PLATFORMS.clear()
        _NOT_PLATFORMS.add(match.id)
    return platform_id


def on_match_progressed(
    sender: Any, *, match: Match, seat: int | None, origin: str | None,
    ended_deal: Any, current: engine.Deal | None, **kwargs: Any,
) -> None:
    """The events of a platform's match that this change makes (in its transaction)."""
    platform_id = _platform_id(match)
    if platform_id is None:
        return
    seats = {row.index: row for row in match.seats.all()}
    # Keyed for lookups by a seat's user id, None for a computer or an open seat (no entry).
    players: dict[int | None, str] = dict(
        PlatformPlayer.objects.filter(
            platform_id=platform_id,
            user_id__in=[row.user_id for row in seats.values() if row.user_id],
        ).values_list("user_id", "external_id")
    )

    def external_id(index: int) -> str | None:
        return players.get(seats[index].user_id)

    base = {"match_id": str(match.id), "version": match.version}
    events: list[tuple[str, dict[str, Any]]] = []
    if origin == "timeout" and seat is not None:
        events.append((EventType.SEAT_TIMED_OUT, {
            **base, "seat": seat, "external_id": external_id(seat),
            "autopilot": seats[seat].autopilot,
        }))
    if ended_deal is not None and ended_deal.scores is not None:
        events.append((EventType.DEAL_ENDED, {
            **base, "deal_number": ended_deal.number, "deal_sequence": ended_deal.sequence,
            "scores": ended_deal.scores, "outcomes": ended_deal.outcomes,
            "totals": match.totals, "players": [external_id(i) for i in range(4)],
        }))
    if match.status == MatchStatus.FINISHED:
        events.append((EventType.MATCH_FINISHED, {
            **base, "totals": match.totals, "ranking": match.ranking,
            "players": [external_id(i) for i in range(4)],
        }))
    if (
        match.status == MatchStatus.ACTIVE and current is not None
        and current.to_act is not None
    ):
        to_act = seats[current.to_act]
        if to_act.is_person and not to_act.computer_plays and external_id(to_act.index):
            events.append((EventType.TURN_STARTED, {
                **base, "seat": to_act.index, "external_id": external_id(to_act.index),
                "deal_number": current.number, "phase": current.phase.value,
                "deadline": match.turn_deadline.isoformat() if match.turn_deadline else None,
            }))
    if events:
        emit(platform_id, events)


def emit(platform_id: int, events: list[tuple[str, dict[str, Any]]]) -> None:
    subscriptions = list(WebhookSubscription.objects.filter(platform_id=platform_id, active=True))
    now = timezone.now()
    created: list[int] = []
    for event_type, data in events:
        wanted = [sub for sub in subscriptions if event_type in sub.event_types]
        if not wanted:
            continue
        event = WebhookEvent.objects.create(
            id=f"msg_{uuid.uuid4().hex}", platform_id=platform_id, type=event_type,
            payload={"type": event_type, "timestamp": now.isoformat(), "data": data},
        )
        deliveries = WebhookDelivery.objects.bulk_create(
            WebhookDelivery(subscription=sub, event=event, next_attempt_at=now) for sub in wanted
        )
        created.extend(delivery.pk for delivery in deliveries)
    if created:
        transaction.on_commit(lambda: send(created))


# --- delivering --------------------------------------------------------------------------------


def retry_delays() -> list[float]:
    return [float(value) for value in settings.WEBHOOK_RETRY_SECONDS.split(",") if value]


def send(delivery_ids: list[int], countdown: float = 0) -> None:
    """Have these deliveries attempted by a worker (in-process: on the webhooks' lane, while
    IN_PROCESS_JOBS is on; the due ones are swept up again from there)."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        if settings.IN_PROCESS_JOBS:
            for delivery_id in delivery_ids:
                lanes.run_soon("webhooks", "platforms.webhooks.attempt", delivery_id)
        return
    for delivery_id in delivery_ids:
        # By name: the task module imports this one.
        current_app.send_task("platforms.tasks.deliver_webhook", args=(delivery_id,),
                              countdown=countdown)


def redeliver(delivery: WebhookDelivery) -> None:
    """Staff's "redeliver": one more attempt now, whatever came of the earlier ones."""
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        status=DeliveryStatus.PENDING, next_attempt_at=timezone.now()
    )
    send([delivery.pk])


def _claim(delivery_id: int) -> WebhookDelivery | None:
    """Take the due attempt of ``delivery_id``, or None if it is not due (done, or being made
    by another worker: the lease keeps two attempts from overlapping)."""
    now = timezone.now()
    lease = now + timedelta(seconds=2 * settings.WEBHOOK_TIMEOUT_SECONDS + 5)
    taken = WebhookDelivery.objects.filter(
        pk=delivery_id, status=DeliveryStatus.PENDING, next_attempt_at__lte=now
    ).update(next_attempt_at=lease)
    if not taken:
        return None
    return WebhookDelivery.objects.select_related("subscription", "event").get(pk=delivery_id)


def attempt(delivery_id: int) -> bool | None:
    """One attempt of a delivery; True when the receiver took it, False when it did not, None
    when the delivery was not due."""
    delivery = _claim(delivery_id)
    if delivery is None:
        return None
    body = json.dumps(delivery.event.payload, separators=(",", ":"), ensure_ascii=False)
    sent_at = timezone.now()
    signature = Webhook(delivery.subscription.secret).sign(delivery.event.id, sent_at, body)
    request = urllib.request.Request(
        delivery.subscription.url, data=body.encode(), method="POST",
        headers={
            "Content-Type": "application/json",
            "User-Agent": "batak-webhooks/1",
            "webhook-id": delivery.event.id,
            "webhook-timestamp": str(int(sent_at.timestamp())),
            "webhook-signature": signature,
        },
    )
    started = time.perf_counter()
    code, error = None, ""
    try:
        _check_address(delivery.subscription.url)
        with _OPENER.open(request, timeout=settings.WEBHOOK_TIMEOUT_SECONDS) as reply:
            code = reply.status
    except urllib.error.HTTPError as refused:
        code, error = refused.code, f"HTTP {refused.code}"
    except (OSError, ValueError) as failure:  # refused, timed out, unresolvable, bad URL
        error = str(failure)[:300] or type(failure).__name__
    latency = round((time.perf_counter() - started) * 1000)
    delivered = code is not None and 200 <= code < 300
    delivery.attempts += 1
    delivery.last_status_code = code
    delivery.last_latency_ms = latency
    delivery.last_error = "" if delivered else error or f"HTTP {code}"
    delays = retry_delays()
    if delivered:
        delivery.status = DeliveryStatus.SUCCEEDED
        delivery.delivered_at = timezone.now()
    elif delivery.attempts > len(delays):
        delivery.status = DeliveryStatus.FAILED
    else:
        wait = delays[delivery.attempts - 1]
        delivery.next_attempt_at = timezone.now() + timedelta(seconds=wait)
    delivery.save(update_fields=[
        "status", "attempts", "last_status_code", "last_latency_ms", "last_error",
        "delivered_at", "next_attempt_at",
    ])
    if delivery.status == DeliveryStatus.PENDING:
        send([delivery.pk], countdown=delays[delivery.attempts - 1])
    return delivered


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is the receiver's answer, not an address to go to: followed, it would take
    the service wherever the receiver points it (past `_check_address`)."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirects)


class AddressNotAllowed(ValueError):
    pass


def _check_address(url: str) -> None:
    """A platform's URL must not point the service at its own network (loopback, private,
    link-local addresses: the cloud's metadata service among them) unless
    WEBHOOK_ALLOW_PRIVATE_ADDRESSES (development, tests)."""
    if settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES:
        return
    host = urllib.parse.urlsplit(url).hostname or ""
    try:
        # A host name resolves to IPv4 and IPv6 socket addresses: their first item is the
        # address's text (typeshed's sockaddr also allows other families' tuples).
        addresses = {cast(str, info[4][0]) for info in socket.getaddrinfo(host, None)}
    except OSError as failure:
        raise AddressNotAllowed(f"cannot resolve {host}: {failure}") from None
    for address in addresses:
        if not ipaddress.ip_address(address.split("%")[0]).is_global:
            raise AddressNotAllowed(f"{host} resolves to {address}, not a public address")


def due_deliveries() -> list[int]:
    """Deliveries whose attempt is due but was never made (its task lost with a worker, the
    process restarted): the sweep sends them again."""
    return list(
        WebhookDelivery.objects.filter(
            status=DeliveryStatus.PENDING, next_attempt_at__lte=timezone.now()
        ).order_by("next_attempt_at").values_list("pk", flat=True)[:CHUNK]
    )

