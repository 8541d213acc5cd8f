"""The service layer of matches that views, admin, bots and tests call: making a match, taking
a seat, a person's move, abandoning (tables between people are `seating`, the moves the service
makes itself `computer_moves`).

Every change goes through the match's unit of work (`match_unit`): lock the match, take its
state, let the engine check and apply the moves, record them, and once committed announce the
change and hand the next turn to the computer players if it is theirs. Answers are built after
the commit, from what the unit of work returns.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import logging
import secrets
import uuid
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from games import (
    access,
    account_stream,
    bot_names,
    circles,
    clock,
    computer_moves,
    engine,
    follow_ups,
    notify,
    presenters,
    retention,
    selectors,
)
from games.computer_players import computer_players
from games.engine.notation import NotationError, read_deal
from games.engine.shuffle import secure_choice
from games.errors import (
    AlreadySeated,
    ClosedTable,
    DealRulesDiffer,
    IdempotencyKeyInUse,
    IdempotencyKeyReused,
    ImportedDealNotRated,
    InvalidDealNotation,
    InvalidMatch,
    InvalidRules,
    InvitationRequired,
    MatchNotActive,
    PersonSeatRequired,
    SeatUnavailable,
    ServiceError,
    StaleVersion,
    TooManyBotDeals,
    TooManyMatches,
    TurnTimedOut,
)
from games.match_unit import (
    MatchUnit,
    Outcome,
    Unkept,
    changing,
    changing_kept,
    creating,
    lock,
)
from games.models import (
    AnalysisStatus,
    Deal,
    DealAnalysis,
    IdempotencyRecord,
    Match,
    MatchStatus,
    Seat,
    Visibility,
)
from games.rated import check_rated_table
from runtime import traces


class SeatKind(enum.StrEnum):
    """Who takes a seat when a match is created (the API's seat `kind`s)."""

    ME = "me"  # its creator
    PERSON = "person"  # a person named by the creator (a platform seats its players)
    OPEN = "open"  # left open for another person
    BOT = "bot"  # a computer player


class DefaultClock(enum.Enum):
    """A table whose creator named no clock gets the default one for its seats
    (`clock.default_clock`); None is a clock of its own (none at all)."""

    FOR_THE_SEATS = "for the seats"


@dataclasses.dataclass(frozen=True)
class SeatSpec:
    """How a seat is filled when a match is created: by its creator, by the person ``user``
    (a platform seats its players), left open for another person, or taken by a computer
    player of ``bot_level`` (playing as the story ``character``, if one is named)."""

    kind: SeatKind
    bot_level: str = ""
    display_name: str = ""
    user: User | None = None
    character: str = ""


@dataclasses.dataclass(frozen=True)
class AccountLimits:
    """What one account may keep going: matches waiting or in play, and computer players'
    deals in them. People use the settings' limits; a platform's account has its own."""

    matches: int
    bot_deals: int

    @classmethod
    def default(cls) -> AccountLimits:
        return cls(settings.MAX_UNFINISHED_MATCHES, settings.MAX_BOT_SEAT_DEALS)


@dataclasses.dataclass(frozen=True)
class Idempotency:
    user_id: int
    key: str
    fingerprint: str

    @classmethod
    def for_request(cls, user_id: int, key: str, method: str, path: str, body: Any) -> Idempotency:
        canonical = json.dumps([method, path, body], sort_keys=True, default=str)
        return cls(user_id, key, hashlib.sha256(canonical.encode()).hexdigest())


@dataclasses.dataclass(frozen=True)
class ActionResult:
    """The acting seat's view after the action; ``replayed`` when an idempotent retry returned
    the first result."""

    view: dict[str, Any]
    replayed: bool = False


ClockSeconds = dict[str, int] | None | DefaultClock


@dataclasses.dataclass(frozen=True)
class NewTable:
    """A match to create (`create_match`): its game, the changes to its default ``rules``,
    how many deals, how each of its four seats is filled, and the table's options. A
    ``rated`` table must be one that may be rated (games/rated.py), which offers no ``hints``
    (games/hints.py). With ``deal`` its first deal is dealt with those hands by that dealer
    (later ones are shuffled): the table's rules must be the deal's, and such a match is never
    rated nor found by quick match. ``fill_bots_at`` (quick match) is when its still open seats
    go to computer players of ``fill_bots_level``; ``waits_for_arrivals`` (quick match) has
    it wait, once full, for its people who are not looking at it (`Match.waits_for_arrivals`).
    With ``ready_by`` (no seat open) it waits for
    its people to be ready (`seating.ready`), and then at the latest. With ``starts_at`` it
    starts then, its people ready from the first (a platform's scheduled match), once no seat
    is open. ``bot_seed`` seeds the
    computer players' choices (`Match.bot_seed`: a deal set's tables), whose cards stay sealed
    until ``cards_sealed_until`` (`access.cards_sealed`)."""

    game: str
    deal_count: int
    seats: Sequence[SeatSpec]
    rules: dict[str, Any] | None = None
    visibility: str = Visibility.PRIVATE
    clock_seconds: ClockSeconds = DefaultClock.FOR_THE_SEATS
    leave_forfeits: bool = False
    fill_bots_at: datetime | None = None
    fill_bots_level: str = ""
    waits_for_arrivals: bool = False
    ready_by: datetime | None = None
    starts_at: datetime | None = None
    rated: bool = False
    hints: bool = False
    deal: engine.DealStart | None = None
    bot_seed: str = ""
    cards_sealed_until: datetime | None = None

# A person's or a spectator's `last_seen` is written at most this often: a client polling its
# view several times a second costs one write every few seconds, not one per read.
PRESENCE_WRITE_SECONDS = 5

logger = logging.getLogger(__name__)


def create_match(*, user: User, table: NewTable, limits: AccountLimits | None = None) -> Match:
    """``user``'s new match at ``table`` (within ``limits``, by default a person's); it starts
    at once when no seat is open. A private match with open seats gets an invitation code."""
    try:
        rules = engine.TableRules.create(table.game, **(table.rules or {}))
    except engine.RuleError as error:
        raise InvalidRules.from_rule_error(error) from None
    if not 1 <= table.deal_count <= engine.MAX_DEALS:
        raise InvalidMatch(field="deals")
    seats, deal = table.seats, table.deal
    people = [spec.user.pk for spec in seats
              if spec.kind == SeatKind.PERSON and spec.user is not None]
    if (
        len(seats) != 4
        or sum(spec.kind == SeatKind.ME for spec in seats) > 1
        or len(set(people)) != sum(spec.kind == SeatKind.PERSON for spec in seats)
        or (user.pk in people and any(spec.kind == SeatKind.ME for spec in seats))
    ):
        raise InvalidMatch(field="seats")
    if deal is not None:
        if deal.rules != rules:
            raise DealRulesDiffer(field="deal")
        if table.rated:
            raise ImportedDealNotRated(field="rated")
    if table.rated:
        people_seats = sum(spec.kind != SeatKind.BOT for spec in seats)
        check_rated_table(rules, people_seats, hints=table.hints)
    bot_seats = sum(spec.kind == SeatKind.BOT for spec in seats)
    if bot_seats == 4 and not user.has_perm("games.play_bot_only_matches"):
        raise PersonSeatRequired()
    open_seats = sum(spec.kind == SeatKind.OPEN for spec in seats)
    # Open seats that computer players will take (quick match) count as theirs already.
    future_bots = bot_seats + (open_seats if table.fill_bots_at is not None else 0)
    match_clock = (
        clock.default_clock(list(seats)) if isinstance(table.clock_seconds, DefaultClock)
        else table.clock_seconds
    )
    circle = circles.circle_of(user)
    with transaction.atomic():
        check_account_limits(user, limits, new_bot_deals=future_bots * table.deal_count)
        match = Match.objects.create(
            game=rules.game.value,
            rules=rules.to_dict(),
            deal_count=table.deal_count,
            first_dealer=secure_choice(4) if deal is None else deal.dealer,
            totals=[0, 0, 0, 0],
            created_by=user,
            visibility=table.visibility,
            invitation_code=(
                new_invitation_code()
                if table.visibility == Visibility.PRIVATE and open_seats else None
            ),
            open_seats=open_seats,
            table_key=(
                selectors.table_key(rules, table.deal_count, match_clock, circle, table.rated,
                                    table.hints)
                if deal is None else ""
            ),
            circle_id=circle,
            clock=match_clock,
            leave_forfeits=table.leave_forfeits,
            fill_bots_at=table.fill_bots_at if open_seats else None,
            fill_bots_level=table.fill_bots_level,
            waits_for_arrivals=table.waits_for_arrivals,
            ready_by=table.ready_by if table.starts_at is None else table.starts_at,
            starts_at=table.starts_at,
            rated=table.rated,
            hints=table.hints,
            imported_hands=None if deal is None else deal.to_dict()["hands"],
            bot_seed=table.bot_seed,
            cards_sealed_until=table.cards_sealed_until,
        )
        people_seated: list[int | None] = []
        names = _seat_names(seats, user, match.pk)
        for index, spec in enumerate(seats):
            seat_user = (user if spec.kind == SeatKind.ME
                         else spec.user if spec.kind == SeatKind.PERSON else None)
            people_seated.append(None if seat_user is None else seat_user.pk)
            Seat.objects.create(
                match=match,
                index=index,
                user=seat_user,
                bot_level=spec.bot_level if spec.kind == SeatKind.BOT else "",
                display_name=names[index],
                character=spec.character if spec.kind == SeatKind.BOT else "",
                ready=table.ready_by is None or table.starts_at is not None
                or spec.kind == SeatKind.BOT,
            )
        account_stream.seated(match, people_seated, user.pk)
        with creating(match) as unit:
            unit.start()
    return match


def deal_from_notation(text: str) -> engine.DealStart:
    """Where the deal written in ``text`` (Batak Deal Notation) starts: its rules, dealer and
    hands. Its moves must be legal, and are not played: a match dealt from it starts afresh."""
    try:
        return read_deal(text).start
    except NotationError as error:
        raise InvalidDealNotation.from_notation_error(error) from None


def check_account_limits(
    user: User, limits: AccountLimits | None = None, *, new_bot_deals: int = 0
) -> None:
    """No account keeps more than ``limits.matches`` matches waiting or in play, nor more
    than ``limits.bot_deals`` deals of computer players in them (a seat's deals: a 4-deal
    match against three computer players is 12).

    Called in the transaction that adds the match or the seat: the account's row stays locked
    to its end, so that requests of one account count and add one after the other, and never
    all count the same matches and all go over. (PostgreSQL: the row lock. SQLite: the write
    lock that every transaction takes as it begins, `transaction_mode` IMMEDIATE in settings,
    already serialises them.)"""
    limits = limits or AccountLimits.default()
    User.objects.select_for_update(no_key=True).filter(pk=user.pk).values_list("pk").get()
    unfinished = selectors.unfinished_matches_of(user)
    if len(unfinished) >= limits.matches:
        raise TooManyMatches(limit=limits.matches)
    in_flight = sum(bots * deals for bots, deals in unfinished)
    if in_flight + new_bot_deals > limits.bot_deals:
        raise TooManyBotDeals(limit=limits.bot_deals)


def _seat_names(seats: Sequence[SeatSpec], user: User, match_id: uuid.UUID) -> list[str]:
    """Each seat's name: the one its spec gives, else a person's own, a computer player's of
    its level (`bot_names`: none alike at the table), and none for an open seat."""
    names = [spec.display_name or _default_name(spec, user) for spec in seats]
    unnamed = [index for index, spec in enumerate(seats)
               if spec.kind == SeatKind.BOT and not spec.display_name]
    # Nobody's name twice: a person called Zeynep sits with no computer player called so.
    given = [name for index, name in enumerate(names) if name and index not in unnamed]
    chosen = bot_names.pick([seats[index].bot_level for index in unnamed], given, match_id)
    for index, name in zip(unnamed, chosen, strict=True):
        names[index] = name
    return names


def _default_name(spec: SeatSpec, user: User) -> str:
    if spec.kind == SeatKind.ME:
        return selectors.display_name(user)
    if spec.kind == SeatKind.PERSON and spec.user is not None:
        return selectors.display_name(spec.user)
    return ""


def new_invitation_code() -> str:
    return secrets.token_urlsafe(12)


def join_match(
    *,
    match_id: uuid.UUID,
    user: User,
    seat: int | None = None,
    invitation: str | None = None,
) -> Seat:
    """Take an open seat (the lowest one when ``seat`` is None): of a public match, or of a
    private one with its current ``invitation`` code."""
    with changing(match_id) as unit:
        match = unit.match
        if match.visibility == Visibility.PRIVATE and (
            invitation is None or invitation != match.invitation_code
        ):
            raise InvitationRequired()
        return take_seat(unit, user, seat)


def take_seat(unit: MatchUnit, user: User, seat: int | None) -> Seat:
    """Seat ``user`` at the unit's match; it starts when the last seat goes."""
    match = unit.match
    if circles.circle_of(user) != match.circle_id:
        raise ClosedTable()
    seats = list(match.seats.all())
    if any(s.user_id == user.pk for s in seats):
        raise AlreadySeated()
    open_seats = [s for s in seats if s.is_open and (seat is None or s.index == seat)]
    if match.status != MatchStatus.WAITING or not open_seats:
        raise SeatUnavailable()
    check_account_limits(user)
    chosen = open_seats[0]
    chosen.user = user
    chosen.display_name = selectors.display_name(user)
    chosen.last_seen = timezone.now()
    # Whoever takes a seat is there: a match waiting for its people does not wait for them.
    chosen.ready = True
    chosen.save(update_fields=["user", "display_name", "last_seen", "ready"])
    match.open_seats -= 1
    unit.touch("open_seats")
    unit.start()
    return chosen


def submit_action(
    *,
    match_id: uuid.UUID,
    action: engine.Action,
    user: User,
    expected_version: int | None = None,
    idempotency: Idempotency | None = None,
) -> ActionResult:
    """Apply ``action`` at ``user``'s own seat (found under the match lock, their presence
    noted). Raises a `ServiceError` and changes nothing but
    the presence when the action is refused, but for the stand-in's move of a turn whose clock
    had run out (`computer_moves.time_out_due`): 409 `turn_timed_out` when it was the
    caller's."""
    # The person's seat as found under the lock, and when it was last seen: their presence is
    # written after the transaction, so that a refused action counts too.
    seated: list[tuple[Seat, Any]] = []
    try:
        return _submit_action(
            match_id=match_id, action=action, user=user,
            expected_version=expected_version, idempotency=idempotency, seated=seated,
        )
    except IntegrityError:
        if idempotency is None:
            raise
        # Another request with the same key (for this match or another) committed its record
        # first: this one's action is rolled back with the record it tried to write.
        raise IdempotencyKeyInUse() from None
    finally:
        if seated:
            seat_row, last_seen = seated[0]
            seat_row.last_seen = last_seen
            seen(seat_row)


def _submit_action(
    *,
    match_id: uuid.UUID,
    action: engine.Action,
    user: User,
    expected_version: int | None,
    idempotency: Idempotency | None,
    seated: list[tuple[Seat, Any]],
) -> ActionResult:
    # First on the state this process kept of the match, unlocked; any doubt (a refusal
    # included: the kept state may be behind) is settled under the lock (`changing_kept`).
    try:
        return _submit_in(changing_kept(match_id, expected_version), action=action, user=user,
                          expected_version=expected_version, idempotency=idempotency,
                          seated=seated)
    except Unkept:
        seated.clear()
    return _submit_in(changing(match_id), action=action, user=user,
                      expected_version=expected_version, idempotency=idempotency,
                      seated=seated)


def _submit_in(
    unit_of_work: AbstractContextManager[MatchUnit],
    *,
    action: engine.Action,
    user: User,
    expected_version: int | None,
    idempotency: Idempotency | None,
    seated: list[tuple[Seat, Any]],
) -> ActionResult:
    refusal: ServiceError | None = None
    kept: list[dict[str, Any]] = []  # the first answer, when it is kept
    with unit_of_work as unit:
        match = unit.match
        # Only a seat's player is answered, a replay too: someone who left reads nothing more.
        seat_row = access.acting_seat(match, user)
        if idempotency is not None and (replay := _first_answer(idempotency)) is not None:
            return replay
        seated.append((seat_row, seat_row.last_seen))
        # The answer shows the mover as they are once it is sent: seen now.
        seat_row.last_seen = timezone.now()
        # The clock is exact: a turn whose time has run out is the stand-in's, as if the clock
        # sweep had come by at the deadline, so the move a due time-out owes comes first (a
        # unit on the kept state has none: `changing_kept`).
        timed_out = None if unit.unlocked else computer_moves.time_out_due(
            unit, computer_players().choose)
        try:
            if timed_out == seat_row.index:
                raise TurnTimedOut()
            outcome = _act(unit, seat_row, action, expected_version)
            if idempotency is not None:
                # The first answer is kept with the action it answers, in its transaction,
                # once the action is written: the end of a deal is summed up from its rows.
                unit.once_written(lambda: kept.append(_keep_answer(idempotency, outcome)))
        except ServiceError as error:
            if timed_out is None:
                raise
            refusal = error
    if refusal is not None:
        # Refused once the stand-in's move is committed: a due time-out is never lost.
        raise refusal
    if kept:
        return ActionResult(view=kept[0])
    # Built once committed, from what the change left: no lock is held for it.
    return ActionResult(view=_answer(outcome))


def _keep_answer(idempotency: Idempotency, outcome: Outcome) -> dict[str, Any]:
    view = _answer(outcome)
    IdempotencyRecord.objects.create(
        user_id=idempotency.user_id, key=idempotency.key,
        fingerprint=idempotency.fingerprint, status_code=200, body=view,
    )
    return view


def _first_answer(idempotency: Idempotency) -> ActionResult | None:
    """The kept answer to the first request with this key, or None for a key not used within
    IDEMPOTENCY_KEY_HOURS; IdempotencyKeyReused for a key first used for another request."""
    record = IdempotencyRecord.objects.filter(
        user_id=idempotency.user_id, key=idempotency.key
    ).first()
    if record is None:
        return None
    if record.created_at < retention.idempotency_cutoff():
        # As if the purge had come by: the key starts afresh.
        record.delete()
        return None
    if record.fingerprint != idempotency.fingerprint:
        raise IdempotencyKeyReused()
    return ActionResult(view=record.body, replayed=True)


def _act(
    unit: MatchUnit, seat_row: Seat, action: engine.Action, expected_version: int | None
) -> Outcome:
    match = unit.match
    if match.status != MatchStatus.ACTIVE:  # over, perhaps by a time-out's move just made
        raise MatchNotActive()
    if expected_version is not None and expected_version != match.version:
        raise StaleVersion(current_version=match.version)
    # A person's own move takes their seat back from the autopilot; its row is written before
    # the match's, which only the lock orders safely.
    if unit.unlocked and (seat_row.autopilot or seat_row.timeouts_in_row):
        raise Unkept()
    seat_is_back(seat_row)
    unit.apply(seat_row.index, action)
    return unit.outcome(seat_row.index)


def _answer(outcome: Outcome) -> dict[str, Any]:
    return presenters.seat_view_after(
        outcome.match, outcome.seat, outcome.deals, outcome.observation
    )


def seen(seat: Seat) -> None:
    """Note a request of the seat's person (see PRESENCE_WRITE_SECONDS)."""
    now = timezone.now()
    if seat.last_seen is not None and now - seat.last_seen < timedelta(
        seconds=PRESENCE_WRITE_SECONDS
    ):
        return
    seat.last_seen = now
    Seat.objects.filter(pk=seat.pk).update(last_seen=now)


def seat_is_back(seat: Seat) -> bool:
    """The seat's person acts again: no autopilot, and the count of timeouts starts again.
    True when that changed anything."""
    if not (seat.autopilot or seat.timeouts_in_row):
        return False
    seat.autopilot = False
    seat.timeouts_in_row = 0
    seat.save(update_fields=["autopilot", "timeouts_in_row"])
    return True


def abandon_match(*, match_id: uuid.UUID) -> Match:
    """Stop a match that cannot go on; its log stays for review."""
    with changing(match_id) as unit:
        if unit.match.status in (
            MatchStatus.FINISHED, MatchStatus.ABANDONED, MatchStatus.CANCELLED
        ):
            raise MatchNotActive()
        unit.end(MatchStatus.ABANDONED)
    return unit.match


def record_deal_analysis(*, deal_id: int, result: dict[str, Any]) -> None:
    """Record the analysis of the ended deal ``deal_id`` (once: a copy of the task finds it done)
    under its match's lock, as every change of a match (its platform's `deal.analysed` webhook
    takes its place in the match's sequence); once committed, the match's live streams send
    `analysis_ready`. An analysis of a match whose cards are sealed is announced nowhere: its
    summary is judged from every hand (it is read once the seal is over)."""
    match_id, sequence = Deal.objects.filter(pk=deal_id).values_list(
        "match_id", "sequence").get()
    with transaction.atomic():
        match = lock(match_id)
        analysis = DealAnalysis.objects.select_for_update().filter(
            deal_id=deal_id, status=AnalysisStatus.QUEUED).first()
        if analysis is None:
            return
        analysis.status = AnalysisStatus.DONE
        analysis.result = result
        analysis.partial = bool(result["partial"])
        analysis.finished_at = timezone.now()
        analysis.save(update_fields=["status", "result", "partial", "finished_at"])
        if access.cards_sealed(match):
            return
        follow_ups.tell([follow_ups.DealAnalysed(
            match_id=str(match.id), version=match.version, circle_id=match.circle_id,
            traceparent=traces.traceparent(), sequence=sequence, result=result,
        )])
        ready = presenters.analysis_ready(match_id, sequence, result)
        transaction.on_commit(lambda: notify.announce_analysis(match_id, ready))
