"""Rematches: after a match has finished, a person seated at it offers to play it again, and the
new match starts as the last person accepts.

The offerer counts as accepting; computer players accept at once, and so does the computer
player that takes the seat of a person who left (they are not asked: STAND_IN_LEVEL, the level
that stood in for them). The new match has the same game, rules, deal count, clock, rated flag,
circle and visibility, with the seats rotated (seat i's player sits at (i + 1) % 4: another
person deals and leads), and the offerer as its creator (their account limits apply).

Every change of an offer is made under the finished match's row lock (`match_unit.lock`), so
two last acceptances at once start one match: the second finds the first's. An offer expires
REMATCH_OFFER_SECONDS after it was made; that is decided as it is read or answered (no periodic
job: an expired offer changes nothing until someone looks), and a new offer replaces it.
"""

from __future__ import annotations

import functools
import uuid
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from games import access, follow_ups, notify, services
from games.computer_moves import STAND_IN_LEVEL
from games.errors import (
    RematchAlreadyAnswered,
    RematchAlreadyOffered,
    RematchDeclined,
    RematchExpired,
    RematchNotFinished,
    RematchNotFound,
    RematchStarted,
)
from games.match_unit import lock
from games.models import Match, MatchStatus, RematchOffer, RematchStatus, Seat
from games.signals import MatchChange
from runtime import traces

ACCEPTED = "accepted"
DECLINED = "declined"


def status_of(offer: RematchOffer) -> str:
    """The offer's status as of now: an open one past its time has expired."""
    if offer.status == RematchStatus.OPEN and timezone.now() >= offer.expires_at:
        return RematchStatus.EXPIRED
    return offer.status


def more_to_tell(match: Match) -> bool:
    """Whether the stream of the ended ``match`` may still tell something after its end: while
    a rematch offer of it is open, or, a finished match with no offer answered yet, within
    STREAM_AFTER_END_SECONDS of its finish (its ratings' changes, an offer to come)."""
    offer = RematchOffer.objects.filter(match=match).first()
    if offer is not None:
        return status_of(offer) == RematchStatus.OPEN
    return (match.status == MatchStatus.FINISHED and match.finished_at is not None
            and (timezone.now() - match.finished_at).total_seconds()
            < settings.STREAM_AFTER_END_SECONDS)


def offer_view_of(match: Match) -> dict[str, Any] | None:
    """The finished ``match``'s offer as `offer_view` shows it, None when nobody offered one
    (the seat view's `rematch`)."""
    offer = RematchOffer.objects.filter(match=match).first()
    return None if offer is None else offer_view(offer)


def offer_of(match: Match) -> RematchOffer:
    offer = RematchOffer.objects.filter(match=match).first()
    if offer is None:
        raise RematchNotFound()
    return offer


def offer_rematch(*, match_id: uuid.UUID, user: User) -> RematchOffer:
    """``user`` (seated at the finished match, not gone) offers a rematch; it starts at once
    when nobody else is to be asked."""
    with transaction.atomic():
        match = lock(match_id)
        seat = access.acting_seat(match, user)
        if match.status != MatchStatus.FINISHED:
            raise RematchNotFinished()
        offer = RematchOffer.objects.filter(match=match).first()
        if offer is not None:
            _refuse_unless_expired(offer)
        # The rematch will be one more of their unfinished matches, as for everyone it seats.
        services.check_account_limits(user)
        now = timezone.now()
        offer = offer or RematchOffer(match=match)
        offer.offered_by = user
        offer.status = RematchStatus.OPEN
        offer.answers = [_first_answer(row, seat) for row in _seats(match)]
        offer.created_at = now
        offer.expires_at = now + timedelta(seconds=settings.REMATCH_OFFER_SECONDS)
        offer.save()
        _tell(match, MatchChange.REMATCH_OFFERED, offer)
        _start_if_accepted(match, offer)
    return offer


def answer_rematch(*, match_id: uuid.UUID, user: User, accept: bool) -> RematchOffer:
    """``user``'s answer to the open offer; the rematch starts with the last acceptance."""
    with transaction.atomic():
        match = lock(match_id)
        seat = access.acting_seat(match, user)
        offer = RematchOffer.objects.filter(match=match).first()
        if offer is None:
            raise RematchNotFound()
        status = status_of(offer)
        if status == RematchStatus.EXPIRED:
            raise RematchExpired()
        _refuse_unless_open(status)
        if offer.answers[seat.index]["answer"] is not None:
            raise RematchAlreadyAnswered()
        if accept:
            services.check_account_limits(user)
        offer.answers[seat.index]["answer"] = ACCEPTED if accept else DECLINED
        if not accept:
            offer.status = RematchStatus.DECLINED
        offer.save(update_fields=["answers", "status"])
        if accept:
            _start_if_accepted(match, offer)
        else:
            transaction.on_commit(lambda: notify.announce_rematch(match.id))
    return offer


def decline_for_erased(user: User) -> None:
    """Decline every open offer ``user`` made or is asked (their account is being erased: they
    will never play again), as they would have: a rematch never seats, nor is created by, an
    erased account. One started meanwhile is a match they then leave like any other."""
    offers = RematchOffer.objects.filter(status=RematchStatus.OPEN, match__seats__user=user)
    for match_id in set(offers.values_list("match_id", flat=True)):
        with transaction.atomic():
            match = lock(match_id)
            offer = RematchOffer.objects.filter(match=match, status=RematchStatus.OPEN).first()
            # Answered since the query, or one they are not part of (they had left the table).
            if offer is None or all(entry["user_id"] != user.pk for entry in offer.answers):
                continue
            for entry in offer.answers:
                if entry["user_id"] == user.pk:
                    entry["answer"] = DECLINED
            offer.status = RematchStatus.DECLINED
            offer.save(update_fields=["answers", "status"])
            transaction.on_commit(functools.partial(notify.announce_rematch, match.id))


def _refuse_unless_expired(offer: RematchOffer) -> None:
    status = status_of(offer)
    if status == RematchStatus.OPEN:
        raise RematchAlreadyOffered()
    _refuse_unless_open(status)


def _refuse_unless_open(status: str) -> None:
    if status == RematchStatus.DECLINED:
        raise RematchDeclined()
    if status == RematchStatus.ACCEPTED:
        raise RematchStarted()


def _seats(match: Match) -> list[Seat]:
    return sorted(match.seats.all(), key=lambda row: row.index)


def _first_answer(seat: Seat, offerer: Seat) -> dict[str, Any]:
    """A seat's entry as the offer is made: a person still seated is asked (but the offerer,
    who accepts); a computer player, or one taking a leaver's seat, accepts."""
    asked = seat.is_person and seat.left_at is None
    return {
        "user_id": seat.user_id if asked else None,
        "answer": None if asked and seat.pk != offerer.pk else ACCEPTED,
    }


def _start_if_accepted(match: Match, offer: RematchOffer) -> None:
    """Start the rematch once every seat accepted (under the finished match's lock)."""
    if any(entry["answer"] != ACCEPTED for entry in offer.answers):
        transaction.on_commit(lambda: notify.announce_rematch(match.id))
        return
    new_match = services.create_match(
        user=offer.offered_by,
        table=services.NewTable(
            game=match.game,
            rules={name: value for name, value in match.rules.items() if name != "game"},
            deal_count=match.deal_count,
            seats=_rotated(match, offer),
            visibility=match.visibility,
            clock_seconds=match.clock,
            # A rated table needs two people's seats; without them (people left) it is casual.
            rated=match.rated and sum(entry["user_id"] is not None for entry in offer.answers) >= 2,
            hints=match.hints,
        ),
    )
    offer.status = RematchStatus.ACCEPTED
    offer.new_match = new_match
    offer.save(update_fields=["status", "new_match"])
    _tell(match, MatchChange.REMATCH_STARTED, offer)
    transaction.on_commit(lambda: notify.announce_rematch(match.id))


def _rotated(match: Match, offer: RematchOffer) -> list[services.SeatSpec]:
    """The new match's seats: the player of seat i at seat (i + 1) % 4."""
    specs: list[services.SeatSpec | None] = [None] * 4
    for seat, entry in zip(_seats(match), offer.answers, strict=True):
        user_id = entry["user_id"]
        if user_id == offer.offered_by_id:
            spec = services.SeatSpec(services.SeatKind.ME)
        elif user_id is not None:
            spec = services.SeatSpec(services.SeatKind.PERSON, user=seat.user)
        elif seat.is_bot:
            spec = services.SeatSpec(services.SeatKind.BOT, bot_level=seat.bot_level,
                                     display_name=seat.display_name, character=seat.character)
        else:
            spec = services.SeatSpec(services.SeatKind.BOT, bot_level=STAND_IN_LEVEL)
        specs[(seat.index + 1) % 4] = spec
    return [spec for spec in specs if spec is not None]


def _tell(match: Match, change: MatchChange, offer: RematchOffer) -> None:
    new_match = offer.new_match if change == MatchChange.REMATCH_STARTED else None
    follow_ups.tell([follow_ups.MatchChanged(
        match_id=str(match.id), version=match.version, circle_id=match.circle_id,
        traceparent=traces.traceparent(), status=match.status, change=change.value,
        totals=list(match.totals),
        seat_users=[row.user_id for row in sorted(match.seats.all(), key=lambda r: r.index)],
        seat=None, user_id=offer.offered_by_id, rematch=offer_view(offer),
        new_match_id=None if new_match is None else str(new_match.id),
        new_seat_users=None if new_match is None else [
            row.user_id for row in sorted(new_match.seats.all(), key=lambda r: r.index)],
    )])


def offer_view(offer: RematchOffer) -> dict[str, Any]:
    """The offer as the API and the live stream show it: seats by index, never account ids."""
    return {
        "match_id": offer.match_id,
        "status": status_of(offer),
        "offered_by": next(
            index for index, entry in enumerate(offer.answers)
            if entry["user_id"] == offer.offered_by_id
        ),
        "seats": [
            {"seat": index, "new_seat": (index + 1) % 4, "asked": entry["user_id"] is not None,
             "answer": entry["answer"]}
            for index, entry in enumerate(offer.answers)
        ],
        "created_at": offer.created_at.isoformat(),
        "expires_at": offer.expires_at.isoformat(),
        "new_match_id": offer.new_match_id,
    }
