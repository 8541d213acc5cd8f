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
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import prefetch_related_objects
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerUnavailable

from games import engine, notify, selectors
from games.computer_players import computer_players
from games.engine.shuffle import deck_commitment, new_salt, secure_choice
from games.errors import (
    ActionRefused,
    AlreadySeated,
    IdempotencyKeyInUse,
    IdempotencyKeyReused,
    InvalidMatch,
    InvalidRules,
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
    BotLevel,
    Deal,
    DealStatus,
    IdempotencyRecord,
    Match,
    MatchStatus,
    Seat,
)


@dataclasses.dataclass(frozen=True)
class SeatSpec:
    """How a seat is filled when a match is created: by its creator, left open for another
    person, or taken by a computer player of ``bot_level``."""

    kind: str  # "me", "open" or "bot"
    bot_level: str = ""
    display_name: str = ""


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


BOT_NAMES = {BotLevel.EASY: "Easy bot", BotLevel.MEDIUM: "Medium bot", BotLevel.HARD: "Hard bot"}

logger = logging.getLogger(__name__)


def create_match(
    *,
    user: AbstractBaseUser,
    game: str,
    rules: dict[str, Any] | None = None,
    deal_count: int,
    seats: Sequence[SeatSpec],
) -> Match:
    try:
        table = engine.TableRules.create(game, **(rules or {}))
    except engine.RuleError as error:
        raise InvalidRules.from_rule_error(error) from None
    if not 1 <= deal_count <= engine.MAX_DEALS:
        raise InvalidMatch(field="deals")
    if len(seats) != 4 or sum(spec.kind == "me" for spec in seats) > 1:
        raise InvalidMatch(field="seats")
    bot_seats = sum(spec.kind == "bot" for spec in seats)
    if bot_seats == 4 and not user.has_perm("games.play_bot_only_matches"):
        raise PersonSeatRequired()
    _check_account_limits(user, new_bot_deals=bot_seats * deal_count)
    with transaction.atomic():
        match = Match.objects.create(
            game=table.game.value,
            rules=table.to_dict(),
            deal_count=deal_count,
            first_dealer=secure_choice(4),
            totals=[0, 0, 0, 0],
            created_by=user,
        )
        for index, spec in enumerate(seats):
            Seat.objects.create(
                match=match,
                index=index,
                user=user if spec.kind == "me" else None,
                bot_level=spec.bot_level if spec.kind == "bot" else "",
                display_name=spec.display_name or _default_name(spec, user),
            )
        _start_if_full(match)
    return match


def _check_account_limits(user: AbstractBaseUser, *, new_bot_deals: int) -> None:
    """No account keeps more than MAX_UNFINISHED_MATCHES matches waiting or in play, nor more
    than MAX_BOT_SEAT_DEALS deals of computer players in them (a seat's deals: a 4-deal match
    against three computer players is 12)."""
    unfinished = selectors.unfinished_matches_of(user)
    if len(unfinished) >= settings.MAX_UNFINISHED_MATCHES:
        raise TooManyMatches(limit=settings.MAX_UNFINISHED_MATCHES)
    in_flight = sum(bots * deals for bots, deals in unfinished)
    if in_flight + new_bot_deals > settings.MAX_BOT_SEAT_DEALS:
        raise TooManyBotDeals(limit=settings.MAX_BOT_SEAT_DEALS)


def _default_name(spec: SeatSpec, user: AbstractBaseUser) -> str:
    if spec.kind == "bot":
        return BOT_NAMES[BotLevel(spec.bot_level)]
    if spec.kind == "me":
        return selectors.display_name(user)
    return ""


def join_match(*, match_id: uuid.UUID, user: AbstractBaseUser, seat: int | None = None) -> Seat:
    """Take an open seat (the lowest one when ``seat`` is None)."""
    with transaction.atomic():
        match = _lock(match_id)
        seats = list(match.seats.order_by("index"))
        if any(s.user_id == user.pk for s in seats):
            raise AlreadySeated()
        open_seats = [s for s in seats if s.is_open and (seat is None or s.index == seat)]
        if match.status != MatchStatus.WAITING or not open_seats:
            raise SeatUnavailable()
        chosen = open_seats[0]
        chosen.user = user
        chosen.display_name = selectors.display_name(user)
        chosen.save(update_fields=["user", "display_name"])
        # A taken seat changes what the match shows without a new version: `updated_at` tells
        # the readers (see `selectors._consistent`).
        match.save(update_fields=["updated_at"])
        _start_if_full(match)
        return chosen


def submit_action(
    *,
    match_id: uuid.UUID,
    seat: int,
    action: engine.Action,
    user: AbstractBaseUser | None = None,
    expected_version: int | None = None,
    idempotency: Idempotency | None = None,
) -> ActionResult:
    """Apply ``action`` for ``seat``: for ``user``'s own seat, or, with no user, for a computer
    player's seat. Raises a `ServiceError` and changes nothing when the action is refused."""
    try:
        return _submit_action(
            match_id=match_id, seat=seat, action=action, user=user,
            expected_version=expected_version, idempotency=idempotency,
        )
    except IntegrityError:
        if idempotency is None:
            raise
        # Another request with the same key (for this match or another) committed its record
        # first: this one's action is rolled back with the record it tried to write.
        raise IdempotencyKeyInUse() from None


def _submit_action(
    *,
    match_id: uuid.UUID,
    seat: int,
    action: engine.Action,
    user: AbstractBaseUser | None,
    expected_version: int | None,
    idempotency: Idempotency | None,
) -> ActionResult:
    with transaction.atomic():
        match = _lock_active(match_id)
        if idempotency is not None:
            record = IdempotencyRecord.objects.filter(
                user_id=idempotency.user_id, key=idempotency.key
            ).first()
            if record is not None:
                if record.fingerprint != idempotency.fingerprint:
                    raise IdempotencyKeyReused()
                return ActionResult(view=record.body, replayed=True)
        seat_row = _seat(match, seat)
        if (user is None and not seat_row.is_bot) or (
            user is not None and seat_row.user_id != user.pk
        ):
            raise NotYourSeat()
        if match.status != MatchStatus.ACTIVE:
            raise MatchNotActive()
        if expected_version is not None and expected_version != match.version:
            raise StaleVersion(current_version=match.version)
        deals = selectors.latest_deals(match)
        deals, current = _apply(match, deals, selectors.replay_deal(match, deals[0]), seat, action)
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
            _schedule_bots_on_commit(match, current)
    return ActionResult(view=view)


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
    match = Match.objects.prefetch_related("seats").filter(pk=match_id).first()
    if match is None or match.status != MatchStatus.ACTIVE or match.version != version:
        return None
    deals = selectors.latest_deals(match)
    if deals[0].status != DealStatus.IN_PROGRESS:  # a move came between the two reads
        return None
    deal = selectors.replay_deal(match, deals[0])
    seat = selectors.bot_seat(match, deal)
    if seat is None:
        return None
    action = choose(deal.observation(seat), _seat(match, seat))
    with transaction.atomic():
        try:
            locked = _lock_active(match_id)
        except MatchNotFound:
            return None
        if locked.status != MatchStatus.ACTIVE or locked.version != version:
            return None
        # Every write to a match moves its version on: at the same version, the deals read and
        # replayed before the decision are still what the rows say, so the move applies to them.
        _apply(locked, deals, deal, seat, action)
    return locked.version


def abandon_match(*, match_id: uuid.UUID) -> Match:
    """Stop a match that cannot go on; its log stays for review."""
    with transaction.atomic():
        match = _lock(match_id)
        if match.status in (MatchStatus.FINISHED, MatchStatus.ABANDONED):
            raise MatchNotActive()
        match.status = MatchStatus.ABANDONED
        match.finished_at = timezone.now()
        match.version += 1
        match.save()
        _announce_on_commit(match)
    return match


def _lock(match_id: uuid.UUID) -> Match:
    try:
        return Match.objects.select_for_update().get(pk=match_id)
    except (Match.DoesNotExist, ValueError):
        raise MatchNotFound() from None


def _lock_active(match_id: uuid.UUID) -> Match:
    """`_lock`, with the seats loaded: they never change once a match is active, so one query
    serves every later look-up of the action."""
    match = _lock(match_id)
    prefetch_related_objects([match], "seats")
    return match


def _seat(match: Match, index: int) -> Seat:
    return next(seat for seat in match.seats.all() if seat.index == index)


def _apply(
    match: Match, deals: list[Deal], deal: engine.Deal, seat: int, action: engine.Action
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
    Action.objects.create(
        match=match,
        deal=deal_row,
        sequence=len(deal.log),
        version=match.version,
        seat=seat,
        kind=action.kind.value,
        payload={k: v for k, v in action.to_dict().items() if k != "kind"},
    )
    _record_progress(deal_row, deal)
    current: engine.Deal | None = deal
    if deal.is_over:
        next_row = _end_deal(match, deal_row, deal)
        deals = [deal_row] if next_row is None else [next_row, deal_row]
        current = None if next_row is None else engine.Deal(selectors.deal_start(match, next_row))
    # Only what an action changes: the rest of the row (the rules among it) stays as written.
    match.save(update_fields=selectors.MATCH_STATE)
    _announce_on_commit(match)
    return deals, current


def _start_if_full(match: Match) -> None:
    if match.seats.filter(user__isnull=True, bot_level="").exists():
        return
    match.status = MatchStatus.ACTIVE
    match.save(update_fields=["status", "updated_at"])
    deal_row = _deal(match, dealer=match.first_dealer, number=1)
    _schedule_bots_on_commit(match, engine.Deal(selectors.deal_start(match, deal_row)))


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
    progress = {
        "declarer": deal.declarer,
        "bid": deal.bid,
        "trump": deal.trump.letter if deal.trump is not None else "",
        "announcements": (
            list(deal.announcements) if deal.rules.spades_announcements else None
        ),
        "tricks": deal.tricks_won,
    }
    changed = [name for name, value in progress.items() if getattr(deal_row, name) != value]
    for name in changed:
        setattr(deal_row, name, progress[name])
    if changed and not deal.is_over:  # an ended deal is saved whole by `_end_deal`
        deal_row.save(update_fields=changed)


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


def _announce_on_commit(match: Match) -> None:
    # Wakes the event feed's long polls of this match (games/notify.py).
    match_id, version = match.id, match.version
    transaction.on_commit(lambda: notify.announce(match_id, version))


def _schedule_bots_on_commit(match: Match, current: engine.Deal | None) -> None:
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
