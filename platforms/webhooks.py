"""Webhooks to partner platforms, signed as the Standard Webhooks specification says.

Events are written with their deliveries by platforms/events.py, in the transaction of the
change that causes them, so an event exists exactly when its move was committed; how a delivery
travels is platforms/transport.py's. Once committed each delivery is sent
by the webhook workers (scaled out: Celery workers on a queue of their own, WEBHOOK_QUEUE, never
the computer players'; on the embedded default the webhooks' lane, a few threads), never by the
request that made the move: a receiver that is down slows no move. A receiver that misbehaves
slows only its own platform's deliveries: each attempt has one deadline for all of it, a
platform has at most WEBHOOK_PLATFORM_CONCURRENCY attempts under way, and the platforms share
the workers fairly (runtime/fair_queue.py), so that one platform's storm of deliveries (a replay,
a backlog of retries) is attempted in the workers' spare time, never in front of another
platform's events. A delivery is attempted
until the receiver answers 2xx, at the delays of WEBHOOK_RETRY_SECONDS (about a day in all),
then marked failed; the platform (`redeliver`, `replay`, over its API) or staff (the admin) may
send it again. Every attempt of one event carries the same `webhook-id`: delivery is at least
once, and receivers deduplicate on the id.

A subscription gets a match's events in order: each event has a `sequence` that increases with
the match's events, and a delivery waits while an earlier one of its match to the same
subscription is pending (being retried); once that one succeeds or finally fails, the next is
sent at once. An event sent again (`redeliver`, `replay`) is outside that order: it neither
waits nor holds back the match's live events. Deleting a subscription cancels what it had
pending; its delivery log, like every event's, is kept for WEBHOOK_LOG_RETENTION_DAYS and then
purged.
"""

from __future__ import annotations

import base64
import json
import logging
import secrets
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import Case, Exists, F, OuterRef, Q, QuerySet, When, Window
from django.db.models.functions import RowNumber
from django.utils import timezone
from opentelemetry.context import Context
from prometheus_client import Counter, Histogram
from standardwebhooks.webhooks import Webhook

from games.metrics import closed
from games.models import OVER, Match
from platforms import transport
from platforms.models import (
    EVERY_EVENT_TYPE,
    DeliveryStatus,
    Platform,
    WebhookDelivery,
    WebhookEvent,
    WebhookMatchSequence,
    WebhookSubscription,
)
from runtime import fair_queue, traces, work
from runtime.windows import accounts_scope

logger = logging.getLogger(__name__)
ATTEMPTS = closed(Counter(
    "batak_webhook_attempts_total", "Webhook delivery attempts, by outcome: `delivered` (a 2xx), "
    "`retrying` (failed, another attempt is due), `failed` (failed, the last attempt), "
    "`probe_refused` (a failing receiver's probe, still failing: nothing changed).",
    ["outcome"],
), outcome=("delivered", "retrying", "failed", "probe_refused"))
ATTEMPT_DURATION = Histogram(
    "batak_webhook_attempt_duration_seconds", "How long a receiver took to answer an attempt "
    "(or the attempt to fail).", buckets=(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)

CHUNK = 200
# At most this many events are replayed by one call of `replay` (the answer says where to go on).
REPLAY_MAX_EVENTS = 500
# An attempt's lease runs this much past its deadline before a sweep may count it as lost.
LEASE_MARGIN_SECONDS = 5


def new_secret() -> str:
    # Standard base64 of 24 random bytes (32 characters, no padding): what every Standard
    # Webhooks library decodes. (URL-safe base64 is not: `-` and `_` fail to decode.)
    return Webhook._SECRET_PREFIX + base64.b64encode(secrets.token_bytes(24)).decode()


def subscribe(*, platform: Platform, url: str, event_types: Iterable[str]) -> WebhookSubscription:
    types = set(event_types)
    return WebhookSubscription.objects.create(
        platform=platform, url=url, secret=new_secret(),
        # `*` already names every type.
        event_types=[EVERY_EVENT_TYPE] if EVERY_EVENT_TYPE in types else sorted(types),
    )


# --- delivering --------------------------------------------------------------------------------


def retry_delays() -> list[float]:
    return [float(value) for value in settings.WEBHOOK_RETRY_SECONDS.split(",") if value]


# The deliveries to attempt: on the embedded default the webhooks' lane, a few threads (as
# many at once as a webhook worker takes); scaled out the webhook workers' queue, with the
# deliveries waiting in its fair queue in their platform's list (the tokens:
# `platforms.tasks.deliver_webhooks`). Either way a platform has at most its attempts at once
# under way (the rest of its storm waits in the queue, not in a thread); in-process they run
# only while the periodic jobs do, whose sweep finds what is due.
DELIVERIES = work.Kind(
    "webhooks", queue_setting="WEBHOOK_QUEUE", threads_setting="WEBHOOK_WORKER_THREADS",
    per_account_setting="WEBHOOK_PLATFORM_CONCURRENCY", only_with_jobs=True,
    fair=fair_queue.FairQueue(
        "webhooks", "WEBHOOK_QUEUE", per_account_setting="WEBHOOK_PLATFORM_CONCURRENCY",
        # An attempt's lease (see `_claim`): a worker killed mid-attempt frees its place as soon.
        under_way_seconds=lambda: settings.WEBHOOK_TIMEOUT_SECONDS + LEASE_MARGIN_SECONDS,
    ),
)


def send(delivery_ids: list[int], countdown: float = 0) -> None:
    """Have these deliveries attempted by a worker, ``countdown`` seconds from now, each in its
    platform's share of the workers (runtime/fair_queue.py): one platform's storm of deliveries
    (a replay, a backlog of retries) is attempted in the workers' spare time, and never holds
    up another platform's. Every one of them is sent: those that find the platform busy cost
    a read each, and only its own share's time."""
    for delivery_id, platform_id in WebhookDelivery.objects.filter(
        pk__in=delivery_ids
    ).order_by(*_NEXT).values_list("pk", "subscription__platform_id"):
        work.later(attempt, delivery_id, account=platform_id, delay=countdown)


def _not_in_flight(now: datetime) -> Q:
    return Q(in_flight_until__isnull=True) | Q(in_flight_until__lte=now)


def redeliver(delivery: WebhookDelivery) -> WebhookDelivery:
    """One more attempt now, whatever came of the earlier ones, with the same `webhook-id`
    (the platform's API and staff's admin). Nothing for a deleted subscription's delivery, nor
    for one whose attempt is under way (that attempt is the one more). Returns it as it is."""
    now = timezone.now()
    again = WebhookDelivery.objects.filter(
        _not_in_flight(now), pk=delivery.pk, subscription__deleted_at__isnull=True
    ).update(
        status=DeliveryStatus.PENDING, next_attempt_at=now, in_flight_until=None,
        # One still pending (being retried) keeps its place in its match's order.
        resent=Case(When(status=DeliveryStatus.PENDING, then=F("resent")), default=True),
    )
    if again:
        send([delivery.pk])
    return WebhookDelivery.objects.select_related("event").get(pk=delivery.pk)


@dataclass(frozen=True)
class Replayed:
    count: int
    # Where the next call goes on from when more events were in the range (else None).
    next_since: datetime | None


def replay(
    subscription: WebhookSubscription, *, since: datetime, until: datetime | None = None,
    event_types: Iterable[str] | None = None, match_id: uuid.UUID | None = None,
    failed_only: bool = False,
) -> Replayed:
    """Send the platform's events created in [since, until) again to ``subscription`` (those
    of its types, or of ``event_types`` among them, of ``match_id`` if given), oldest first and
    at most REPLAY_MAX_EVENTS of them (more only when more were made at one instant), with
    their own `webhook-id`s. An event's delivery is made pending again (a new one if it had
    none), and sent in the platform's share of the webhook workers, after its live events
    (`_claim`); one pending already is left as it is, and not sent again, so replaying twice,
    or at once, sends each event once more at most. ``failed_only``: only the events whose
    delivery to ``subscription`` failed (Svix's "recover")."""
    types = subscription.wanted_types()
    if event_types is not None:
        types &= set(event_types)
    events = WebhookEvent.objects.filter(
        platform_id=subscription.platform_id, type__in=types, created_at__gte=since
    )
    if until is not None:
        events = events.filter(created_at__lt=until)
    if match_id is not None:
        events = events.filter(match_id=match_id)
    if failed_only:
        events = events.filter(deliveries__subscription=subscription,
                               deliveries__status=DeliveryStatus.FAILED)
    ordered = events.order_by("created_at", "sequence").values_list("id", "created_at")
    rows = list(ordered[:REPLAY_MAX_EVENTS + 1])
    next_since = None
    if len(rows) > REPLAY_MAX_EVENTS:
        # The call ends before the instant of the first event left out, where the next one
        # starts (`since` is inclusive): no event comes twice, none is skipped.
        next_since = rows[-1][1]
        rows = [row for row in rows if row[1] < next_since]
        if not rows:  # more than a call's worth made at one instant: all of them, this once
            rows = list(ordered.filter(created_at=next_since))
            next_since = events.filter(created_at__gt=next_since).order_by(
                "created_at").values_list("created_at", flat=True).first()
    ids = [event_id for event_id, _ in rows]
    now = timezone.now()
    deliveries = WebhookDelivery.objects.filter(subscription=subscription, event_id__in=ids)
    with transaction.atomic():
        had = set(deliveries.values_list("event_id", flat=True))
        WebhookDelivery.objects.bulk_create(
            (WebhookDelivery(subscription=subscription, event_id=event_id, next_attempt_at=now,
                             resent=True)
             for event_id in ids if event_id not in had),
            ignore_conflicts=True,  # made meanwhile, by a replay at once
        )
        # Locked, so that only what this call makes pending is sent: one pending already is
        # on its way (sending it again would only fill the platform's share of the workers).
        again = list(deliveries.select_for_update().filter(_not_in_flight(now)).exclude(
            status=DeliveryStatus.PENDING).values_list("pk", flat=True))
        WebhookDelivery.objects.filter(pk__in=again).update(
            status=DeliveryStatus.PENDING, attempts=0, next_attempt_at=now, delivered_at=None,
            resent=True,
        )
        made = list(deliveries.exclude(event_id__in=had).values_list("pk", flat=True))
        transaction.on_commit(lambda: send(made + again))
    return Replayed(count=len(ids), next_since=next_since)


def delete_subscription(subscription: WebhookSubscription) -> None:
    """No more is sent to it; its pending deliveries are cancelled (an attempt under way
    finishes, unrecorded). Its log stays for WEBHOOK_LOG_RETENTION_DAYS."""
    with transaction.atomic():
        WebhookSubscription.objects.filter(pk=subscription.pk).update(
            deleted_at=timezone.now(), active=False
        )
        subscription.deliveries.filter(status=DeliveryStatus.PENDING).update(
            status=DeliveryStatus.CANCELLED, last_error="the subscription was deleted",
        )


def purge_log() -> int:
    """Remove what is past WEBHOOK_LOG_RETENTION_DAYS, CHUNK rows a statement: subscriptions
    deleted before then, and events made before then that have nothing pending, each with its
    deliveries; then the sequence counters of ended matches with no event left (a match that
    may still emit keeps its counter, however long it is idle). Returns how many subscriptions
    and events were removed."""
    cutoff = timezone.now() - timedelta(days=settings.WEBHOOK_LOG_RETENTION_DAYS)
    removed = 0
    while True:
        gone = list(WebhookSubscription.objects.filter(deleted_at__lt=cutoff).values_list(
            "pk", flat=True)[:CHUNK])
        old = list(WebhookEvent.objects.filter(created_at__lt=cutoff).exclude(
            deliveries__status=DeliveryStatus.PENDING
        ).values_list("pk", flat=True)[:CHUNK])
        if not gone and not old:
            break
        WebhookSubscription.objects.filter(pk__in=gone).delete()
        WebhookEvent.objects.filter(pk__in=old).delete()
        removed += len(gone) + len(old)
    ended = WebhookMatchSequence.objects.filter(
        Exists(Match.objects.filter(pk=OuterRef("match_id"), status__in=OVER)),
        ~Exists(WebhookEvent.objects.filter(match_id=OuterRef("match_id"))),
    )
    while counters := list(ended.values_list("pk", flat=True)[:CHUNK]):
        WebhookMatchSequence.objects.filter(pk__in=counters).delete()
    return removed




def _waiting_for_an_earlier() -> Q:
    """A pending live delivery has an earlier one of its match, to its subscription, still
    pending (one under way counts): it waits, so that the receiver gets the match's events in
    order. One sent again (`resent`) neither waits nor is waited for: an old event replayed
    must not hold a match in play back for the day of its retries."""
    # `resent` first: the database then looks for an earlier one only for a live delivery
    # (for each of a replay's hundreds of one match, it would look through all the others).
    return Q(resent=False) & Q(Exists(WebhookDelivery.objects.filter(
        subscription_id=OuterRef("subscription_id"), status=DeliveryStatus.PENDING,
        resent=False, match_id=OuterRef("match_id"), sequence__lt=OuterRef("sequence"),
    )))


def _sendable() -> QuerySet[WebhookDelivery]:
    """Pending deliveries that are due, not under way and not waiting for an earlier one of
    their match. (A claimed attempt is due only after its lease, but a probe's leaves the
    retry's time as it was: its retry may come due while the probe waits for the receiver.)"""
    now = timezone.now()
    return WebhookDelivery.objects.filter(
        _not_in_flight(now), status=DeliveryStatus.PENDING, next_attempt_at__lte=now
    ).exclude(_waiting_for_an_earlier())


# The order in which a platform's due deliveries are attempted (see `_claim`).
_NEXT = ("resent", "next_attempt_at", "pk")


def _claim(delivery_id: int) -> WebhookDelivery | None:
    """Take the next due attempt of ``delivery_id``'s platform (most often, that one's), or None
    if ``delivery_id`` is not due (done, being made by another worker, waiting for an earlier
    one of its match) or its platform already has WEBHOOK_PLATFORM_CONCURRENCY attempts under
    way: then it stays due, for whichever of them finishes first to hand on. The next is the
    live delivery that has been due longest, then the event sent again (`redeliver`, `replay`)
    due longest: a platform's replay never holds up its own live events, and a retry that found
    the platform busy is not overtaken, at each slot that frees, by the new events sent as they
    are made.

    The attempt is counted here, before anything is sent, and the next one scheduled as if
    this one fails: an attempt that never reports back (its worker killed mid-request) has
    still used up its turn, so a receiver that kills workers cannot be retried forever. When
    that was the last turn, the delivery is failed here, when it is found due again."""
    # Read before the transaction: a copy that finds nothing to do never waits for a writer's
    # turn (SQLite's one writer; the embedded default).
    platform_id = _sendable().filter(pk=delivery_id).values_list(
        "subscription__platform_id", flat=True
    ).first()
    if platform_id is None:
        return None  # (one waiting for an earlier of its match is sent once that is done)
    claim = _claim_next(platform_id)
    return claim.deliveries[0] if claim.deliveries else None


@dataclass(frozen=True)
class _Claim:
    deliveries: list[WebhookDelivery]
    # How many of them may be under way at a time: the platform's places that were free.
    at_once: int
    # Each one's log and schedule before the claim, to put back if it is never sent.
    before: dict[int, tuple[str, datetime]] = field(default_factory=dict)


def _claim_next(platform_id: int, most: int = 1) -> _Claim:
    """Take the platform's next due attempts (see `_claim`), up to ``most`` of them, if it has
    a free place. Taken together, each is the first due of its match, so none of them waits
    for another; they hold the platform's places until they are all done (the sweep counts
    each as under way), and are sent over the places that were free, no more at once."""
    now = timezone.now()
    with transaction.atomic():
        # One platform's claims one at a time (PostgreSQL; SQLite's writers are serial).
        list(Platform.objects.select_for_update().filter(pk=platform_id).values_list("pk"))
        under_way = WebhookDelivery.objects.filter(
            subscription__platform_id=platform_id, in_flight_until__gt=now
        ).count()
        free = settings.WEBHOOK_PLATFORM_CONCURRENCY - under_way
        if free <= 0:
            return _Claim([], 0)  # still due: the platform's next finished attempt hands it on
        due = list(_sendable().select_related("subscription", "event").filter(
            subscription__platform_id=platform_id
        ).order_by(*_NEXT)[:most])
        # One copy of each subscription: what one attempt notes of its receiver
        # (`_note_receiver`) the next one of the claim knows.
        subscriptions: dict[int, WebhookSubscription] = {}
        for delivery in due:
            delivery.subscription = subscriptions.setdefault(delivery.subscription_id,
                                                             delivery.subscription)
        before = {delivery.pk: (delivery.last_error, delivery.next_attempt_at)
                  for delivery in due}
        delays = retry_delays()
        deadline = timedelta(seconds=settings.WEBHOOK_TIMEOUT_SECONDS + LEASE_MARGIN_SECONDS)
        claimed, lost = [], []
        for delivery in due:
            if delivery.attempts > len(delays) and delivery.in_flight_until is not None:
                # The last attempt was made and never reported back (its worker killed): no
                # turn is left, and while pending it would hold back the later events of its
                # match.
                delivery.status = DeliveryStatus.FAILED
                delivery.in_flight_until = None
                delivery.last_error = "the last attempt did not finish"
                lost.append(delivery)
                continue
            delivery.attempts += 1
            delivery.in_flight_until = now + deadline
            delivery.last_error = "the attempt did not finish"
            if delivery.attempts > len(delays):
                delivery.next_attempt_at = delivery.in_flight_until
            else:
                wait = timedelta(seconds=delays[delivery.attempts - 1])
                delivery.next_attempt_at = now + max(wait, deadline)
            claimed.append(delivery)
        if lost:
            WebhookDelivery.objects.bulk_update(lost, ["status", "in_flight_until", "last_error"])
            transaction.on_commit(lambda: _hand_on(platform_id))
        if claimed:
            WebhookDelivery.objects.bulk_update(
                claimed, ["attempts", "in_flight_until", "last_error", "next_attempt_at"])
    return _Claim(claimed, min(free, len(claimed)), before)


@work.task(DELIVERIES)
def attempt(delivery_id: int, probe: bool = False) -> bool | None:
    """One attempt of a delivery of ``delivery_id``'s platform (see `_claim`); True when the
    receiver took it, False when it did not, None when none was made. A ``probe`` is an
    attempt of that delivery to a receiver that is failing (`probe_failing_receivers`), which
    counts only if it is taken. Each attempt is traced as `webhooks.attempt` in the trace of
    the change that made its event."""
    delivery = _claim_probe(delivery_id) if probe else _claim(delivery_id)
    if delivery is None:
        return None
    platform_id = delivery.subscription.platform_id
    was_failing = delivery.subscription.failing_since is not None
    [result] = _deliver(_Claim([delivery], 1), probe)
    if result.delivered and was_failing:
        # The receiver is back, and all that waited for it is due: the platform's other
        # places start on it now, not at the end of this turn.
        _hand_on(platform_id)
    # A receiver that takes them is sent the platform's next ones in this same turn, for up
    # to WEBHOOK_DRAIN_SECONDS and while no other platform's delivery waits for a worker: a
    # backlog (a receiver back after an outage) drains at the pace of the attempts
    # themselves, not of a task queued for each, in the workers' spare time. They are
    # claimed, sent over kept connections and recorded many at a time (`_drain_size`). The
    # fair queue charges the platform the turn's whole time.
    results = [result]
    ends = time.monotonic() + settings.WEBHOOK_DRAIN_SECONDS
    while (all(taken.delivered for taken in results) and time.monotonic() < ends
           and not work.others_waiting(DELIVERIES, excluding=platform_id)):
        claim = _claim_next(platform_id, most=_drain_size(results))
        if not claim.deliveries:
            break
        results = _deliver(claim)
    _hand_on(platform_id)
    return result.delivered


# At most this many of a platform's deliveries are claimed, sent and recorded together.
DRAIN_MOST = 50


def _drain_size(results: list[_Result]) -> int:
    """How many to claim next: as many as the receiver answers, one after another at its
    slowest pace just seen, in a quarter of an attempt's deadline (a receiver that takes
    a second an answer gets one at a time), and DRAIN_MOST at most."""
    slowest = max(taken.seconds for taken in results)
    fits = settings.WEBHOOK_TIMEOUT_SECONDS / 4 / max(slowest, 0.001)
    return max(1, min(DRAIN_MOST, int(fits)))


@dataclass(frozen=True)
class _Result:
    delivered: bool
    seconds: float


def _deliver(claim: _Claim, probe: bool = False) -> list[_Result]:
    """Send the claimed deliveries, then record what came of each, in one transaction. Each
    is traced as `webhooks.attempt`, with its HTTP call in it, in the trace of its event."""
    sent_at = timezone.now()
    spans = [traces.span_apart("webhooks.attempt", {
        traces.MATCH_ID: str(delivery.event.match_id or ""),
        "batak.webhook.event_type": delivery.event.type,
        "batak.webhook.delivery_id": delivery.pk, "batak.webhook.attempt": delivery.attempts,
    }, delivery.event.traceparent) for delivery in claim.deliveries]
    results = []
    try:
        outcomes = transport.post_all([
            _post_of(delivery, sent_at, carried)
            for delivery, (_, carried) in zip(claim.deliveries, spans, strict=True)
        ], claim.at_once)
        with transaction.atomic():
            for delivery, outcome, (span, carried) in zip(
                claim.deliveries, outcomes, spans, strict=True
            ):
                with traces.within(carried):
                    if outcome.sent or delivery.pk not in claim.before:
                        delivered = _record(delivery, outcome, sent_at, probe)
                    else:
                        delivered = _release(delivery, claim.before[delivery.pk], probe)
                span.set_attribute("batak.webhook.delivered", delivered)
                results.append(_Result(delivered, outcome.seconds))
    finally:
        for span, _ in spans:
            span.end()
    return results


def _claim_probe(delivery_id: int) -> WebhookDelivery | None:
    """Take ``delivery_id`` for a probe, if it is still pending, first of its match and not
    under way, and its platform has a free place: its lease is set, its attempts and
    schedule left as they are."""
    now = timezone.now()
    head = WebhookDelivery.objects.filter(
        _not_in_flight(now), pk=delivery_id, status=DeliveryStatus.PENDING,
    ).exclude(_waiting_for_an_earlier())
    platform_id = head.values_list("subscription__platform_id", flat=True).first()
    if platform_id is None:
        return None
    with transaction.atomic():
        list(Platform.objects.select_for_update().filter(pk=platform_id).values_list("pk"))
        if WebhookDelivery.objects.filter(
            subscription__platform_id=platform_id, in_flight_until__gt=now
        ).count() >= settings.WEBHOOK_PLATFORM_CONCURRENCY:
            return None
        delivery = head.select_related("subscription", "event").first()
        if delivery is None:
            return None
        delivery.in_flight_until = now + timedelta(
            seconds=settings.WEBHOOK_TIMEOUT_SECONDS + LEASE_MARGIN_SECONDS)
        delivery.save(update_fields=["in_flight_until"])
    return delivery


def probe_failing_receivers() -> int:
    """While a subscription's receiver fails (for WEBHOOK_PROBE_SECONDS at least), one of its
    deliveries (the first of its match whose retry is due soonest) is tried every
    WEBHOOK_PROBE_SECONDS whatever its backoff, as a
    probe that counts only if it is taken: a receiver back after an outage is found within
    seconds, and then everything waiting for it is due at once (`_note_receiver`), rather
    than at the next retry's time (up to hours later). A refused probe changes nothing.
    Returns how many probes were sent (a periodic job's part: `sweep_webhooks`)."""
    now = timezone.now()
    sent = 0
    every = settings.WEBHOOK_PROBE_SECONDS
    # Failing for a probe's interval at least: a retry comes soon after the first failure.
    failing = WebhookSubscription.objects.filter(
        failing_since__lte=now - timedelta(seconds=every), active=True,
        deleted_at__isnull=True,
    ).values_list("pk", "platform_id")
    for subscription_id, platform_id in failing[:CHUNK]:
        if not cache.add(f"webhook-probe:{accounts_scope()}:{subscription_id}", 1, every):
            continue
        head = WebhookDelivery.objects.filter(
            _not_in_flight(now), subscription_id=subscription_id,
            status=DeliveryStatus.PENDING, next_attempt_at__gt=now,
        ).exclude(_waiting_for_an_earlier()).order_by("next_attempt_at").values_list(
            "pk", flat=True).first()
        if head is not None:
            work.later(attempt, head, True, account=platform_id)
            sent += 1
    return sent


def _release(delivery: WebhookDelivery, before: tuple[str, datetime], probe: bool) -> bool:
    """Undo the claim of a delivery whose post never had its place before the deadline (its
    batch's others took the time): nothing was sent, so no attempt is used up, no retry is
    set and nothing is said of its receiver. It is due again as it was."""
    last_error, next_attempt_at = before
    WebhookDelivery.objects.filter(pk=delivery.pk, status=DeliveryStatus.PENDING).update(
        attempts=delivery.attempts if probe else delivery.attempts - 1, in_flight_until=None,
        last_error=last_error, next_attempt_at=next_attempt_at)
    return False


def _post_of(delivery: WebhookDelivery, sent_at: datetime,
             trace: Context) -> transport.Post:
    body = json.dumps(delivery.event.payload, separators=(",", ":"), ensure_ascii=False)
    signature = Webhook(delivery.subscription.secret).sign(delivery.event.id, sent_at, body)
    return transport.Post(delivery.subscription.url, {
        "Content-Type": "application/json",
        "User-Agent": "batak-webhooks/1",
        "webhook-id": delivery.event.id,
        "webhook-timestamp": str(int(sent_at.timestamp())),
        "webhook-signature": signature,
    }, body.encode(), trace)


def _record(delivery: WebhookDelivery, outcome: transport.Outcome, sent_at: datetime,
            probe: bool) -> bool:
    """Record what came of an attempt; True when the receiver took it."""
    code, error = outcome.code, outcome.error
    latency = round(outcome.seconds * 1000)
    delivered = code is not None and 200 <= code < 300
    if probe and not delivered:
        WebhookDelivery.objects.filter(pk=delivery.pk, status=DeliveryStatus.PENDING).update(
            in_flight_until=None, last_status_code=code, last_latency_ms=latency,
            last_error=error or f"HTTP {code}")
        ATTEMPTS.labels(outcome="probe_refused").inc()
        return False
    delays = retry_delays()
    if delivered:
        if probe:  # a probe taken counts: it was the attempt that delivered it
            delivery.attempts += 1
        delivery.status = DeliveryStatus.SUCCEEDED
        delivery.delivered_at = timezone.now()
    elif delivery.attempts > len(delays):
        delivery.status = DeliveryStatus.FAILED
    else:
        delivery.next_attempt_at = sent_at + timedelta(
            seconds=delays[delivery.attempts - 1]
        )
    ATTEMPTS.labels(outcome="delivered" if delivered else "failed" if delivery.status ==
                    DeliveryStatus.FAILED else "retrying").inc()
    ATTEMPT_DURATION.observe(latency / 1000)
    # Only while pending: the subscription may have been deleted meanwhile and the delivery
    # cancelled (then there is nothing to record, nor to try again).
    recorded = WebhookDelivery.objects.filter(
        pk=delivery.pk, status=DeliveryStatus.PENDING
    ).update(
        status=delivery.status, attempts=delivery.attempts, last_status_code=code,
        last_latency_ms=latency,
        last_error="" if delivered else error or f"HTTP {code}", delivered_at=delivery.delivered_at,
        next_attempt_at=delivery.next_attempt_at, in_flight_until=None,
    )
    if recorded and delivery.status == DeliveryStatus.PENDING:
        wait = (delivery.next_attempt_at - timezone.now()).total_seconds()
        send([delivery.pk], countdown=max(0.0, wait))
    if recorded:
        _note_receiver(delivery.subscription, delivered, sent_at)
    return delivered


def _note_receiver(subscription: WebhookSubscription, answered: bool, sent_at: datetime) -> None:
    """Note a receiver's first failed attempt, and when it answers again catch up: what waits
    out a backoff for it is due at once, in each match's order (`_sendable`), rather than each
    delivery when its next attempt was set for (up to hours after a long outage). Costs a
    statement only when the receiver's state changes (the subscription was read with the
    claim)."""
    if not answered:
        if subscription.failing_since is None:
            WebhookSubscription.objects.filter(
                pk=subscription.pk, failing_since__isnull=True
            ).update(failing_since=sent_at)
            subscription.failing_since = sent_at
        return
    if subscription.failing_since is None:
        return
    subscription.failing_since = None
    if WebhookSubscription.objects.filter(
        pk=subscription.pk, failing_since__isnull=False
    ).update(failing_since=None):
        now = timezone.now()
        WebhookDelivery.objects.filter(
            _not_in_flight(now), subscription_id=subscription.pk,
            status=DeliveryStatus.PENDING, next_attempt_at__gt=now,
        ).update(next_attempt_at=now)


def _hand_on(platform_id: int) -> None:
    """The slot this attempt held goes to the platform's longest-due sendable deliveries (ones
    that found the platform busy, are due again, or waited for the one just done): as many as
    its attempts at once may be, not one. Two of its attempts ending together read the same
    longest-due delivery; had each sent only that one, the copy would find it taken and do
    nothing, and the platform would go on one attempt at a time until the next sweep."""
    waiting = list(_sendable().filter(subscription__platform_id=platform_id).order_by(
        *_NEXT  # (one under way is due only after it)
    ).values_list("pk", flat=True)[:settings.WEBHOOK_PLATFORM_CONCURRENCY])
    if waiting:
        send(waiting)


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
        _sendable().annotate(rank=first_of_platform).filter(
            rank__lte=settings.WEBHOOK_PLATFORM_CONCURRENCY
        ).order_by("next_attempt_at").values_list("pk", flat=True)[:CHUNK]
    )
