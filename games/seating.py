"""Tables between people: invitations, quick match, leaving and coming back, computer players
for seats nobody took, presence and spectators. Writes only, through `games.services`' locks.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import time
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import prefetch_related_objects
from django.utils import timezone

from games import access, bot_names, circles, computer_moves, engine, selectors, services
from games.errors import (
    InvalidRules,
    InvitationNotFound,
    MatchNotActive,
    MatchNotFound,
    MatchNotPrivate,
    MatchNotPublic,
    MatchStarted,
    NotMatchCreator,
    NotWaitingForReady,
)
from games.match_unit import MatchUnit, changing
from games.models import Match, MatchStatus, QuickMatchQueue, Seat, Spectator, Visibility
from games.rated import check_rated_table

logger = logging.getLogger(__name__)



@dataclasses.dataclass(frozen=True)
class Seated:
    match: Match
    seat: Seat


# --- invitations and cancelling ----------------------------------------------------------------


def _check_creators_waiting_match(match: Match, user: User) -> None:
    if match.created_by_id != user.pk:
        raise NotMatchCreator()
    if match.status != MatchStatus.WAITING:
        raise MatchStarted()


def renew_invitation(*, match_id: uuid.UUID, user: User) -> str:
    """A new invitation code for the creator's private waiting match; the old one stops
    working."""
    with changing(match_id) as unit:
        _check_creators_waiting_match(unit.match, user)
        if unit.match.visibility != Visibility.PRIVATE:
            raise MatchNotPrivate()
        code = services.new_invitation_code()
        unit.match.invitation_code = code
        unit.touch("invitation_code")
    return code


def revoke_invitation(*, match_id: uuid.UUID, user: User) -> None:
    with changing(match_id) as unit:
        _check_creators_waiting_match(unit.match, user)
        unit.match.invitation_code = None
        unit.touch("invitation_code")


def join_by_invitation(
    *, code: str, user: User, seat: int | None = None
) -> Seated:
    match = Match.objects.filter(invitation_code=code).only("pk").first()
    if match is None:
        raise InvitationNotFound()
    try:
        taken = services.join_match(match_id=match.pk, user=user, seat=seat, invitation=code)
    except MatchNotFound:
        raise InvitationNotFound() from None
    return Seated(Match.objects.get(pk=match.pk), taken)


def cancel_match(*, match_id: uuid.UUID, user: User) -> Match:
    """The creator calls off a match that has not started."""
    with changing(match_id) as unit:
        _check_creators_waiting_match(unit.match, user)
        unit.end(MatchStatus.CANCELLED)
    return unit.match


# --- quick match -------------------------------------------------------------------------------


def quick_match(
    *,
    user: User,
    game: str,
    rules: dict[str, Any] | None,
    deal_count: int,
    fill_with_bots_after: int | None,
    bot_level: str,
    clock_seconds: dict[str, int] | None,
    rated: bool = False,
    hints: bool = False,
) -> Seated:
    """A seat at the oldest public table of this game, rules and deals with a seat open, among
    the tables of the person's circle (games/circles.py), or at a new one. A new table's open
    seats go to computer players of ``bot_level`` once ``fill_with_bots_after`` seconds have
    passed (never, when None); ``clock_seconds`` is the table's turn clock (tables of another
    clock are not compatible); a ``rated`` seat is one at a rated table only, a ``hints``
    seat one at a table with hints only.

    Requests for the same kind of table take one row lock in turn (both databases), so two of
    them never open two tables where one would do, and the seat lock of `take_seat` never
    seats two people in one seat."""
    try:
        table = engine.TableRules.create(game, **(rules or {}))
    except engine.RuleError as error:
        raise InvalidRules.from_rule_error(error) from None
    if rated:
        check_rated_table(table, people=4, hints=hints)
    key = selectors.table_key(table, deal_count, clock_seconds, circles.circle_of(user), rated,
                              hints)
    _queue_row(key)
    with transaction.atomic():
        # The lock: an UPDATE, so SQLite's write lock and PostgreSQL's row lock both hold it.
        QuickMatchQueue.objects.filter(table_key=key).update(touched_at=timezone.now())
        compatible = Match.objects.filter(
            table_key=key, visibility=Visibility.PUBLIC, status=MatchStatus.WAITING
        )
        mine = compatible.filter(seats__user=user).first()
        if mine is not None:  # asking again finds the table already taken
            prefetch_related_objects([mine], "seats")
            seat = selectors.seat_of(mine, user)
            assert seat is not None
            if present(mine, seat, user):
                mine.refresh_from_db()
            return Seated(mine, seat)
        for candidate in compatible.filter(open_seats__gt=0).order_by("created_at", "pk")[:5]:
            with changing(candidate.pk) as unit:
                # A plain join or the computer players may have filled it since it was read.
                if unit.match.status == MatchStatus.WAITING and unit.match.open_seats:
                    return Seated(unit.match, services.take_seat(unit, user, None))
        fill_at = (
            None if fill_with_bots_after is None
            else timezone.now() + timedelta(seconds=fill_with_bots_after)
        )
        match = services.create_match(
            user=user,
            table=services.NewTable(
                game=game,
                rules=rules,
                deal_count=deal_count,
                seats=[services.SeatSpec(kind=services.SeatKind.ME),
                       *[services.SeatSpec(kind=services.SeatKind.OPEN)] * 3],
                visibility=Visibility.PUBLIC,
                fill_bots_at=fill_at,
                fill_bots_level=bot_level,
                waits_for_arrivals=True,
                clock_seconds=clock_seconds,
                rated=rated,
                hints=hints,
            ),
        )
        seat = match.seats.get(user=user)
        services.seen(seat)  # looking at the table: it need not wait for them (arrivals)
        return Seated(match, seat)


def _queue_row(key: str) -> None:
    try:
        with transaction.atomic():
            QuickMatchQueue.objects.get_or_create(table_key=key)
    except IntegrityError:  # another request made it first
        pass


def fill_with_bots(*, match_id: uuid.UUID) -> bool:
    """The wait of a quick-match table is over: computer players take its open seats and it
    starts. False, changing nothing, when it is no longer waiting or not yet due."""
    try:
        with changing(match_id) as unit:
            match = unit.match
            if (
                match.status != MatchStatus.WAITING
                or match.fill_bots_at is None
                or match.fill_bots_at > timezone.now()
                or not match.open_seats
            ):
                return False
            level = match.fill_bots_level or computer_moves.STAND_IN_LEVEL
            seats = match.seats.all()
            open_seats = [seat for seat in seats if seat.is_open]
            names = bot_names.pick([level] * len(open_seats),
                                   [seat.display_name for seat in seats if not seat.is_open],
                                   match.pk)
            for seat, name in zip(open_seats, names, strict=True):
                seat.bot_level = level
                seat.display_name = name
            Seat.objects.bulk_update(open_seats, ["bot_level", "display_name"])
            match.open_seats = 0
            unit.touch("open_seats")
            unit.start()
    except MatchNotFound:
        return False
    return True


# --- ready to start ----------------------------------------------------------------------------


def ready(*, match_id: uuid.UUID, user: User) -> Match:
    """The seated ``user`` is ready to play a match that waits for its people (`ready_by`);
    it starts once they all are. Saying it again changes nothing."""
    with changing(match_id) as unit:
        match = unit.match
        seat = access.acting_seat(match, user)
        if match.ready_by is None:
            raise NotWaitingForReady()
        if seat.ready:
            return match
        if match.status != MatchStatus.WAITING:
            raise NotWaitingForReady()
        seat.ready = True
        seat.save(update_fields=["ready"])
        # A seat changed with no new version: `updated_at` tells the readers.
        unit.touch("updated_at")
        unit.start()
    return match


def start_after_wait(*, match_id: uuid.UUID, at: datetime | None = None) -> bool:
    """The wait for a match's people to be ready is over: it starts without those not ready
    (`MatchUnit.start`; ``at``: as of that time). False, changing nothing, when it no longer
    waits or is not yet due."""
    try:
        with changing(match_id) as unit:
            match = unit.match
            if (
                match.status != MatchStatus.WAITING
                or match.ready_by is None
                or match.ready_by > (at or timezone.now())
                or match.open_seats
            ):
                return False
            unit.start(at)
    except MatchNotFound:
        return False
    return True


# How early a scheduled batch's start task is sent, to prepare its matches before their time
# (`start_together`); only where the database locks rows: SQLite would stop every other writer.
SCHEDULED_START_LEAD_SECONDS = 2.0


def start_together(match_ids: Sequence[uuid.UUID], at: datetime | None = None) -> int:
    """`start_after_wait` for each of ``match_ids`` (a batch scheduled for one time), in one
    transaction: each is started (dealt, its clock running) before what follows any start
    runs (its events, its announcements, its computer players' turns), which comes once all
    of them are. A match that fails to start is left waiting (the clock sweep tries again);
    the others start. Returns how many started.

    ``at``, their time, may be a little ahead (the start task is sent SCHEDULED_START_LEAD_SECONDS
    early where the database locks rows): they are started as of then — dealt, dated and their
    clocks running from then — and the transaction commits at that time, so that they all
    appear at once, at their time, however long preparing them took. Their rows stay locked
    meanwhile (a request about one of them waits until then)."""
    if at is not None and (at - timezone.now()).total_seconds() > 2 * SCHEDULED_START_LEAD_SECONDS:
        at = None  # far too early (a clock out of step): none is due yet, the sweep starts them
    started = 0
    with transaction.atomic():
        for match_id in match_ids:
            try:
                with transaction.atomic():
                    started += start_after_wait(match_id=match_id, at=at)
            except Exception:  # one match's failure must not hold back the others' start
                logger.exception("starting a match failed", extra={"match_id": str(match_id)})
        if at is not None:
            time.sleep(max(0.0, (at - timezone.now()).total_seconds()))
    return started


# --- leaving and coming back -------------------------------------------------------------------


def leave_match(*, match_id: uuid.UUID, user: User) -> Match:
    """Leave a match. Before the start the seat opens again (a match nobody sits at any more
    is cancelled), but at a match that waits for its people to be ready (seated by its
    platform, with no open seat for anyone to take) a computer player takes it from the start
    and the match starts as the others are ready. In play a computer player takes the seat to
    the end and the person is last (`ratings.services.rated_places`); where leaving forfeits
    (Tour of Tables), or when nobody is left, the match ends: abandoned, but a rated match is
    finished as it stands and rated, so that nobody unrates a match by leaving it."""
    with changing(match_id) as unit:
        match = unit.match
        seat = access.acting_seat(match, user)
        if match.status == MatchStatus.WAITING and match.ready_by is None:
            _free_seat(unit, seat)
            return match
        if match.status not in (MatchStatus.WAITING, MatchStatus.ACTIVE):
            raise MatchNotActive()
        seat.left_at = timezone.now()
        seat.autopilot = False
        seat.ready = True  # nobody waits for a person who left
        seat.save(update_fields=["left_at", "autopilot", "ready"])
        people_left = [s for s in match.seats.all() if s.is_person and s.left_at is None]
        if match.status == MatchStatus.WAITING:
            if people_left:
                unit.touch("updated_at")
                unit.start()
            else:
                unit.end(MatchStatus.CANCELLED)
        elif not people_left or match.leave_forfeits:
            unit.end(MatchStatus.FINISHED if match.rated else MatchStatus.ABANDONED)
        else:
            unit.turn_changed()
    return match


def _free_seat(unit: MatchUnit, seat: Seat) -> None:
    seat.user = None
    seat.display_name = ""
    seat.last_seen = None
    seat.save(update_fields=["user", "display_name", "last_seen"])
    unit.match.open_seats += 1
    unit.touch("open_seats")
    if not any(s.is_person for s in unit.match.seats.all() if s.pk != seat.pk):
        unit.end(MatchStatus.CANCELLED)


def return_to_seat(*, match_id: uuid.UUID, user: User) -> Match:
    """The person is back: the autopilot hands the seat over from the next turn on."""
    with changing(match_id) as unit:
        seat = access.acting_seat(unit.match, user)
        if unit.match.status != MatchStatus.ACTIVE:
            raise MatchNotActive()
        if services.seat_is_back(seat):
            unit.turn_changed()
    return unit.match


# --- presence ----------------------------------------------------------------------------------


def present(match: Match, seat: Seat, user: User, looks: bool = True) -> bool:
    """The seat's person is at the match (any request of theirs about it): noted
    (`services.seen`). When they ``looks`` at it (a read of it, its events or its stream, not
    a change such as leaving), the first look of one a full quick-match table waits for makes
    them ready (`Match.waits_for_arrivals`): their clock runs only once they see the table.
    True when it did (the match may have started: read it again)."""
    services.seen(seat)
    if not (looks and match.waits_for_arrivals and match.status == MatchStatus.WAITING
            and not seat.ready and match.ready_by is not None and not match.open_seats):
        return False
    with contextlib.suppress(NotWaitingForReady):  # it started meanwhile
        ready(match_id=match.pk, user=user)
    return True


def watching(match: Match, user: User) -> None:
    """Note that ``user`` (no seat at it) watches the public ``match``."""
    if match.visibility != Visibility.PUBLIC:
        raise MatchNotPublic()
    now = timezone.now()
    recent = now - timedelta(seconds=services.PRESENCE_WRITE_SECONDS)
    if Spectator.objects.filter(match=match, user=user, last_seen__gte=recent).exists():
        return
    Spectator.objects.update_or_create(match=match, user=user, defaults={"last_seen": now})

