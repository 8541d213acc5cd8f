"""Webhooks to partner platforms, signed as the Standard Webhooks specification says.

Events are written in the transaction of the change that causes them (receivers of the
`games.signals`), one `WebhookDelivery` per subscription that wants the type,
so an event exists exactly when its move was committed. Once committed each delivery is sent
by the webhook workers (scaled out: Celery workers on a queue of their own, WEBHOOK_QUEUE, never
the computer players'; on the embedded default the webhooks' lane, a few threads), never by the
request that made the move: a receiver that is down slows no move. A receiver that misbehaves
slows only its own platform's deliveries: each attempt has one deadline for all of it, and a
platform has at most WEBHOOK_PLATFORM_CONCURRENCY attempts under way. A delivery is attempted
until the receiver answers 2xx, at the delays of WEBHOOK_RETRY_SECONDS (about a day in all),
then marked failed; staff may send it again from the admin. Every attempt of one event carries
the same `webhook-id`: delivery is at least once, and receivers deduplicate on the id.
"""

from __future__ import annotations

import asyncio
import base64
import concurrent.futures
import json
import logging
import secrets
import ssl
import time
import urllib.parse
import uuid
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

import httpx
from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import F, Window
from django.db.models.functions import RowNumber
from django.utils import timezone
from standardwebhooks.webhooks import Webhook

from games import engine, lanes
from games.models import Match, MatchStatus
from games.signals import MatchChange
from platforms.addresses import public_addresses, resolve
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
# An attempt's lease runs this much past its deadline before a sweep may count it as lost.
LEASE_MARGIN_SECONDS = 5


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
    players = _external_ids(platform_id, [row.user_id for row in seats.values()])

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


def _external_ids(platform_id: int, user_ids: Iterable[int | None]) -> dict[int | None, str]:
    """The platform's external id of each of these accounts that is its player's (keyed for
    look-ups by a seat's user id: None, a computer or an open seat, has no entry)."""
    return dict(
        PlatformPlayer.objects.filter(
            platform_id=platform_id, user_id__in=[user_id for user_id in user_ids if user_id]
        ).values_list("user_id", "external_id")
    )


_CHANGE_EVENTS = {
    MatchChange.STARTED: EventType.MATCH_STARTED,
    MatchChange.CANCELLED: EventType.MATCH_CANCELLED,
    MatchChange.ABANDONED: EventType.MATCH_ABANDONED,
    MatchChange.SEAT_LEFT: EventType.SEAT_LEFT,
    MatchChange.AUTOPILOT_ON: EventType.AUTOPILOT_ON,
    MatchChange.AUTOPILOT_OFF: EventType.AUTOPILOT_OFF,
}


def on_match_changed(
    sender: Any, *, match: Match, change: MatchChange, seat: int | None, user_id: int | None,
    **kwargs: Any,
) -> None:
    """The event of a platform's match that a change other than an action makes (in its
    transaction): its start, its end unfinished, a player leaving or on autopilot."""
    event_type = _CHANGE_EVENTS.get(change)
    if event_type is None:
        return
    platform_id = _platform_id(match)
    if platform_id is None:
        return
    seats = {row.index: row for row in match.seats.all()}
    players = _external_ids(platform_id, [user_id, *(row.user_id for row in seats.values())])
    data: dict[str, Any] = {"match_id": str(match.id), "version": match.version}
    if seat is None:
        data["status"] = match.status
        data["players"] = [players.get(seats[index].user_id) for index in range(4)]
        if change == MatchChange.ABANDONED:
            data["totals"] = match.totals
    else:
        data["seat"] = seat
        data["external_id"] = players.get(user_id)
    emit(platform_id, [(event_type, data)])


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
    """Take the due attempt of ``delivery_id``, or None if it is not due (done, being made by
    another worker, or its platform already has WEBHOOK_PLATFORM_CONCURRENCY attempts under
    way: then it stays due, for whichever of them finishes first to hand on).

    The attempt is counted here, before anything is sent, and the next one scheduled as if
    this one fails: an attempt that never reports back (its worker killed mid-request) has
    still used up its turn, so a receiver that kills workers cannot be retried forever."""
    now = timezone.now()
    with transaction.atomic():
        delivery = WebhookDelivery.objects.select_related("subscription", "event").filter(
            pk=delivery_id, status=DeliveryStatus.PENDING, next_attempt_at__lte=now
        ).first()
        if delivery is None:
            return None
        platform_id = delivery.subscription.platform_id
        # One platform's claims one at a time (PostgreSQL; SQLite's writers are serial).
        list(Platform.objects.select_for_update().filter(pk=platform_id).values_list("pk"))
        under_way = WebhookDelivery.objects.filter(
            subscription__platform_id=platform_id, in_flight_until__gt=now
        ).count()
        if under_way >= settings.WEBHOOK_PLATFORM_CONCURRENCY:
            return None  # still due: the platform's next finished attempt hands it on
        deadline = timedelta(seconds=settings.WEBHOOK_TIMEOUT_SECONDS + LEASE_MARGIN_SECONDS)
        delays = retry_delays()
        delivery.attempts += 1
        delivery.in_flight_until = now + deadline
        delivery.last_error = "the attempt did not finish"
        if delivery.attempts > len(delays):
            delivery.next_attempt_at = delivery.in_flight_until
        else:
            wait = timedelta(seconds=delays[delivery.attempts - 1])
            delivery.next_attempt_at = now + max(wait, deadline)
        delivery.save(update_fields=["attempts", "in_flight_until", "last_error",
                                     "next_attempt_at"])
    return delivery


def attempt(delivery_id: int) -> bool | None:
    """One attempt of a delivery; True when the receiver took it, False when it did not, None
    when the delivery was not due."""
    delivery = _claim(delivery_id)
    if delivery is None:
        return None
    body = json.dumps(delivery.event.payload, separators=(",", ":"), ensure_ascii=False)
    sent_at = timezone.now()
    signature = Webhook(delivery.subscription.secret).sign(delivery.event.id, sent_at, body)
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "batak-webhooks/1",
        "webhook-id": delivery.event.id,
        "webhook-timestamp": str(int(sent_at.timestamp())),
        "webhook-signature": signature,
    }
    started = time.perf_counter()
    code, error = post(delivery.subscription.url, headers, body.encode())
    latency = round((time.perf_counter() - started) * 1000)
    delivered = code is not None and 200 <= code < 300
    delays = retry_delays()
    if delivered:
        delivery.status = DeliveryStatus.SUCCEEDED
        delivery.delivered_at = timezone.now()
    elif delivery.attempts > len(delays):
        delivery.status = DeliveryStatus.FAILED
    else:
        delivery.next_attempt_at = sent_at + timedelta(
            seconds=delays[delivery.attempts - 1]
        )
    # An update, not a save: the subscription may have been deleted meanwhile, and with it
    # this delivery (then there is nothing to record, nor to try again).
    recorded = WebhookDelivery.objects.filter(pk=delivery.pk).update(
        status=delivery.status, last_status_code=code, last_latency_ms=latency,
        last_error="" if delivered else error or f"HTTP {code}", delivered_at=delivery.delivered_at,
        next_attempt_at=delivery.next_attempt_at, in_flight_until=None,
    )
    if recorded and delivery.status == DeliveryStatus.PENDING:
        wait = (delivery.next_attempt_at - timezone.now()).total_seconds()
        send([delivery.pk], countdown=max(0.0, wait))
    _hand_on(delivery.subscription.platform_id)
    return delivered


def _hand_on(platform_id: int) -> None:
    """The slot this attempt held goes to the platform's oldest due delivery, if any (one
    that found the platform busy, or is due again)."""
    waiting = WebhookDelivery.objects.filter(
        subscription__platform_id=platform_id, status=DeliveryStatus.PENDING,
        next_attempt_at__lte=timezone.now(),  # (one under way is due only after it)
    ).order_by("next_attempt_at").values_list("pk", flat=True).first()
    if waiting is not None:
        send([waiting])


def post(url: str, headers: dict[str, str], body: bytes) -> tuple[int | None, str]:
    """POST ``body`` to ``url`` within WEBHOOK_TIMEOUT_SECONDS in all (looking the host up,
    connecting, sending, and the answer's status line and headers; its body is not read):
    (the status code, "") when the receiver answered, (None, why) when it did not. Whatever
    goes wrong, a deadline, a refused address, a broken answer, is a failed attempt."""
    try:
        return asyncio.run(_post_within_deadline(url, headers, body)), ""
    except TimeoutError:
        return None, f"no answer within {settings.WEBHOOK_TIMEOUT_SECONDS:g} s"
    except Exception as failure:
        reason = str(failure) or type(failure).__name__
        return None, f"{type(failure).__name__}: {reason}"[:300]


async def _post_within_deadline(url: str, headers: dict[str, str], body: bytes) -> int:
    async with asyncio.timeout(settings.WEBHOOK_TIMEOUT_SECONDS):
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname or ""
        # Looked up once, here, and connected to by address: a name that answers a public
        # address to the check and a private one to the connection (DNS rebinding) gets
        # nowhere. The receiver still sees its own name, in Host and in TLS's SNI.
        look_up = resolve if settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES else public_addresses
        loop = asyncio.get_running_loop()
        addresses = await loop.run_in_executor(_RESOLVER, look_up, host)
        address = addresses[0]
        literal = f"[{address}]" if address.version == 6 else str(address)
        port = f":{parts.port}" if parts.port else ""
        pinned = urllib.parse.urlunsplit(parts._replace(netloc=literal + port))
        extensions = {"sni_hostname": host} if parts.scheme == "https" else {}
        async with httpx.AsyncClient(
            verify=_TLS, trust_env=False, follow_redirects=False, timeout=None
        ) as client:
            request = client.build_request(
                "POST", pinned, content=body, extensions=extensions,
                headers={**headers, "Host": parts.netloc},
            )
            # A redirect is the receiver's answer (a failed attempt), not an address to go to.
            response = await client.send(request, stream=True)
            await response.aclose()
            return response.status_code


# Built once per process: loading the certificate store takes milliseconds.
_TLS = ssl.create_default_context()
# Look-ups run here, not on the event loop's default executor: `asyncio.run` waits for that
# one at its end, so a name server that never answers would outlast the deadline.
_RESOLVER = concurrent.futures.ThreadPoolExecutor(max_workers=8,
                                                  thread_name_prefix="webhook-lookups")


def due_deliveries() -> list[int]:
    """Deliveries whose attempt is due but was never made (its task lost with a worker, the
    process restarted, its platform busy): the sweep sends them again. At most
    WEBHOOK_PLATFORM_CONCURRENCY of each platform, so one platform's backlog never fills the
    sweep and keeps the others' waiting."""
    first_of_platform = Window(
        RowNumber(), partition_by=[F("subscription__platform_id")],
        order_by=F("next_attempt_at").asc(),
    )
    return list(
        WebhookDelivery.objects.filter(
            status=DeliveryStatus.PENDING, next_attempt_at__lte=timezone.now()
        ).annotate(rank=first_of_platform).filter(
            rank__lte=settings.WEBHOOK_PLATFORM_CONCURRENCY
        ).order_by("next_attempt_at").values_list("pk", flat=True)[:CHUNK]
    )
