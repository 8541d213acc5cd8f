"""A person's own stream: what happens to them across all their matches — a seat given to them,
their matches starting and ending, their turns, their tables' seats taken and left, rematches
offered to them, their rating — on one connection with one cursor (games/event_log.py), as
lichess's stream of a token's games. An app follows its person here, and a match's own stream
(games/api/streams.py) for the table being played.

Written with the change that makes them, in its transaction (a handler `within` the change:
games/follow_ups.py), so each is there exactly when its change was committed; the ratings'
events with the ratings' change. An event names the match (`match_id`) and its version, never
another person's account."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from games import follow_ups
from games.event_log import Log
from games.models import AccountEventType, AccountStreamEvent, Match, MatchStatus
from games.signals import MatchChange

LOG = Log(AccountStreamEvent, "user_id", "account", "ACCOUNT_STREAM_RETENTION_HOURS")

Told = tuple[int, str, dict[str, Any]]  # to whom, the type, the data

_CHANGE_EVENTS = {
    MatchChange.STARTED: AccountEventType.MATCH_STARTED,
    MatchChange.CANCELLED: AccountEventType.MATCH_CANCELLED,
    MatchChange.ABANDONED: AccountEventType.MATCH_ABANDONED,
    MatchChange.SEAT_TAKEN: AccountEventType.SEAT_TAKEN,
    MatchChange.SEAT_LEFT: AccountEventType.SEAT_LEFT,
    MatchChange.AUTOPILOT_ON: AccountEventType.AUTOPILOT_ON,
    MatchChange.AUTOPILOT_OFF: AccountEventType.AUTOPILOT_OFF,
}


def record(event: follow_ups.Event) -> None:
    """Write the account events a match's change makes (a handler within the change)."""
    if isinstance(event, follow_ups.MatchProgressed):
        told = _progressed(event)
    elif isinstance(event, follow_ups.MatchChanged):
        told = _changed(event)
    elif isinstance(event, follow_ups.RatingsChanged):
        told = [(change["user_id"], AccountEventType.RATING_CHANGED, {
            "match_id": event.match_id, "version": event.version,
            **{key: value for key, value in change.items() if key != "user_id"},
        }) for change in event.changes]
    else:
        told = []
    _write(told)


def seated(match: Match, user_ids: list[int | None], by: int) -> None:
    """`match.seated` to each person given a seat at ``match`` by another account (``by``):
    a platform's match, a batch's, a table made for named people."""
    _write([
        (user_id, AccountEventType.MATCH_SEATED, {
            "match_id": str(match.id), "version": match.version, "seat": index,
            "game": match.game, "status": match.status,
            "ready_by": None if match.ready_by is None else match.ready_by.isoformat(),
            "starts_at": None if match.starts_at is None else match.starts_at.isoformat(),
        })
        for index, user_id in enumerate(user_ids) if user_id is not None and user_id != by
    ])


def _progressed(event: follow_ups.MatchProgressed) -> list[Told]:
    base = {"match_id": event.match_id, "version": event.version}
    told: list[Told] = []
    seat = event.seat
    timed_out = None if seat is None else event.seat_users[seat]
    if event.origin == "timeout" and seat is not None and timed_out is not None:
        told.append((timed_out, AccountEventType.SEAT_TIMED_OUT,
                     {**base, "seat": seat, "autopilot": event.seat_autopilot[seat]}))
    if event.status == MatchStatus.FINISHED:
        told.extend(
            (user_id, AccountEventType.MATCH_FINISHED,
             {**base, "seat": index, "totals": event.totals, "ranking": event.ranking})
            for index, user_id in enumerate(event.seat_users) if user_id is not None)
    to_act = event.to_act
    if event.status == MatchStatus.ACTIVE and to_act is not None and event.seat_acts[to_act]:
        user_id = event.seat_users[to_act]
        if user_id is not None:
            told.append((user_id, AccountEventType.TURN_STARTED, {
                **base, "seat": to_act, "deal_number": event.deal_number,
                "phase": event.phase, "deadline": event.deadline,
            }))
    return told


def _changed(event: follow_ups.MatchChanged) -> list[Told]:
    change = MatchChange(event.change)
    base = {"match_id": event.match_id, "version": event.version}
    if change == MatchChange.REMATCH_OFFERED:
        view = event.rematch
        assert view is not None
        asked = [entry["seat"] for entry in view["seats"] if entry["asked"]]
        return [(event.seat_users[index], AccountEventType.REMATCH_OFFERED, {
            **base, "seat": index, "offered_by": view["offered_by"],
            "expires_at": view["expires_at"],
        }) for index in asked if event.seat_users[index] is not None]
    if change == MatchChange.REMATCH_STARTED:
        assert event.new_match_id is not None and event.new_seat_users is not None
        return [(user_id, AccountEventType.REMATCH_STARTED, {
            **base, "new_match_id": event.new_match_id, "new_seat": index,
        }) for index, user_id in enumerate(event.new_seat_users) if user_id is not None]
    event_type = _CHANGE_EVENTS.get(change)
    if event_type is None:
        return []
    if change in (MatchChange.AUTOPILOT_ON, MatchChange.AUTOPILOT_OFF):
        assert event.seat is not None
        user_id = event.seat_users[event.seat]
        return [] if user_id is None else [(user_id, event_type, {**base, "seat": event.seat})]
    people = [(index, user_id) for index, user_id in enumerate(event.seat_users)
              if user_id is not None]
    if event.seat is None:  # the match's start or end
        data: dict[str, Any] = {**base, "status": event.status}
        if change == MatchChange.ABANDONED:
            data["totals"] = event.totals
        return [(user_id, event_type, {**data, "seat": index}) for index, user_id in people]
    # A seat taken or left: everyone at the table hears, the one who left included.
    told_to = {user_id for _, user_id in people}
    if event.user_id is not None:
        told_to.add(event.user_id)
    return [(user_id, event_type, {**base, "seat": event.seat}) for user_id in sorted(told_to)]


def _write(told: list[Told]) -> None:
    if not told:
        return
    now = timezone.now().isoformat()
    LOG.write([
        AccountStreamEvent(user_id=user_id, type=str(event_type), match_id=data.get("match_id"),
                           payload={"type": str(event_type), "timestamp": now, "data": data})
        for user_id, event_type, data in told
    ])
