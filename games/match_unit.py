"""The one way any change reaches a match: a unit of work.

    with changing(match_id) as unit:   # one transaction; the match row locked, its seats loaded
        unit.apply(seat, action)       # the engine applies it; the deal's progress and a
                                       # deal's end are recorded, the action as it closes
    # committed: the state is kept, the version announced, the computer players sent their turn

A person's action, a computer player's turn, a clock running out, a seat going on autopilot or
coming back, a person leaving, a table filling up and starting, a match ending unfinished:
each walks the same steps, in the same order.
1. Lock the match row (its seats read after the lock, as its last holder left them).
2. Take the current deal's state when the change needs it: the one this process's last change
   of the match left (games/snapshots.py), brought up to date, or read and replayed. It is
   always exactly the replay of the log at the locked version.
3. Change: engine actions, seats, status, each told as an event (games/follow_ups.py).
4. Leaving the block tells what changed at the seats (a person leaving, a seat going on
   autopilot or coming back: found by comparing the seats with how the lock found them, so no
   step can forget to), then writes the new actions, the deals' progress, the match row and
   what the handlers within the change insert (a person's own stream) together: on
   PostgreSQL in one statement (games/writes.py). Once committed, the state is kept for the
   next change, every new version is announced to the feed's waiters and streams (with the
   turn clock and a deal's result), a change at the seats too, the computer players are sent
   their turn when it is theirs, and the follow-ups' handlers run on the events told (the
   platforms' webhooks, ratings, records, deal sets, metrics: each on its own, never undoing
   the change). A change that raises rolls back and leaves no state behind (the next change
   replays).

A person's move and a computer players' round first try `changing_kept`: the same steps on the
state this process kept of the match, with no lock, its write guarded by the match row as it
was kept (one statement on PostgreSQL: the rows, the guard and the seats read back). Whatever
it cannot be sure of, it leaves to `changing`, having written nothing.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import logging
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, OperationalError, connection, models, transaction
from django.db.models import prefetch_related_objects
from django.db.transaction import TransactionManagementError
from django.utils import timezone

from games import (
    clock,
    engine,
    follow_ups,
    notify,
    presenters,
    rated,
    selectors,
    snapshots,
    writes,
)
from games.computer_players import computer_players
from games.engine.shuffle import deck_commitment, new_salt
from games.errors import ActionRefused, MatchNotFound, ServiceError
from games.models import (
    Action,
    ActionOrigin,
    Deal,
    DealAnalysis,
    DealStatus,
    Match,
    MatchStatus,
    Seat,
)
from games.signals import MatchChange
from runtime import traces

logger = logging.getLogger(__name__)

# What ending a match (abandoned, cancelled) changes on its row.
_ENDING = ["status", "finished_at", "turn_deadline", "invitation_code", "fill_bots_at", "version"]


@dataclasses.dataclass(frozen=True)
class Outcome:
    """A match as a change left it, for an answer built after the transaction: nothing here
    changes when the next change of the match takes the kept state."""

    match: Match
    deals: list[Deal]
    seat: int
    # The seat's observation of the deal in play; None once the match is over.
    observation: engine.Observation | None


@contextmanager
def changing(match_id: uuid.UUID | str, *, sends_bots: bool = True) -> Iterator[MatchUnit]:
    """A unit of work on the match ``match_id`` (MatchNotFound if there is none). With
    ``sends_bots`` False the computer players' turn that follows is left to the caller (their
    own task plays on)."""
    with transaction.atomic():
        unit = MatchUnit(lock(match_id), sends_bots=sends_bots)
        yield unit
        unit.close()


class Unkept(Exception):
    """A change cannot be made on the state this process kept of its match (`changing_kept`):
    there is none, the change needs the lock (a clock run out, a seat written first, a deal's
    end), or the match changed since it was kept. Nothing was written: make it under the lock."""


@contextmanager
def changing_kept(match_id: uuid.UUID, version: int | None = None, *,
                  taken: snapshots.Snapshot | None = None,
                  sends_bots: bool = True) -> Iterator[MatchUnit]:
    """A unit of work on the state this process kept of the match at its last change here
    (games/snapshots.py), with no lock: its write changes the match row only if the row is
    still at the kept version and `updated_at` (every change of a match under the lock moves
    one of them on: `MatchUnit.touch`), and reads back the seats in the same statement, which
    must be as kept but for when each person was last seen (a seat changed by a write that
    commits while this one waits for the match row is seen by the next change).

    Unkept, with nothing written, when that fails, the change needs the lock (above) or is
    refused (a refusal of a state that may be behind is the lock's to make); at once when the
    caller expects the match at a ``version`` the kept state is not at (another process moved
    it since, or the caller is behind). The kept state is given back when the unit changed
    nothing. The saving: the lock's statement and its wait, on a match whose changes come one
    at a time from one process (a person's move after the computer players' round this
    process played, and that round). ``taken``: the kept state, already taken from the store
    by the caller. ``sends_bots`` as `changing`'s."""
    kept = taken or snapshots.take_latest(match_id)
    if kept is None:
        raise Unkept()
    if version is not None and version != kept.version:
        snapshots.give_back(kept)
        raise Unkept()
    match = snapshots.detached(kept.match)
    seats = [copy.copy(seat) for seat in kept.match.seats.all()]
    for seat in seats:
        seat.match = match
    _load_seats(match, seats)
    now = timezone.now()
    if match.status != MatchStatus.ACTIVE or (
        match.turn_deadline is not None and match.turn_deadline <= now
    ):
        snapshots.give_back(kept)
        raise Unkept()  # a clock run out is the stand-in's move first, under the lock
    unit = MatchUnit(match, sends_bots=sends_bots, kept=kept)
    try:
        with transaction.atomic():
            yield unit
            unit.close()
    except BaseException as error:
        if unit.written:  # committed, or its commit failed: not a change to make again
            raise
        if not unit.changed:
            snapshots.give_back(kept)
        if isinstance(error, ServiceError):  # the kept state may be behind: ask the lock
            raise Unkept() from None
        raise


@contextmanager
def creating(match: Match) -> Iterator[MatchUnit]:
    """A unit of work on a match made in the caller's transaction: nobody else sees it yet.
    Its seats are loaded here, once, as `lock` loads them."""
    with transaction.atomic(savepoint=False):
        prefetch_related_objects([match], "seats")
        unit = MatchUnit(match, sends_bots=True)
        yield unit
        unit.close()


def lock(match_id: uuid.UUID | str) -> Match:
    """The match row locked with its seats, as its last holder left them: one query serves
    every later look-up of the change.

    On PostgreSQL one statement reads and locks the match and its four seats together. Locking
    the seats too is what makes it correct under READ COMMITTED: a statement that waits for a
    lock reads the rows it locks at their newest committed version once it has the lock, but
    any other row (a seat joined without a lock) as of the moment the statement began, before
    the wait, so without theirs the seats could be the previous holder's "before". (Seats are
    made with their match and never added, so the four rows are all there is to lock.)
    Elsewhere the match is locked, then its seats read: two statements."""
    if connection.vendor == "postgresql":
        try:
            key = match_id if isinstance(match_id, uuid.UUID) else uuid.UUID(str(match_id))
        except ValueError:  # not a match id
            raise MatchNotFound() from None
        seats, match = _SEATS_AND_MATCH.read(key)
        if match is None:
            raise MatchNotFound()
        _load_seats(match, seats)
        return match
    try:
        match = Match.objects.select_for_update().get(pk=match_id)
    except (Match.DoesNotExist, ValueError):
        raise MatchNotFound() from None
    prefetch_related_objects([match], "seats")
    return match


def _load_seats(match: Match, seats: list[Seat]) -> None:
    """As `prefetch_related_objects` leaves them: `match.seats.all()` answers these rows."""
    loaded = Seat.objects.none()
    loaded._result_cache = seats
    loaded._prefetch_done = True  # type: ignore[attr-defined]
    match._prefetched_objects_cache = {"seats": loaded}  # type: ignore[attr-defined]


class _Rows:
    """A model's rows as a statement written here reads them: its columns in the order of its
    fields, made into instances as the ORM makes them (each column's converters, then
    `from_db`), with none of the ORM's compiler and row iterator (which cost `lock` about
    1.5 ms for its five rows)."""

    def __init__(self, model: type[models.Model]) -> None:
        self.model = model
        self._columns: list[tuple[Any, list[Any]]] | None = None
        self.attnames = [field.attname for field in model._meta.concrete_fields]

    def select(self) -> str:
        """The select list: each column qualified by its table."""
        quote = connection.ops.quote_name
        return ", ".join(f"{quote(column.alias)}.{quote(column.target.column)}"
                         for column, _ in self._made())

    @property
    def width(self) -> int:
        return len(self.attnames)

    def made(self, values: tuple[Any, ...]) -> Any:
        converted = []
        for value, (column, converters) in zip(values, self._made(), strict=True):
            for converter in converters:
                value = converter(value, column, connection)
            converted.append(value)
        return self.model.from_db(connection.alias, self.attnames, converted)

    def _made(self) -> list[tuple[Any, list[Any]]]:
        # Made by the first caller, whatever its thread: the converters are the fields' own
        # and the backend's (none on PostgreSQL; SQLite's read only settings off the
        # connection they were made with).
        if self._columns is None:
            made = []
            for field in self.model._meta.concrete_fields:
                column = field.get_col(self.model._meta.db_table)
                made.append((column, connection.ops.get_db_converters(column)
                             + column.get_db_converters(connection)))
            self._columns = made
        return self._columns


_SEAT_ROWS, _MATCH_ROWS = _Rows(Seat), _Rows(Match)
# PostgreSQL's deadlock and serialization failure: a guarded write that meets them is tried
# again under the lock.
_CONFLICTS = {"40P01", "40001"}


class _SeatsAndMatch:
    """`lock`'s statement on PostgreSQL, written once."""

    def __init__(self) -> None:
        self._statement: str | None = None

    def read(self, match_id: uuid.UUID) -> tuple[list[Seat], Match | None]:
        if connection.get_autocommit():  # as `select_for_update` refuses: the lock would end
            raise TransactionManagementError("lock() outside a transaction")  # with the read
        with connection.cursor() as cursor:
            cursor.execute(self._written(), [match_id])
            rows = cursor.fetchall()
        if not rows:
            return [], None
        width = _SEAT_ROWS.width
        match = _MATCH_ROWS.made(rows[0][width:])
        seats = []
        for row in rows:
            seat = _SEAT_ROWS.made(row[:width])
            seat.match = match
            seats.append(seat)
        return seats, match

    def _written(self) -> str:
        if self._statement is None:
            quote = connection.ops.quote_name
            seat_table, match_table = (quote(Seat._meta.db_table), quote(Match._meta.db_table))
            match_key = quote(Seat._meta.get_field("match").column)
            match_id = quote(Match._meta.pk.column)
            index = quote(Seat._meta.get_field("index").column)
            self._statement = (
                f"SELECT {_SEAT_ROWS.select()}, {_MATCH_ROWS.select()} FROM {seat_table} "
                f"INNER JOIN {match_table} "
                f"ON ({seat_table}.{match_key} = {match_table}.{match_id}) "
                f"WHERE {seat_table}.{match_key} = %s ORDER BY {seat_table}.{index} FOR UPDATE"
            )
        return self._statement


def _seats_read(match_id: uuid.UUID) -> tuple[str, list[Any]]:
    """A SELECT of the match's seats, for a write to end with (`Write.execute`)."""
    return _seats_sql(), [Match._meta.pk.get_db_prep_value(match_id, connection)]


@functools.cache
def _seats_sql() -> str:
    quote = connection.ops.quote_name
    return (f"SELECT {_SEAT_ROWS.select()} FROM {quote(Seat._meta.db_table)} "
            f"WHERE {quote(Seat._meta.get_field('match').column)} = %s")


_SEATS_AND_MATCH = _SeatsAndMatch()


class MatchUnit:
    def __init__(self, match: Match, *, sends_bots: bool,
                 kept: snapshots.Snapshot | None = None) -> None:
        self.match = match
        self.sends_bots = sends_bots
        # On the state kept of the match, with no lock (`changing_kept`): its write is guarded
        # by what the match row was then.
        self.unlocked = kept is not None
        self._kept_row = {"version": match.version, "updated_at": match.updated_at}
        # Set by `close`: whether the change leaves a computer player to act.
        self.computer_to_act = False
        self._deals: list[Deal] | None = None if kept is None else kept.deals
        self._state: engine.Deal | None = None if kept is None else kept.state
        self._fields: set[str] = set()
        # Applied and not yet written: the actions, and the fields of each deal row (by its
        # id) whose progress they changed.
        self._actions: list[Action] = []
        self._deal_updates: dict[int, tuple[Deal, set[str]]] = {}
        self._once_written: list[Callable[[], None]] = []
        self._state_changed = False
        # Set once its rows are written: what fails after that is not undone by trying again.
        self.written = False
        # Each new version as it is announced (the action that made it, if any).
        self._announcements: list[_Announcement] = []
        self._seats_found = _seat_states(match)
        self._seats_changed = False
        self._started = False
        # What the change did, told once it closes; the deals it ended that are to be analysed.
        self._events: list[follow_ups.Event] = []
        self._analyses: list[int] = []

    # --- reading ---------------------------------------------------------------------------

    def seat(self, index: int) -> Seat:
        return selectors.seat_at(self.match, index)

    @property
    def deals(self) -> list[Deal]:
        """`selectors.latest_deals` at the locked version, the current deal first."""
        self._load()
        assert self._deals is not None
        return self._deals

    @property
    def state(self) -> engine.Deal | None:
        """The current deal's engine state; None once the match is over."""
        self._load()
        return self._state

    @property
    def changed(self) -> bool:
        """Whether the engine state was changed (an action applied)."""
        return self._state_changed

    def use_state(self, deals: list[Deal], state: engine.Deal) -> None:
        """The state a decision was taken on outside the lock, at the version now locked:
        every write to a match moves its version on, so it is still what the rows say."""
        self._deals, self._state = deals, state

    def outcome(self, seat: int) -> Outcome:
        state = self.state if self.match.status == MatchStatus.ACTIVE else None
        return Outcome(
            snapshots.detached(self.match),
            [copy.copy(row) for row in self.deals],
            seat,
            None if state is None else state.observation(seat),
        )

    def _load(self) -> None:
        if self._deals is not None:
            return
        taken = snapshots.take(self.match.id, self.match.version)
        if taken is not None and (
            taken.version == self.match.version or _catch_up(self.match, taken)
        ):
            self._deals, self._state = taken.deals, taken.state
            return
        self._deals = selectors.latest_deals(self.match)
        current = self._deals[0]
        self._state = (
            selectors.replay_deal(self.match, current)
            if current.status == DealStatus.IN_PROGRESS else None
        )

    # --- changing --------------------------------------------------------------------------

    def apply(self, seat: int, action: engine.Action, *, origin: str = ActionOrigin.PLAYER) -> None:
        """Apply ``action`` at ``seat`` and record it: the action, the deal's progress, and a
        deal's end (the next deal dealt, or the match finished). ActionRefused, changing
        nothing, when the engine refuses it. Traced as `match.apply` (the events it writes for
        the platforms carry that span on: platforms/events.py)."""
        with traces.span("match.apply", {
            traces.MATCH_ID: str(self.match.id), traces.SEAT: seat,
            traces.ACTION: action.kind.value, traces.ORIGIN: str(origin),
            traces.VERSION: self.match.version,
        }):
            self._apply(seat, action, origin)

    def _apply(self, seat: int, action: engine.Action, origin: str) -> None:
        match, deals, state = self.match, self.deals, self.state
        assert state is not None, "only a match in play takes actions"
        deal_row = deals[0]
        try:
            state.apply(seat, action)
        except engine.IllegalAction as error:
            raise ActionRefused(error) from None
        self._state_changed = True
        if self.unlocked and state.is_over:
            raise Unkept()  # ending a deal writes its rows before the match row: the lock's
            # order only
        match.version += 1
        # Written with the match row as the unit closes (`close`).
        row = Action(
            match=match, deal=deal_row, sequence=len(state.log), version=match.version,
            seat=seat, kind=action.kind.value,
            payload={k: v for k, v in action.to_dict().items() if k != "kind"},
            origin=origin, created_at=timezone.now(),  # announced before it is written
        )
        self._actions.append(row)
        changed = _record_progress(deal_row, state)
        if changed and not state.is_over:  # an ended deal is saved whole by `_end_deal`
            self._deal_updates.setdefault(deal_row.pk, (deal_row, set()))[1].update(changed)
        ended = deal_row if state.is_over else None
        if state.is_over:
            self._end_deal(deal_row, state)
        self._set_deadline()
        self._fields.update(selectors.MATCH_STATE)
        self._announcements.append(_Announcement(
            match.version, match.status, row, match.turn_deadline,
            None if ended is None or ended.scores is None
            else presenters.deal_result(ended, list(match.totals)),
            dealt=None if ended is None else self._dealt(), turn=self._turn(),
        ))
        self._events.append(self._progressed(seat, origin, ended))

    def start(self, at: datetime | None = None) -> None:
        """Start the match once no seat is open and its people are ready (or the wait for them,
        `ready_by`, is over), and not before a scheduled match's `starts_at`: the first deal
        is dealt. A person not ready by then starts on
        autopilot: nobody waits on the turn clock of an app that never connected. ``at``: the
        start as of that time, prepared before it (`seating.start_together`): the deal is
        dated then and the first turn clock runs from then."""
        match = self.match
        now = at or timezone.now()
        if match.open_seats or (match.starts_at is not None and match.starts_at > now):
            return
        if match.waits_for_arrivals and match.ready_by is None:
            self._wait_for_arrivals(now)
        unready = [seat for seat in match.seats.all() if seat.is_person and not seat.ready]
        if unready and match.ready_by is not None and match.ready_by > now:
            return
        self._tell_seat_changes()  # who sat down, first
        for seat in unready:
            seat.autopilot = True
            seat.save(update_fields=["autopilot"])
        match.status = MatchStatus.ACTIVE
        if match.rated and not rated.still_rated(match):
            match.rated = False
            self._fields.add("rated")
        # Nobody joins a full table: its invitation and the wait for computer players are over.
        match.invitation_code = None
        match.fill_bots_at = None
        deal_row = _deal(match, dealer=match.first_dealer, number=1, at=now)
        self._deals, self._state = [deal_row], engine.Deal(selectors.deal_start(match, deal_row))
        self._set_deadline(now)
        self._fields.update(["status", "invitation_code", "fill_bots_at", "turn_deadline"])
        self._started = True
        self._events.append(self._changed(MatchChange.STARTED))
        # Told in the order they happen: the start, who it put on autopilot, the first turn.
        self._tell_seat_changes()
        self._events.append(self._progressed(None, None, None))

    def _wait_for_arrivals(self, now: datetime) -> None:
        """A full quick-match table's people who are not looking at it now are not ready: it
        starts once each has seen it (`seating.present`), or without them (on autopilot) after
        QUICK_MATCH_ARRIVAL_SECONDS."""
        match = self.match
        looking = now - timedelta(seconds=settings.PRESENCE_SECONDS)
        away = [seat for seat in match.seats.all() if seat.is_person
                and (seat.last_seen is None or seat.last_seen < looking)]
        if not away:
            return
        for seat in away:
            seat.ready = False
        Seat.objects.filter(pk__in=[seat.pk for seat in away]).update(ready=False)
        match.ready_by = now + timedelta(seconds=settings.QUICK_MATCH_ARRIVAL_SECONDS)
        match.fill_bots_at = None  # full: no computer player is to come
        self._fields.update(["ready_by", "fill_bots_at"])

    def turn_changed(self) -> None:
        """Who plays a seat changed (a person left, went on autopilot or came back): no new
        version, the deal is as it was. A clock already running for the person to act runs on
        as it was (coming back, or another seat changing hands, gives nobody a fresh turn); a
        person now to act whose seat a computer player played gets their clock now, and a
        computer player now to act is sent its turn."""
        self._load()
        running = self.match.turn_deadline
        self._set_deadline()
        if running is not None and self.match.turn_deadline is not None:
            self.match.turn_deadline = running
        self._fields.add("turn_deadline")

    def end(self, status: str) -> None:
        """The match stops here, its deals unplayed: abandoned, cancelled, or finished as it
        stands (a rated match its people all left: games/seating.py), ranked by the deals so
        far as `engine.Match.ranking` ranks them. Its log stays for review."""
        self._tell_seat_changes()  # what led to the end (a person leaving) comes first
        match = self.match
        match.status = status
        match.finished_at = timezone.now()
        match.turn_deadline = None
        match.invitation_code = None
        match.fill_bots_at = None
        match.version += 1
        self._fields.update(_ENDING)
        self._announcements.append(_Announcement(match.version, match.status, None, None, None))
        if status != MatchStatus.FINISHED:
            self._events.append(self._changed(MatchChange(status)))
            return
        last_tricks = (match.deals.filter(status=DealStatus.FINISHED).order_by("-sequence")
                       .values_list("tricks", flat=True).first())
        match.ranking = list(engine.ranking(
            match.totals, last_tricks or [0, 0, 0, 0],
            partnership=selectors.table_rules(match).is_partnership,
        ))
        self._fields.add("ranking")
        # A finish as every finish is told: its handlers rate and count it.
        self._events.append(self._progressed(None, None, None))

    def touch(self, *fields: str) -> None:
        """``fields`` of the row changed with no new version (a seat taken, an invitation):
        `updated_at` tells the readers (see `selectors._consistent`)."""
        self._fields.update(fields)

    # --- closing ---------------------------------------------------------------------------

    def close(self) -> None:
        match = self.match
        # The state of a match that goes on; None when it is over (or has none loaded).
        live = self._state if match.status == MatchStatus.ACTIVE else None
        computer_to_act = live is not None and selectors.bot_seat(match, live) is not None
        self.computer_to_act = computer_to_act
        if live is not None or match.status != MatchStatus.ACTIVE:
            self._note_computer_turn(computer_to_act)
        # The change's own rows, prepared now (the match row's `updated_at` stamped before
        # the snapshot copies it); what the handlers within the change insert (a person's
        # own stream) joins them below, and all are written in one statement.
        write = writes.Write()
        write.insert(self._actions)
        for deal, fields in self._deal_updates.values():
            write.update(deal, list(fields))
        if self._fields:
            write.update(match, [*self._fields, "updated_at"],
                         where=self._kept_row if self.unlocked else None)
        if live is not None:
            snapshots.keep_on_commit(match, self.deals, live)
        self._tell_seat_changes()
        bots_to_act = computer_to_act and self.sends_bots
        if self._announcements or self._seats_changed or self._started or bots_to_act \
                or self._analyses:
            dummy_plays = bool(match.rules.get("partnership_dummy"))
            self._events.append(follow_ups.Committed(
                match_id=str(match.id), version=match.version, circle_id=match.circle_id,
                traceparent=traces.traceparent(),
                announcements=[_news(news, dummy_plays) for news in self._announcements],
                seats_changed=self._seats_changed or self._started,
                computer_to_act=bots_to_act, analyses=self._analyses,
                seat_levels=tuple(seat.bot_level for seat in match.seats.all())
                if bots_to_act else (),
            ))
        with write.gathering():
            follow_ups.tell(self._events)
        if self.unlocked:
            self._write_kept(write)
        else:
            write.execute()
        self.written = True
        for then in self._once_written:
            then()

    def _write_kept(self, write: writes.Write) -> None:
        """Write, guarded by the match row as it was kept, and check the seats read back with
        it: as kept, but for when each person was last seen (written without a change:
        `services.seen`), taken from the read when it is later. Unkept when the row or a seat
        changed since, or the write would not be guarded."""
        if not write:
            return  # nothing changed (an answer kept from an earlier request)
        if not write.guarded:
            raise Unkept()
        try:
            rows = write.execute(read=_seats_read(self.match.id))
        except (writes.Stale, IntegrityError):  # another change came first
            raise Unkept() from None
        except OperationalError as error:
            if getattr(error.__cause__, "sqlstate", None) in _CONFLICTS:
                raise Unkept() from None
            raise
        fresh = {seat.index: seat for seat in map(_SEAT_ROWS.made, rows)}
        for seat in self.match.seats.all():
            now = fresh.get(seat.index)
            if now is None or any(getattr(seat, name) != getattr(now, name)
                                  for name in _SEAT_ROWS.attnames if name != "last_seen"):
                raise Unkept()
            if now.last_seen is not None and (seat.last_seen is None
                                              or now.last_seen > seat.last_seen):
                seat.last_seen = now.last_seen

    def once_written(self, then: Callable[[], None]) -> None:
        """Run ``then`` in the change's transaction once its rows are written: what reads them
        (an answer kept with its action)."""
        self._once_written.append(then)

    def _note_computer_turn(self, computer_to_act: bool) -> None:
        """`computer_turn_since`: now when this change leaves a computer player to act, else
        null (written only when it changes, or with the change's other writes)."""
        match = self.match
        if computer_to_act and (self._actions or self._fields
                                or match.computer_turn_since is None):
            match.computer_turn_since = timezone.now()
        elif not computer_to_act and match.computer_turn_since is not None:
            match.computer_turn_since = None
        else:
            return
        self._fields.add("computer_turn_since")

    def _progressed(self, seat: int | None, origin: str | None,
                    ended: Deal | None) -> follow_ups.MatchProgressed:
        match, state = self.match, self._state
        seats = sorted(match.seats.all(), key=lambda row: row.index)
        return follow_ups.MatchProgressed(
            match_id=str(match.id), version=match.version, circle_id=match.circle_id,
            traceparent=traces.traceparent(), status=match.status, game=match.game,
            rated=match.rated, totals=list(match.totals),
            ranking=None if match.ranking is None else list(match.ranking),
            seat_users=[row.user_id for row in seats],
            seat_autopilot=[row.autopilot for row in seats],
            seat_acts=[row.is_person and not row.computer_plays for row in seats],
            seat=seat, origin=None if origin is None else str(origin),
            ended_deal_id=None if ended is None or ended.scores is None else ended.pk,
            to_act=None if state is None else state.to_act,
            deal_number=None if state is None else state.number,
            phase=None if state is None else state.phase.value,
            deadline=None if match.turn_deadline is None else match.turn_deadline.isoformat(),
        )

    def _changed(self, change: MatchChange, seat: int | None = None,
                 user_id: int | None = None) -> follow_ups.MatchChanged:
        match = self.match
        return follow_ups.MatchChanged(
            match_id=str(match.id), version=match.version, circle_id=match.circle_id,
            traceparent=traces.traceparent(), status=match.status, change=change.value,
            totals=list(match.totals),
            seat_users=[row.user_id for row in sorted(match.seats.all(),
                                                       key=lambda row: row.index)],
            seat=seat, user_id=user_id,
        )

    def _tell_seat_changes(self) -> None:
        """Tell a `MatchChanged` for each seat whose player changed since last told (since the
        lock, at first)."""
        found, now = self._seats_found, _seat_states(self.match)
        for index in sorted(now):
            before, after = found.get(index), now[index]
            if before is None or before == after:
                continue
            if (after.left and not before.left) or (
                before.user_id is not None and after.user_id != before.user_id
            ):
                change = MatchChange.SEAT_LEFT
            elif after.user_id is not None and before.user_id is None:
                change = MatchChange.SEAT_TAKEN
            elif after.autopilot != before.autopilot:
                change = MatchChange.AUTOPILOT_ON if after.autopilot else MatchChange.AUTOPILOT_OFF
            else:
                continue
            self._events.append(self._changed(
                change, index,
                after.user_id if change == MatchChange.SEAT_TAKEN else before.user_id,
            ))
        self._seats_changed = self._seats_changed or found != now
        self._seats_found = now

    def _dealt(self) -> dict[str, Any] | None:
        """The deal just dealt, for each seat's own stream only: its number, its sequence,
        and each seat's hand and what it may do at once (a weak hand's redeal)."""
        state = self._state
        if state is None or self.match.status != MatchStatus.ACTIVE:
            return None
        return {
            "number": state.number, "sequence": self.deals[0].sequence,
            "hands": [[str(card) for card in state.hand(seat)] for seat in range(4)],
            "legal_actions": [[action.to_dict() for action in state.legal_actions(seat)]
                              for seat in range(4)],
        }

    def _turn(self) -> dict[str, Any] | None:
        """The turn of a person who acts themselves (`presenters.own_turn`)."""
        state = self._state
        if state is None or state.to_act is None or self.match.status != MatchStatus.ACTIVE:
            return None
        if self.seat(state.to_act).computer_plays:
            return None
        return presenters.own_turn(state, state.to_act)

    def _set_deadline(self, now: datetime | None = None) -> None:
        self.match.turn_deadline = clock.deadline(self.match, self._state,
                                                  now or timezone.now())

    def _end_deal(self, deal_row: Deal, state: engine.Deal) -> None:
        """Record the end of a deal and deal the next one, or finish the match."""
        match = self.match
        deal_row.finished_at = timezone.now()
        if state.phase == engine.Phase.REDEALT:
            deal_row.status = DealStatus.REDEALT
        else:
            assert state.score is not None
            deal_row.status = DealStatus.FINISHED
            deal_row.scores = list(state.score.points)
            deal_row.outcomes = [outcome.value for outcome in state.score.outcomes]
            match.totals = [a + b for a, b in zip(match.totals, state.score.points, strict=True)]
        self._deal_updates.pop(deal_row.pk, None)  # written whole, now
        deal_row.save()
        if deal_row.status == DealStatus.FINISHED and settings.ANALYSE_DEALS:
            DealAnalysis.objects.create(deal=deal_row)
            self._analyses.append(deal_row.pk)
        finished = match.deals.filter(status=DealStatus.FINISHED).count()
        if finished == match.deal_count:
            match.status = MatchStatus.FINISHED
            match.finished_at = timezone.now()
            match.ranking = list(
                engine.ranking(
                    match.totals, state.tricks_won, partnership=state.rules.is_partnership
                )
            )
            self._deals, self._state = [deal_row], None
            return
        dealer, number = engine.following_deal(
            state.rules, deal_row.dealer, deal_row.number, state.phase == engine.Phase.REDEALT
        )
        next_row = _deal(match, dealer=dealer, number=number)
        self._deals = [next_row, deal_row]
        self._state = engine.Deal(selectors.deal_start(match, next_row))


def _catch_up(match: Match, snapshot: snapshots.Snapshot) -> bool:
    """Apply to ``snapshot`` the actions made since it (by another process), when they are all
    of its current deal and leave it in play; False, the snapshot spoilt, otherwise."""
    current = snapshot.deals[0]
    since = list(
        Action.objects.filter(match_id=match.pk, version__gt=snapshot.version)
        .order_by("version").values_list("version", "deal_id", "seat", "kind", "payload")
    )
    expected = list(range(snapshot.version + 1, match.version + 1))
    if [row[0] for row in since] != expected or any(row[1] != current.pk for row in since):
        return False
    try:
        for _, _, seat, kind, payload in since:
            snapshot.state.apply(seat, engine.action_from_dict({"kind": kind, **payload}))
    except engine.IllegalAction:
        logger.error("a snapshot disagrees with the log", extra={"match_id": str(match.pk)})
        return False
    if snapshot.state.is_over:
        return False
    # The deal row as those actions' own transactions wrote it.
    for name, value in _progress(snapshot.state).items():
        setattr(current, name, value)
    return True


def _deal(match: Match, *, dealer: int, number: int, at: datetime | None = None) -> Deal:
    rules = selectors.table_rules(match)
    sequence = match.deals.count() + 1
    if sequence == 1 and match.imported_hands is not None:
        # Chosen cards are committed to like shuffled ones: by the order they were dealt in.
        hands = [[engine.Card.parse(text) for text in hand] for hand in match.imported_hands]
        start = engine.DealStart.from_cards(rules, dealer, hands, number).with_deck()
    else:
        start = engine.DealStart.shuffle(rules, dealer, number)
    assert start.deck is not None
    deck_text = " ".join(str(engine.Card(index)) for index in start.deck)
    salt = new_salt()
    return Deal.objects.create(
        match=match,
        sequence=sequence,
        number=number,
        dealer=dealer,
        deck=deck_text.split(),
        salt=salt,
        commitment=deck_commitment(deck_text, salt),
        hands=start.to_dict()["hands"],
        started_at=at or timezone.now(),
    )


def _record_progress(deal_row: Deal, deal: engine.Deal) -> list[str]:
    """Copy what the engine now knows about the contract and tricks onto the deal row (for
    listings and review); the fields that changed, to be written (most cards change none)."""
    progress = _progress(deal)
    changed = [name for name, value in progress.items() if getattr(deal_row, name) != value]
    for name in changed:
        setattr(deal_row, name, progress[name])
    return changed


def _progress(deal: engine.Deal) -> dict[str, Any]:
    return {
        "declarer": deal.declarer,
        "bid": deal.bid,
        "trump": deal.trump.letter if deal.trump is not None else "",
        "announcements": (
            list(deal.announcements) if deal.rules.spades_announcements else None
        ),
        "tricks": deal.tricks_won,
    }


@dataclasses.dataclass(frozen=True)
class _Announcement:
    version: int
    status: str
    action: Action | None  # the action that made the version, if one did
    deadline: datetime | None  # the turn clock's, once at this version
    deal_end: dict[str, Any] | None  # the result of the deal it ended, if it ended one
    # Each seat's own: the deal dealt at this version, and the turn of a person to act.
    dealt: dict[str, Any] | None = None
    turn: dict[str, Any] | None = None


def _news(news: _Announcement, dummy_plays: bool) -> dict[str, Any]:
    """What `notify.announce` is told of a new version, made by an action (as the feed lists
    it) or by none."""
    return {
        "version": news.version, "status": news.status,
        "event": None if news.action is None else presenters.feed_event(news.action,
                                                                        dummy_plays),
        "deadline": None if news.deadline is None else news.deadline.isoformat(),
        "deal_end": news.deal_end, "dealt": news.dealt, "turn": news.turn,
    }


@dataclasses.dataclass(frozen=True)
class _SeatState:
    user_id: int | None
    autopilot: bool
    left: bool
    ready: bool


def _seat_states(match: Match) -> dict[int, _SeatState]:
    return {
        seat.index: _SeatState(
            seat.user_id, seat.autopilot, seat.left_at is not None, seat.ready
        )
        for seat in match.seats.all()
    }


# --- what follows a change, sent by the unit itself (handlers of batak_api/follow_ups.py) ----


def announce(event: follow_ups.Committed) -> None:
    """Wake the feed's long polls and the live streams (games/notify.py): each new version,
    then a change at the seats."""
    for news in event.announcements:
        notify.announce(event.match_id, news["version"], status=news["status"],
                        event=news["event"], deadline=news["deadline"],
                        deal_end=news["deal_end"], dealt=news["dealt"], turn=news["turn"])
    if event.seats_changed:
        notify.announce_seats(event.match_id)


def send_analyses(event: follow_ups.Committed) -> None:
    """The deals the change ended, to be analysed (the analyses' sweep sends a lost one)."""
    for deal_id in event.analyses:
        computer_players().send_analysis(deal_id)


def send_computer_turns(event: follow_ups.Committed) -> None:
    """The computer players' turn, when it is theirs (the bots' sweep sends a lost one)."""
    if event.computer_to_act:
        computer_players().send_turns(event.match_id, event.version, event.seat_levels)
