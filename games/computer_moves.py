"""The moves the service makes itself: a computer player's turn, and the stand-in's move for a
person whose turn clock ran out. Both go through the match's unit of work like a person's move;
the bots' tasks and the clock sweep call them."""

from __future__ import annotations

import dataclasses
import logging
import uuid
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime
from typing import NamedTuple

from django.conf import settings
from django.utils import timezone

from games import engine, selectors, snapshots
from games.errors import MatchNotFound
from games.match_unit import MatchUnit, Unkept, changing, changing_kept
from games.metrics import COMPUTER_TURN_WAIT
from games.models import ActionOrigin, BotLevel, Deal, DealStatus, Match, MatchStatus, Seat

# The computer player that moves for a person whose clock ran out, who is on autopilot or who
# left: quick, and a fair stand-in for a person.
STAND_IN_LEVEL = BotLevel.MEDIUM

logger = logging.getLogger(__name__)


class BotRun(NamedTuple):
    """A run of computer players' moves, committed."""

    version: int  # the match's, after it
    computer_to_act: bool  # whether a computer player is still to act (the next deal's lead)


def play_bot_turns(
    *,
    match_id: uuid.UUID,
    version: int,
    choose: Callable[[engine.Observation, Seat], engine.Action],
    enough: Callable[[], bool] = lambda: False,
) -> BotRun | None:
    """Let the computer players whose turn it is from ``version`` on move, as many in a row as
    the deal gives them, in one transaction; returns the new version and whether a computer
    player is still to act, as the change left them.

    Each move is decided by ``choose(observation, seat)`` from its own seat's observation (the
    seat row tells what the player plays as), on a copy of the deal played on by the moves
    decided before it, outside any transaction: a search that thinks for seconds holds no
    lock, so no other match (on SQLite, no other write at all) waits for it. The run ends at a
    person's turn, at the end of the deal (the next deal is dealt under the lock), or when
    ``enough()`` says so after a decision. The moves are then applied only if the match is
    still at ``version``, so they apply to exactly the state they were decided on, each its own
    action, version and event: on the state this process kept, when the turn was decided on
    it and does not end the deal, with a write guarded by the match row as kept
    (`changing_kept`), else, or when that fails, under the match lock. Returns None, changing
    nothing, when the match is not (or no longer) at ``version`` or no computer player is to
    act: a duplicate or late task can never move twice, and a stale decision is dropped
    (whoever moved the match on carries it further).
    """
    turn = _bot_turn(match_id, version)
    if turn is None:
        return None
    COMPUTER_TURN_WAIT.observe((timezone.now() - turn.came_up_at).total_seconds())
    moves, ends_deal = _decide(turn, choose, enough)
    try:
        if turn.kept is None or ends_deal:  # a deal's end writes its rows in the lock's order
            return _apply_run(changing(match_id, sends_bots=False), version, moves,
                              (turn.deals, turn.state))
        try:
            return _apply_run(changing_kept(match_id, version, taken=turn.kept,
                                            sends_bots=False), version, moves)
        except Unkept:
            # The kept state may be spent: the lock's unit reads the match afresh.
            return _apply_run(changing(match_id, sends_bots=False), version, moves)
    except MatchNotFound:
        return None


def _apply_run(
    unit_of_work: AbstractContextManager[MatchUnit],
    version: int,
    moves: list[tuple[int, engine.Action]],
    state: tuple[list[Deal], engine.Deal] | None = None,
) -> BotRun | None:
    """Apply ``moves``, decided at ``version``, if the match is still there (on ``state``,
    the deal rows and engine state they were decided on, when given)."""
    with unit_of_work as unit:
        if unit.match.status != MatchStatus.ACTIVE or unit.match.version != version:
            return None
        if state is not None:
            unit.use_state(*state)
        for seat, action in moves:
            seat_row = unit.seat(seat)
            if not seat_row.computer_plays:  # its person came back while the bots thought
                break
            unit.apply(seat, action, origin=seat_row.origin)
        if unit.match.version == version:
            return None
    return BotRun(unit.match.version, unit.computer_to_act)


def _decide(
    turn: _BotTurn,
    choose: Callable[[engine.Observation, Seat], engine.Action],
    enough: Callable[[], bool],
) -> tuple[list[tuple[int, engine.Action]], bool]:
    """The computer players' moves from ``turn`` on, each decided from its own seat's view of
    a look-ahead copy of the deal; and whether they end the deal."""
    ahead = turn.state.copy()
    moves: list[tuple[int, engine.Action]] = []
    while (seat := selectors.bot_seat(turn.match, ahead)) is not None:
        action = choose(ahead.observation(seat), selectors.seat_at(turn.match, seat))
        ahead.apply(seat, action)
        moves.append((seat, action))
        if ahead.is_over or enough():
            break
    return moves, ahead.is_over


@dataclasses.dataclass(frozen=True)
class _BotTurn:
    match: Match  # as read for the turn: its seats say who plays them
    deals: list[Deal]
    state: engine.Deal
    came_up_at: datetime  # the match's last change: the move before this turn
    kept: snapshots.Snapshot | None = None  # the state kept here, when the turn is of it


def _bot_turn(match_id: uuid.UUID, version: int) -> _BotTurn | None:
    """The computer players' turn at ``version``, read without a lock: from the state this
    process kept at exactly that version if it has it (no read), else from a read at that
    version. None when the match is not at ``version`` or no computer player is to act."""
    kept = snapshots.take(match_id, version)
    if kept is not None and kept.version == version:
        # Who plays a seat can change at one version (a person leaving or coming back): the
        # kept rows are trusted only to say a computer player is to act, checked again when
        # the moves are written (the seats read back with them, or under the lock).
        if selectors.bot_seat(kept.match, kept.state) is not None:
            return _BotTurn(kept.match, kept.deals, kept.state, kept.match.updated_at, kept)
        snapshots.give_back(kept)
    with selectors.reading_together():
        match = Match.objects.prefetch_related("seats").filter(pk=match_id).first()
        if match is None or match.status != MatchStatus.ACTIVE or match.version != version:
            return None
        deals = selectors.latest_deals(match)
        if deals[0].status != DealStatus.IN_PROGRESS:  # a move came between the two reads
            return None
        state = selectors.replay_deal(match, deals[0])
    if selectors.bot_seat(match, state) is None:
        return None
    return _BotTurn(match, deals, state, match.updated_at)


def time_out_turn(
    *,
    match_id: uuid.UUID,
    version: int,
    choose: Callable[[engine.Observation, Seat], engine.Action],
) -> int | None:
    """The person to act at ``version`` ran out of time: the stand-in moves for them
    (`time_out_due`). Returns the new version, or None, changing nothing, unless the match is
    still at ``version`` with its deadline passed: a clock fires at most once per turn, and
    never after the move was made."""
    try:
        with changing(match_id) as unit:
            if unit.match.version != version or time_out_due(unit, choose) is None:
                return None
            return unit.match.version
    except MatchNotFound:
        return None


def time_out_due(
    unit: MatchUnit, choose: Callable[[engine.Observation, Seat], engine.Action]
) -> int | None:
    """If the turn clock of the person to act in the unit's match has run out, a STAND_IN_LEVEL
    computer player moves for them, recorded as a timeout (after AUTOPILOT_AFTER_TIMEOUTS in a
    row the seat goes on autopilot): whichever comes first after the deadline, the clock
    sweep or an action of anyone at the table, makes it. Returns the seat, or None, changing
    nothing, when no clock has run out."""
    match = unit.match
    now = timezone.now()
    if (
        match.status != MatchStatus.ACTIVE
        or match.turn_deadline is None
        or match.turn_deadline > now
    ):
        return None
    state = unit.state
    if state is None or state.to_act is None:
        return None
    seat_row = unit.seat(state.to_act)
    if seat_row.computer_plays:  # a computer player is to act: no clock is running
        return None
    # The stand-in decides in milliseconds (Medium), so under the lock.
    action = choose(state.observation(state.to_act), seat_row)
    seat_row.timeouts_in_row += 1
    if seat_row.timeouts_in_row >= settings.AUTOPILOT_AFTER_TIMEOUTS:
        seat_row.autopilot = True
    seat_row.save(update_fields=["timeouts_in_row", "autopilot"])
    logger.info(
        "turn clock ran out",
        extra={"match_id": str(match.id), "seat": seat_row.index,
               "late_seconds": (now - match.turn_deadline).total_seconds()},
    )
    unit.apply(seat_row.index, action, origin=ActionOrigin.TIMEOUT)
    return seat_row.index
