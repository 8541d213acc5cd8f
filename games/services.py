"""Every write to matches goes through here: views, admin, bots and tests call these functions.

Each action runs in one transaction that locks the match row, rebuilds the current deal from
its log, lets the engine validate and apply the action, appends it to the log, bumps the match
version and, once committed, hands the next turn to the computer players if it is theirs.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import secrets
import uuid
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import prefetch_related_objects
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerUnavailable

from games import clock, engine, notify, selectors, signals, snapshots
from games.computer_players import computer_players
from games.engine.shuffle import deck_commitment, new_salt, secure_choice
from games.errors import (
    ActionRefused,
    AlreadySeated,
    IdempotencyKeyInUse,
    IdempotencyKeyReused,
    InvalidMatch,
    InvalidRules,
    InvitationRequired,
    MatchNotActive,
    MatchNotFound,
    NotYourSeat,
    PersonSeatRequired,
    SeatUnavailable,
    StaleVersion,
    TooManyBotDeals,
    TooManyMatches,
)
from games.models import (
    Action,
    ActionOrigin,
    BotLevel,
    Deal,
    DealStatus,
    IdempotencyRecord,
    Match,
    MatchStatus,
    Seat,
    Visibility,
)


@dataclasses.dataclass(frozen=True)
class SeatSpec:
    """How a seat is filled when a match is created: by its creator, by the person ``user``
    (a platform seats its players), left open for another person, or taken by a computer
    player of ``bot_level`` (playing as the story ``character``, if one is named)."""

    kind: str  # "me", "person", "open" or "bot"
    bot_level: str = ""
    display_name: str = ""
    user: AbstractBaseUser | None = None
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


BOT_NAMES = {BotLevel.EASY: "Easy bot", BotLevel.MEDIUM: "Medium bot", BotLevel.HARD: "Hard bot",
             BotLevel.EXPERT: "Expert bot"}
# The computer player that moves for a person whose clock ran out, who is on autopilot or who
# left: quick, and a fair stand-in for a person.
STAND_IN_LEVEL = BotLevel.MEDIUM
# Marks "the creator named no clock": None is a clock of its own (none at all).
DEFAULT_CLOCK: Any = object()

# A person's or a spectator's `last_seen` is written at most this often: a client polling its
# view several times a second costs one write every few seconds, not one per read.
PRESENCE_WRITE_SECONDS = 5

logger = logging.getLogger(__name__)


def create_match(
    *,
    user: AbstractBaseUser,
    game: str,
    rules: dict[str, Any] | None = None,
    deal_count: int,
    seats: Sequence[SeatSpec],
    visibility: str = Visibility.PRIVATE,
    clock_seconds: dict[str, int] | None = DEFAULT_CLOCK,
    leave_forfeits: bool = False,
    fill_bots_at: Any = None,
    fill_bots_level: str = "",
    limits: AccountLimits | None = None,
) -> Match:
    """A new match; it starts at once when no seat is open. A private match with open seats
    gets an invitation code; ``fill_bots_at`` (quick match) is when its still open seats go
    to computer players of ``fill_bots_level``."""
    try:
        table = engine.TableRules.create(game, **(rules or {}))
    except engine.RuleError as error:
        raise InvalidRules.from_rule_error(error) from None
    if not 1 <= deal_count <= engine.MAX_DEALS:
        raise InvalidMatch(field="deals")
    people = [spec.user.pk for spec in seats if spec.kind == "person" and spec.user is not None]
    if (
        len(seats) != 4
        or sum(spec.kind == "me" for spec in seats) > 1
        or len(set(people)) != sum(spec.kind == "person" for spec in seats)
        or (user.pk in people and any(spec.kind == "me" for spec in seats))
    ):
        raise InvalidMatch(field="seats")
    bot_seats = sum(spec.kind == "bot" for spec in seats)
    if bot_seats == 4 and not user.has_perm("games.play_bot_only_matches"):
        raise PersonSeatRequired()
    open_seats = sum(spec.kind == "open" for spec in seats)
    # Open seats that computer players will take (quick match) count as theirs already.
    future_bots = bot_seats + (open_seats if fill_bots_at is not None else 0)
    _check_account_limits(user, limits or AccountLimits.default(),
                          new_bot_deals=future_bots * deal_count)
    match_clock = (
        clock.default_clock(list(seats)) if clock_seconds is DEFAULT_CLOCK else clock_seconds
    )
    with transaction.atomic():
        match = Match.objects.create(
            game=table.game.value,
            rules=table.to_dict(),
            deal_count=deal_count,
            first_dealer=secure_choice(4),
            totals=[0, 0, 0, 0],
            created_by=user,
            visibility=visibility,
            invitation_code=(
                new_invitation_code()
                if visibility == Visibility.PRIVATE and open_seats else None
            ),
            open_seats=open_seats,
            table_key=selectors.table_key(table, deal_count, match_clock),
            clock=match_clock,
            leave_forfeits=leave_forfeits,
            fill_bots_at=fill_bots_at if open_seats else None,
            fill_bots_level=fill_bots_level,
        )
        for index, spec in enumerate(seats):
            Seat.objects.create(
                match=match,
                index=index,
                user=user if spec.kind == "me" else spec.user if spec.kind == "person" else None,
                bot_level=spec.bot_level if spec.kind == "bot" else "",
                display_name=spec.display_name or _default_name(spec, user),
                character=spec.character if spec.kind == "bot" else "",
            )
        start_if_full(match)
    return match


def _check_account_limits(
    user: AbstractBaseUser, limits: AccountLimits, *, new_bot_deals: int
) -> None:
    """No account keeps more than ``limits.matches`` matches waiting or in play, nor more
    than ``limits.bot_deals`` deals of computer players in them (a seat's deals: a 4-deal
    match against three computer players is 12)."""
    unfinished = selectors.unfinished_matches_of(user)
    if len(unfinished) >= limits.matches:
        raise TooManyMatches(limit=limits.matches)
    in_flight = sum(bots * deals for bots, deals in unfinished)
    if in_flight + new_bot_deals > limits.bot_deals:
        raise TooManyBotDeals(limit=limits.bot_deals)


def _default_name(spec: SeatSpec, user: AbstractBaseUser) -> str:
    if spec.kind == "bot":
        return BOT_NAMES[BotLevel(spec.bot_level)]
    if spec.kind == "me":
        return selectors.display_name(user)
    if spec.kind == "person" and spec.user is not None:
        return selectors.display_name(spec.user)
    return ""


def new_invitation_code() -> str:
    return secrets.token_urlsafe(12)


def join_match(
    *,
    match_id: uuid.UUID,
    user: AbstractBaseUser,
    seat: int | None = None,
    invitation: str | None = None,
) -> Seat:
    """Take an open seat (the lowest one when ``seat`` is None): of a public match, or of a
    private one with its current ``invitation`` code."""
    with transaction.atomic():
        match = lock(match_id)
        if match.visibility == Visibility.PRIVATE and (
            invitation is None or invitation != match.invitation_code
        ):
            raise InvitationRequired()
        return take_seat(match, user, seat)


def take_seat(match: Match, user: AbstractBaseUser, seat: int | None) -> Seat:
    """Seat ``user`` at ``match`` (locked by the caller); starts it when the last seat goes."""
    seats = list(match.seats.order_by("index"))
    if any(s.user_id == user.pk for s in seats):
        raise AlreadySeated()
    open_seats = [s for s in seats if s.is_open and (seat is None or s.index == seat)]
    if match.status != MatchStatus.WAITING or not open_seats:
        raise SeatUnavailable()
    _check_account_limits(user, AccountLimits.default(), new_bot_deals=0)
    chosen = open_seats[0]
    chosen.user = user
    chosen.display_name = selectors.display_name(user)
    chosen.last_seen = timezone.now()
    chosen.save(update_fields=["user", "display_name", "last_seen"])
    match.open_seats -= 1
    # A taken seat changes what the match shows without a new version: `updated_at` tells
    # the readers (see `selectors._consistent`).
    match.save(update_fields=["open_seats", "updated_at"])
    start_if_full(match)
    return chosen


def submit_action(
    *,
    match_id: uuid.UUID,
    action: engine.Action,
    user: AbstractBaseUser | None = None,
    seat: int | None = None,
    expected_version: int | None = None,
    idempotency: Idempotency | None = None,
) -> ActionResult:
    """Apply ``action`` at ``user``'s own seat (found under the match lock, the person's
    presence noted), or, with no user, at the computer player's ``seat``. Raises a
    `ServiceError` and changes nothing but the presence when the action is refused."""
    # The person's seat as found under the lock, and when it was last seen: their presence is
    # written after the transaction, so that a refused action counts too.
    seated: list[tuple[Seat, Any]] = []
    try:
        return _submit_action(
            match_id=match_id, seat=seat, action=action, user=user,
            expected_version=expected_version, idempotency=idempotency, seated=seated,
        )
    except IntegrityError:
        if idempotency is None:
            raise
        # Another request with the same key (for this match or another) committed its record
        # first: this one's action is rolled back with the record it tried to write.
        raise IdempotencyKeyInUse() from None
    finally:
        if user is not None and seated:
            seat_row, last_seen = seated[0]
            seat_row.last_seen = last_seen
            seen(seat_row)


def _submit_action(
    *,
    match_id: uuid.UUID,
    seat: int | None,
    action: engine.Action,
    user: AbstractBaseUser | None,
    expected_version: int | None,
    idempotency: Idempotency | None,
    seated: list[tuple[Seat, Any]],
) -> ActionResult:
    with transaction.atomic():
        match = lock_active(match_id)
        if idempotency is not None:
            record = IdempotencyRecord.objects.filter(
                user_id=idempotency.user_id, key=idempotency.key
            ).first()
            if record is not None:
                if record.fingerprint != idempotency.fingerprint:
                    raise IdempotencyKeyReused()
                return ActionResult(view=record.body, replayed=True)
        seat_row = _acting_seat(match, user, seat)
        seated.append((seat_row, seat_row.last_seen))
        if user is not None:
            # The answer shows the mover as they are once it is sent: seen now.
            seat_row.last_seen = timezone.now()
        seat = seat_row.index
        if match.status != MatchStatus.ACTIVE:
            raise MatchNotActive()
        if expected_version is not None and expected_version != match.version:
            raise StaleVersion(current_version=match.version)
        if user is not None:
            # A person's own move takes their seat back from the autopilot.
            seat_is_back(seat_row)
        deals, state = _state(match, snapshots.take(match.id, match.version))
        deals, current = _apply(match, deals, state, seat, action)
        view = selectors.seat_view(match, seat, deals=deals, current=current)
        if idempotency is not None:
            IdempotencyRecord.objects.create(
                user_id=idempotency.user_id,
                key=idempotency.key,
                fingerprint=idempotency.fingerprint,
                status_code=200,
                body=view,
            )
        if user is not None:
            # A bot's own task goes on playing the following bot turns itself.
            schedule_bots_on_commit(match, current)
    return ActionResult(view=view)


def _acting_seat(match: Match, user: AbstractBaseUser | None, seat: int | None) -> Seat:
    if user is None:
        seat_row = _seat(match, seat) if seat is not None else None
        if seat_row is None or not seat_row.is_bot:
            raise NotYourSeat()
        return seat_row
    seat_row = selectors.seat_of(match, user)
    if seat_row is None or seat_row.left_at is not None or seat not in (None, seat_row.index):
        raise NotYourSeat()
    return seat_row


def play_bot_turn(
    *,
    match_id: uuid.UUID,
    version: int,
    choose: Callable[[engine.Observation, Seat], engine.Action],
) -> int | None:
    """Let the computer player whose turn it is at ``version`` move; returns the new version.

    ``choose(observation, seat)`` decides from the seat's observation (the seat row tells what
    the player plays as), outside any transaction: a search that thinks for seconds holds no
    lock, so no other match (on SQLite, no other write at all) waits for it. The move is then
    applied under the match lock only if the match is still at ``version``, so it applies to
    exactly the state it was decided on. Returns None, changing nothing, when the match is not
    (or no longer) at ``version`` or no bot is to act: a duplicate or late task can never move
    twice, and a stale decision is dropped (whoever moved the match on carries it further).
    """
    taken = snapshots.take(match_id, version)
    # The state the move that made this version left, if this process made it.
    current = taken if taken is not None and taken.version == version else None
    seat = None
    if current is not None:
        # Decided on with no read. Who plays a seat can change at one version (a person
        # leaving or coming back), so it is trusted only to say a computer player is to act,
        # and that is checked under the lock.
        match, deals, deal = current.match, current.deals, current.state
        seat = selectors.bot_seat(match, deal)
    if seat is None:
        fresh = Match.objects.prefetch_related("seats").filter(pk=match_id).first()
        if fresh is None or fresh.status != MatchStatus.ACTIVE or fresh.version != version:
            return None
        match = fresh
        if current is None:
            deals, deal = _state(match, taken)
            if deals[0].status != DealStatus.IN_PROGRESS:  # a move came between the two reads
                return None
        seat = selectors.bot_seat(match, deal)
        if seat is None:
            if current is not None:
                # Only a state taken at this version: read without the lock, the deals could
                # already hold a later move.
                snapshots.give_back(snapshots.Snapshot(deals, deal, match))
            return None
    action = choose(deal.observation(seat), _seat(match, seat))
    with transaction.atomic():
        try:
            locked = lock_active(match_id)
        except MatchNotFound:
            return None
        if locked.status != MatchStatus.ACTIVE or locked.version != version:
            return None
        seat_row = _seat(locked, seat)
        if not seat_row.computer_plays:  # its person came back while the bot was thinking
            snapshots.give_back(snapshots.Snapshot(deals, deal, locked))
            return None
        # Every write to a match moves its version on: at the same version, the deals read and
        # replayed before the decision are still what the rows say, so the move applies to them.
        _apply(locked, deals, deal, seat, action, origin=seat_row.origin)
    return locked.version


def time_out_turn(
    *,
    match_id: uuid.UUID,
    version: int,
    choose: Callable[[engine.Observation, Seat], engine.Action],
) -> int | None:
    """The person to act at ``version`` ran out of time: a STAND_IN_LEVEL computer player
    moves for them, recorded as a timeout; after AUTOPILOT_AFTER_TIMEOUTS in a row the seat
    goes on autopilot. Returns the new version, or None, changing nothing, unless the match is
    still at ``version`` with its deadline passed: a clock fires at most once per turn, and
    never after the move was made."""
    with transaction.atomic():
        try:
            match = lock_active(match_id)
        except MatchNotFound:
            return None
        now = timezone.now()
        if (
            match.status != MatchStatus.ACTIVE
            or match.version != version
            or match.turn_deadline is None
            or match.turn_deadline > now
        ):
            return None
        deals, deal = _state(match, snapshots.take(match.id, version))
        if deal.to_act is None:
            return None
        seat_row = _seat(match, deal.to_act)
        if seat_row.computer_plays:  # a computer player is to act: no clock is running
            snapshots.give_back(snapshots.Snapshot(deals, deal, match))
            return None
        # The stand-in decides in milliseconds (Medium), so under the lock.
        action = choose(deal.observation(deal.to_act), seat_row)
        seat_row.timeouts_in_row += 1
        if seat_row.timeouts_in_row >= settings.AUTOPILOT_AFTER_TIMEOUTS:
            seat_row.autopilot = True
        seat_row.save(update_fields=["timeouts_in_row", "autopilot"])
        logger.info(
            "turn clock ran out",
            extra={"match_id": str(match_id), "seat": seat_row.index,
                   "late_seconds": (now - match.turn_deadline).total_seconds()},
        )
        deals, current = _apply(
            match, deals, deal, seat_row.index, action, origin=ActionOrigin.TIMEOUT
        )
        schedule_bots_on_commit(match, current)
    return match.version


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
    with transaction.atomic():
        match = lock(match_id)
        if match.status in (MatchStatus.FINISHED, MatchStatus.ABANDONED, MatchStatus.CANCELLED):
            raise MatchNotActive()
        abandon_locked(match)
    return match


def abandon_locked(match: Match) -> None:
    match.status = MatchStatus.ABANDONED
    match.finished_at = timezone.now()
    match.turn_deadline = None
    match.invitation_code = None
    match.fill_bots_at = None
    match.version += 1
    match.save()
    announce_on_commit(match)


def lock(match_id: uuid.UUID) -> Match:
    try:
        return Match.objects.select_for_update().get(pk=match_id)
    except (Match.DoesNotExist, ValueError):
        raise MatchNotFound() from None


def lock_active(match_id: uuid.UUID) -> Match:
    """`lock`, with the seats loaded (read after the lock, so as its holder left them): one
    query serves every later look-up of the action."""
    match = lock(match_id)
    prefetch_related_objects([match], "seats")
    return match


def _state(match: Match, snapshot: snapshots.Snapshot | None) -> tuple[list[Deal], engine.Deal]:
    """The latest deals of the active ``match`` and the current deal's engine state: from the
    snapshot this process kept (brought up to date if it is older), or else read and
    replayed."""
    if snapshot is not None and (
        snapshot.version == match.version or _catch_up(match, snapshot)
    ):
        return snapshot.deals, snapshot.state
    deals = selectors.latest_deals(match)
    return deals, selectors.replay_deal(match, deals[0])


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


def _seat(match: Match, index: int) -> Seat:
    return next(seat for seat in match.seats.all() if seat.index == index)


def _apply(
    match: Match,
    deals: list[Deal],
    deal: engine.Deal,
    seat: int,
    action: engine.Action,
    *,
    origin: str = ActionOrigin.PLAYER,
) -> tuple[list[Deal], engine.Deal | None]:
    """Apply ``action`` to ``deal`` (the replayed ``deals[0]``) and record it. Returns the
    latest deals and the current deal's engine state afterwards: a fresh deal when this action
    ended one, None when it ended the match."""
    deal_row = deals[0]
    try:
        deal.apply(seat, action)
    except engine.IllegalAction as error:
        raise ActionRefused(error) from None
    match.version += 1
    row = Action.objects.create(
        match=match,
        deal=deal_row,
        sequence=len(deal.log),
        version=match.version,
        seat=seat,
        kind=action.kind.value,
        payload={k: v for k, v in action.to_dict().items() if k != "kind"},
        origin=origin,
    )
    _record_progress(deal_row, deal)
    current: engine.Deal | None = deal
    ended = deal_row if deal.is_over else None
    if deal.is_over:
        next_row = _end_deal(match, deal_row, deal)
        deals = [deal_row] if next_row is None else [next_row, deal_row]
        current = None if next_row is None else engine.Deal(selectors.deal_start(match, next_row))
    match.turn_deadline = clock.deadline(match, current, timezone.now())
    # Only what an action changes: the rest of the row (the rules among it) stays as written.
    match.save(update_fields=selectors.MATCH_STATE)
    if current is not None:
        snapshots.keep_on_commit(match, deals, current)
    announce_on_commit(
        match, selectors.feed_event(row, bool(match.rules.get("partnership_dummy")))
    )
    signals.match_progressed.send(
        sender=Match, match=match, seat=seat, origin=origin, ended_deal=ended, current=current
    )
    return deals, current


def start_if_full(match: Match) -> None:
    if match.open_seats:
        return
    match.status = MatchStatus.ACTIVE
    # Nobody joins a full table: its invitation and the wait for computer players are over.
    match.invitation_code = None
    match.fill_bots_at = None
    deal_row = _deal(match, dealer=match.first_dealer, number=1)
    current = engine.Deal(selectors.deal_start(match, deal_row))
    prefetch_related_objects([match], "seats")
    match.turn_deadline = clock.deadline(match, current, timezone.now())
    match.save(update_fields=[
        "status", "invitation_code", "fill_bots_at", "turn_deadline", "updated_at"
    ])
    snapshots.keep_on_commit(match, [deal_row], current)
    signals.match_progressed.send(
        sender=Match, match=match, seat=None, origin=None, ended_deal=None, current=current
    )
    schedule_bots_on_commit(match, current)


def _deal(match: Match, *, dealer: int, number: int) -> Deal:
    rules = selectors.table_rules(match)
    start = engine.DealStart.shuffle(rules, dealer, number)
    assert start.deck is not None
    deck_text = " ".join(str(engine.Card(index)) for index in start.deck)
    salt = new_salt()
    sequence = match.deals.count() + 1
    return Deal.objects.create(
        match=match,
        sequence=sequence,
        number=number,
        dealer=dealer,
        deck=deck_text.split(),
        salt=salt,
        commitment=deck_commitment(deck_text, salt),
        hands=start.to_dict()["hands"],
    )


def _record_progress(deal_row: Deal, deal: engine.Deal) -> None:
    """Copy what the engine now knows about the contract and tricks onto the deal row (for
    listings and review), writing only when something changed: most cards change nothing."""
    progress = _progress(deal)
    changed = [name for name, value in progress.items() if getattr(deal_row, name) != value]
    for name in changed:
        setattr(deal_row, name, progress[name])
    if changed and not deal.is_over:  # an ended deal is saved whole by `_end_deal`
        deal_row.save(update_fields=changed)


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


def _end_deal(match: Match, deal_row: Deal, deal: engine.Deal) -> Deal | None:
    """Record the end of a deal and deal the next one; None when that was the match's last."""
    deal_row.finished_at = timezone.now()
    if deal.phase == engine.Phase.REDEALT:
        deal_row.status = DealStatus.REDEALT
    else:
        assert deal.score is not None
        deal_row.status = DealStatus.FINISHED
        deal_row.scores = list(deal.score.points)
        deal_row.outcomes = [outcome.value for outcome in deal.score.outcomes]
        match.totals = [a + b for a, b in zip(match.totals, deal.score.points, strict=True)]
    deal_row.save()
    finished = match.deals.filter(status=DealStatus.FINISHED).count()
    if finished == match.deal_count:
        match.status = MatchStatus.FINISHED
        match.finished_at = timezone.now()
        match.ranking = list(
            engine.ranking(
                match.totals, deal.tricks_won, partnership=deal.rules.is_partnership
            )
        )
        return None
    dealer, number = engine.following_deal(
        deal.rules, deal_row.dealer, deal_row.number, deal.phase == engine.Phase.REDEALT
    )
    return _deal(match, dealer=dealer, number=number)


def announce_on_commit(match: Match, event: dict[str, Any] | None = None) -> None:
    """Once committed, announce the match's new version, made by the action ``event`` (as the
    feed lists it) or by none: it wakes the feed's long polls and live streams
    (games/notify.py)."""
    match_id, version, status = match.id, match.version, match.status
    transaction.on_commit(
        lambda: notify.announce(match_id, version, status=status, event=event)
    )


def schedule_bots_on_commit(match: Match, current: engine.Deal | None) -> None:
    """Once the transaction commits, send a task to play the computer players' turns that
    follow, if a computer player is to act in ``current`` (the current deal's engine state)."""
    if match.status != MatchStatus.ACTIVE or current is None:
        return
    if selectors.bot_seat(match, current) is None:
        return
    match_id, version = str(match.id), match.version
    transaction.on_commit(lambda: _send_bot_turns(match_id, version))


def _send_bot_turns(match_id: str, version: int) -> None:
    try:
        computer_players().send_turns(match_id, version)
    except BrokerUnavailable:
        # The move is committed: failing the request now would report an applied move as an
        # error. The sweeper (games/sweeper.py) sends the turn again once the broker is back.
        logger.warning(
            "bot turn not queued: broker unavailable",
            extra={"match_id": match_id, "version": version},
        )
