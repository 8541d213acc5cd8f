"""Turn clocks: how long the person to act has, and when their time runs out.

A match's ``clock`` gives seconds per call (`bid`: bids, passes, trumps, announcements and a
weak-hand redeal request) and per card. After every change of turn the service layer stores
the deadline of the person to act on the match row (`Match.turn_deadline`), or none when a
computer player is to act, the match has no clock or it is over. Running the clocks
(`games.sweeper.run_clocks`) is a query for deadlines that have passed.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings

from games import engine, selectors
from games.models import Match, MatchStatus

MIN_SECONDS = 5
MAX_SECONDS = 600
CALL_PHASES = (engine.Phase.AUCTION, engine.Phase.TRUMP, engine.Phase.ANNOUNCEMENTS)


def default_clock(seats: list[Any]) -> dict[str, int] | None:
    """The clock a match gets when its creator names none: CLOCK_DEFAULT when more than one
    person may sit at it, none for one person against computer players (nobody waits)."""
    people = sum(spec.kind in ("me", "person", "open") for spec in seats)
    return dict(settings.CLOCK_DEFAULT) if people > 1 else None


def seconds_for(clock: dict[str, int], phase: engine.Phase) -> int:
    return clock["bid"] if phase in CALL_PHASES else clock["card"]


def deadline(match: Match, current: engine.Deal | None, now: datetime) -> datetime | None:
    """When the person to act in ``current`` (the current deal's state) runs out of time."""
    if match.clock is None or match.status != MatchStatus.ACTIVE or current is None:
        return None
    if current.to_act is None:
        return None
    seat = selectors.seat_at(match, current.to_act)
    if seat.computer_plays:
        return None
    return now + timedelta(seconds=seconds_for(match.clock, current.phase))

