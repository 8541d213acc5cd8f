"""The events partner platforms receive: what each change of one of their matches (or of one
of their players) makes, written with one `WebhookDelivery` per subscription that wants its type.
A match's are written by the webhooks' handler of what follows its changes (games/follow_ups.py):
after the change commits, from the facts its transaction kept, each change's exactly once and in
the order of the match's changes, so an event exists exactly when its change was committed (a
little later). Each match's events are numbered (`sequence`) in that order. Once committed,
platforms/webhooks.py sends the deliveries, and the platform's streams (platforms/stream.py)
send every event."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from games import follow_ups, presenters
from games.models import Deal, MatchStatus
from games.signals import MatchChange
from platforms import stream, webhooks
from platforms.models import (
    EventType,
    Platform,
    PlatformPlayer,
    PlatformStreamEvent,
    WebhookDelivery,
    WebhookEvent,
    WebhookMatchSequence,
    WebhookSubscription,
)
from runtime import traces


def _platform_id(circle_id: int | None) -> int | None:
    """The platform whose circle a match is of (games/circles.py): the matches it made and
    those its players opened (quick match, open seats, a rematch). Most matches are of no
    circle and need no look-up."""
    if circle_id is None:
        return None
    return Platform.objects.filter(user_id=circle_id).values_list("pk", flat=True).first()


def wants(event: follow_ups.Event) -> bool:
    """Whether the event may be a platform's: its match is of a circle."""
    return event.circle_id is not None


def follow(event: follow_ups.Event) -> None:
    """The events of a platform's match that a change makes (a handler of what follows a
    change: games/follow_ups.py, which runs a match's in order)."""
    platform_id = _platform_id(event.circle_id)
    if platform_id is None:
        return
    if isinstance(event, follow_ups.MatchProgressed):
        _progressed(platform_id, event)
    elif isinstance(event, follow_ups.MatchChanged):
        _changed(platform_id, event)
    elif isinstance(event, follow_ups.RatingsChanged):
        _ratings_changed(platform_id, event)
    elif isinstance(event, follow_ups.DealAnalysed):
        emit(platform_id, [(EventType.DEAL_ANALYSED, {
            "version": event.version,
            **presenters.analysis_ready(event.match_id, event.sequence, event.result),
        })])


def _progressed(platform_id: int, event: follow_ups.MatchProgressed) -> None:
    players = _external_ids(platform_id, event.seat_users)

    def external_id(index: int) -> str | None:
        return players.get(event.seat_users[index])

    base = {"match_id": event.match_id, "version": event.version}
    events: list[tuple[str, dict[str, Any]]] = []
    if event.origin == "timeout" and event.seat is not None:
        events.append((EventType.SEAT_TIMED_OUT, {
            **base, "seat": event.seat, "external_id": external_id(event.seat),
            "autopilot": event.seat_autopilot[event.seat],
        }))
    if event.ended_deal_id is not None:
        deal = Deal.objects.get(pk=event.ended_deal_id)
        events.append((EventType.DEAL_ENDED, {
            **base, "deal_number": deal.number, "deal_sequence": deal.sequence,
            "scores": deal.scores, "outcomes": deal.outcomes,
            "totals": event.totals, "players": [external_id(i) for i in range(4)],
        }))
    if event.status == MatchStatus.FINISHED:
        events.append((EventType.MATCH_FINISHED, {
            **base, "totals": event.totals, "ranking": event.ranking,
            "players": [external_id(i) for i in range(4)],
        }))
    to_act = event.to_act
    if (
        event.status == MatchStatus.ACTIVE and to_act is not None
        and event.seat_acts[to_act] and external_id(to_act)
    ):
        events.append((EventType.TURN_STARTED, {
            **base, "seat": to_act, "external_id": external_id(to_act),
            "deal_number": event.deal_number, "phase": event.phase,
            "deadline": event.deadline,
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
    MatchChange.SEAT_TAKEN: EventType.SEAT_TAKEN,
    MatchChange.SEAT_LEFT: EventType.SEAT_LEFT,
    MatchChange.AUTOPILOT_ON: EventType.AUTOPILOT_ON,
    MatchChange.AUTOPILOT_OFF: EventType.AUTOPILOT_OFF,
}


def _changed(platform_id: int, event: follow_ups.MatchChanged) -> None:
    """The event a change other than an action makes: its start, its end unfinished, a player
    leaving or on autopilot, its rematch."""
    change = MatchChange(event.change)
    if change in (MatchChange.REMATCH_OFFERED, MatchChange.REMATCH_STARTED):
        _rematch_event(platform_id, event, change)
        return
    event_type = _CHANGE_EVENTS.get(change)
    if event_type is None:
        return
    players = _external_ids(platform_id, [event.user_id, *event.seat_users])
    data: dict[str, Any] = {"match_id": event.match_id, "version": event.version}
    if event.seat is None:
        data["status"] = event.status
        data["players"] = [players.get(user_id) for user_id in event.seat_users]
        if change == MatchChange.ABANDONED:
            data["totals"] = event.totals
    else:
        data["seat"] = event.seat
        data["external_id"] = players.get(event.user_id)
    emit(platform_id, [(event_type, data)])


def _rematch_event(platform_id: int, event: follow_ups.MatchChanged,
                   change: MatchChange) -> None:
    """`rematch.offered` or `rematch.started` of a platform's finished match, in its
    sequence."""
    view = event.rematch
    assert view is not None
    data: dict[str, Any] = {"match_id": event.match_id, "version": event.version}
    if change == MatchChange.REMATCH_OFFERED:
        players = _external_ids(platform_id, [event.user_id])
        data.update(seat=view["offered_by"], external_id=players.get(event.user_id),
                    asked=[entry["seat"] for entry in view["seats"] if entry["asked"]],
                    expires_at=view["expires_at"])
        emit(platform_id, [(EventType.REMATCH_OFFERED, data)])
        return
    assert event.new_match_id is not None and event.new_seat_users is not None
    players = _external_ids(platform_id, event.new_seat_users)
    data.update(new_match_id=event.new_match_id,
                players=[players.get(user_id) for user_id in event.new_seat_users])
    emit(platform_id, [(EventType.REMATCH_STARTED, data)])


def _ratings_changed(platform_id: int, event: follow_ups.RatingsChanged) -> None:
    """`rating.changed` of a platform's rated match, after its `match.finished` (the ratings'
    handler runs after this one, and tells its changes as it commits)."""
    if not event.changes:
        return
    players = _external_ids(platform_id, [change["user_id"] for change in event.changes])
    emit(platform_id, [(EventType.RATING_CHANGED, {
        "match_id": event.match_id, "version": event.version,
        "changes": [
            {**{k: v for k, v in change.items() if k != "user_id"},
             "external_id": players.get(change["user_id"])}
            for change in sorted(event.changes, key=lambda change: change["seat"])
        ],
    })])


def emit(platform_id: int, events: list[tuple[str, dict[str, Any]]]) -> None:
    """Write ``events`` (type, data with its `match_id`; a player's event has none, and no
    sequence): each to the platform's stream, and with its deliveries to the subscriptions
    that want its type. A match's are written by its follow-ups' handler, one change after the
    other (games/follow_ups.py), its counter locked: that is what keeps a match's sequence free
    of races."""
    subscriptions = [(subscription, subscription.wanted_types()) for subscription in
                     WebhookSubscription.objects.filter(
                         platform_id=platform_id, active=True, deleted_at__isnull=True)]
    now = timezone.now()
    created: list[int] = []
    streamed: list[PlatformStreamEvent] = []
    last: dict[str, int] = {}  # the last sequence of each match
    for event_type, data in events:
        match_id, sequence = data.get("match_id"), None
        if match_id is not None:
            if match_id not in last:
                last[match_id] = _last_sequence(match_id)
            last[match_id] += 1
            sequence = last[match_id]
        event_id = f"msg_{uuid.uuid4().hex}"
        payload = {"type": event_type, "timestamp": now.isoformat(),
                   **({} if sequence is None else {"sequence": sequence}), "data": data}
        streamed.append(PlatformStreamEvent(
            platform_id=platform_id, event_id=event_id, type=event_type, match_id=match_id,
            payload=payload,
        ))
        wanted = [sub for sub, types in subscriptions if event_type in types]
        if not wanted:
            continue
        event = WebhookEvent.objects.create(
            id=event_id, platform_id=platform_id, type=event_type, match_id=match_id,
            sequence=sequence, traceparent=traces.traceparent(), payload=payload,
        )
        deliveries = WebhookDelivery.objects.bulk_create(
            WebhookDelivery(subscription=sub, event=event, next_attempt_at=now,
                            match_id=match_id, sequence=sequence) for sub in wanted
        )
        created.extend(delivery.pk for delivery in deliveries)
    for match_id, sequence in last.items():
        WebhookMatchSequence.objects.filter(match_id=match_id).update(last=sequence)
    stream.LOG.write(streamed)
    if created:
        transaction.on_commit(lambda: webhooks.send(created))


def _last_sequence(match_id: str) -> int:
    """The match's last sequence, its counter locked until the transaction ends. A match
    without a counter (its first event, or events from before counters) starts after its
    events kept."""
    counter = WebhookMatchSequence.objects.select_for_update().filter(
        match_id=match_id).values_list("last", flat=True).first()
    if counter is None:
        counter = WebhookEvent.objects.filter(match_id=match_id).aggregate(
            last=Max("sequence"))["last"] or 0
        WebhookMatchSequence.objects.create(match_id=match_id, last=counter)
    return counter


def player_erased(*, platform_id: int, external_id: str, reason: str) -> None:
    """`player.erased`: the platform's player is gone, by the platform's own request, their
    closing their account, or staff (``reason``). Of no match: it has no sequence, and waits
    for no event of one."""
    emit(platform_id, [(EventType.PLAYER_ERASED, {"external_id": external_id,
                                                   "reason": reason})])


def redact_player(*, platform_id: int, external_id: str, match_ids: Iterable[uuid.UUID]) -> int:
    """Remove an erased player's ``external_id`` from the kept payloads of the platform's
    events of ``match_ids`` (an `external_id` field, at any depth, as in a `rating.changed`'s
    `changes`; an entry of `players`: None instead, as for a seat that is no player of the
    platform), so that the log, and a redelivery or a replay from it, no longer names them.
    The platform's stream's copies are redacted alike. Deliveries already made, and events
    already streamed, cannot be recalled. Returns how many webhook events changed."""
    matches = list(match_ids)
    counts = [_redact(model, platform_id, external_id, matches)
              for model in (WebhookEvent, PlatformStreamEvent)]
    return counts[0]


def _redact(model: type[WebhookEvent | PlatformStreamEvent], platform_id: int,
            external_id: str, match_ids: list[uuid.UUID]) -> int:
    changed: list[Any] = []
    events = model.objects.filter(platform_id=platform_id, match_id__in=match_ids)
    for event in events.only("id", "payload").iterator(chunk_size=webhooks.CHUNK):
        data = event.payload["data"]
        redacted = _without(data, external_id)
        if redacted != data:
            event.payload["data"] = redacted
            changed.append(event)
    model.objects.bulk_update(changed, ["payload"], batch_size=webhooks.CHUNK)
    return len(changed)


def _without(value: Any, external_id: str) -> Any:
    """``value`` with ``external_id`` as an `external_id` or an entry of `players` made None."""
    if isinstance(value, list):
        return [_without(item, external_id) for item in value]
    if not isinstance(value, dict):
        return value
    redacted = {key: _without(item, external_id) for key, item in value.items()}
    if redacted.get("external_id") == external_id:
        redacted["external_id"] = None
    if isinstance(players := redacted.get("players"), list):
        redacted["players"] = [None if player == external_id else player for player in players]
    return redacted
