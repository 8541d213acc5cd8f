"""The events partner platforms receive: what each change of one of their matches (or of one
of their players) makes, written with one `WebhookDelivery` per subscription that wants its type,
in the transaction of the change (receivers of the `games.signals`), so that an event exists
exactly when its change was committed. Each match's events are numbered (`sequence`) under the
match's lock. Once committed, platforms/webhooks.py sends the deliveries."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from games import engine, presenters, rematch
from games.models import DealAnalysis, Match, MatchStatus, RematchOffer
from games.signals import MatchChange
from platforms import webhooks
from platforms.models import (
    EventType,
    Platform,
    PlatformPlayer,
    WebhookDelivery,
    WebhookEvent,
    WebhookMatchSequence,
    WebhookSubscription,
)
from ratings.models import RatingChange
from ratings.services import stream_change
from runtime import traces


def _platform_id(match: Match) -> int | None:
    """The platform whose circle the match is of (games/circles.py): the matches it made and
    those its players opened (quick match, open seats, a rematch). Most matches are of no
    circle and need no look-up."""
    if match.circle_id is None:
        return None
    return Platform.objects.filter(user_id=match.circle_id).values_list("pk", flat=True).first()


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
    MatchChange.SEAT_TAKEN: EventType.SEAT_TAKEN,
    MatchChange.SEAT_LEFT: EventType.SEAT_LEFT,
    MatchChange.AUTOPILOT_ON: EventType.AUTOPILOT_ON,
    MatchChange.AUTOPILOT_OFF: EventType.AUTOPILOT_OFF,
}


def on_match_changed(
    sender: Any, *, match: Match, change: MatchChange, seat: int | None, user_id: int | None,
    **kwargs: Any,
) -> None:
    """The event of a platform's match that a change other than an action makes (in its
    transaction): its start, its end unfinished, a player leaving or on autopilot, its
    rematch."""
    if change in (MatchChange.REMATCH_OFFERED, MatchChange.REMATCH_STARTED):
        _rematch_event(match, change, kwargs["rematch"])
        return
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


def _rematch_event(match: Match, change: MatchChange, offer: RematchOffer) -> None:
    """`rematch.offered` or `rematch.started` of a platform's finished match, in its sequence
    (under its lock, like its other events)."""
    platform_id = _platform_id(match)
    if platform_id is None:
        return
    view = rematch.offer_view(offer)
    data: dict[str, Any] = {"match_id": str(match.id), "version": match.version}
    if change == MatchChange.REMATCH_OFFERED:
        players = _external_ids(platform_id, [offer.offered_by_id])
        data.update(seat=view["offered_by"], external_id=players.get(offer.offered_by_id),
                    asked=[entry["seat"] for entry in view["seats"] if entry["asked"]],
                    expires_at=view["expires_at"])
        emit(platform_id, [(EventType.REMATCH_OFFERED, data)])
        return
    assert offer.new_match is not None
    seats = {row.index: row for row in offer.new_match.seats.all()}
    players = _external_ids(platform_id, [row.user_id for row in seats.values()])
    data.update(new_match_id=str(offer.new_match.id),
                players=[players.get(seats[index].user_id) for index in range(4)])
    emit(platform_id, [(EventType.REMATCH_STARTED, data)])


def on_ratings_changed(
    sender: Any, *, match: Match, changes: list[RatingChange], **kwargs: Any
) -> None:
    """`rating.changed` of a platform's rated match, after its `match.finished` (the ratings
    are written by the receiver of the same signal that follows this app's)."""
    platform_id = _platform_id(match)
    if platform_id is None or not changes:
        return
    players = _external_ids(platform_id, [change.user_id for change in changes])
    emit(platform_id, [(EventType.RATING_CHANGED, {
        "match_id": str(match.id), "version": match.version,
        "changes": [{**stream_change(change), "external_id": players.get(change.user_id)}
                    for change in sorted(changes, key=lambda change: change.seat)],
    })])


def on_deal_analysed(
    sender: Any, *, match: Match, analysis: DealAnalysis, sequence: int, **kwargs: Any
) -> None:
    """`deal.analysed` of a platform's match, once a scored deal's analysis is recorded (under
    the match's lock, so in the match's sequence)."""
    platform_id = _platform_id(match)
    if platform_id is None or analysis.result is None:
        return
    emit(platform_id, [(EventType.DEAL_ANALYSED, {
        "version": match.version,
        **presenters.analysis_ready(match.id, sequence, analysis.result),
    })])


def emit(platform_id: int, events: list[tuple[str, dict[str, Any]]]) -> None:
    """Write ``events`` (type, data with its `match_id`; a player's event has none, and no
    sequence) and their deliveries. Called in the move's transaction, under its match's lock:
    that is what keeps a match's sequence free of races."""
    subscriptions = list(WebhookSubscription.objects.filter(
        platform_id=platform_id, active=True, deleted_at__isnull=True
    ))
    now = timezone.now()
    created: list[int] = []
    last: dict[str, int] = {}  # the last sequence of each match
    for event_type, data in events:
        wanted = [sub for sub in subscriptions if event_type in sub.event_types]
        if not wanted:
            continue
        match_id, sequence = data.get("match_id"), None
        if match_id is not None:
            if match_id not in last:
                last[match_id] = _last_sequence(match_id)
            last[match_id] += 1
            sequence = last[match_id]
        event = WebhookEvent.objects.create(
            id=f"msg_{uuid.uuid4().hex}", platform_id=platform_id, type=event_type,
            match_id=match_id, sequence=sequence, traceparent=traces.traceparent(),
            payload={"type": event_type, "timestamp": now.isoformat(),
                     **({} if sequence is None else {"sequence": sequence}), "data": data},
        )
        deliveries = WebhookDelivery.objects.bulk_create(
            WebhookDelivery(subscription=sub, event=event, next_attempt_at=now) for sub in wanted
        )
        created.extend(delivery.pk for delivery in deliveries)
    for match_id, sequence in last.items():
        WebhookMatchSequence.objects.filter(match_id=match_id).update(last=sequence)
    if created:
        transaction.on_commit(lambda: webhooks.send(created))


def _last_sequence(match_id: str) -> int:
    """The match's last sequence, its counter locked until the transaction ends (the match's
    lock already keeps its emits apart: this is belt and braces). A match without a counter
    (its first event, or events from before counters) starts after its events kept."""
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
    Deliveries already made cannot be recalled. Returns how many events changed."""
    changed: list[WebhookEvent] = []
    events = WebhookEvent.objects.filter(platform_id=platform_id, match_id__in=list(match_ids))
    for event in events.only("id", "payload").iterator(chunk_size=webhooks.CHUNK):
        data = event.payload["data"]
        redacted = _without(data, external_id)
        if redacted != data:
            event.payload["data"] = redacted
            changed.append(event)
    WebhookEvent.objects.bulk_update(changed, ["payload"], batch_size=webhooks.CHUNK)
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
