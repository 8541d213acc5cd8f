"""What `games` tells the apps above it without knowing them: how a match changed other than by
an action (`MatchChange`, told after commit through games/follow_ups.py), and the signals of an
account's erasure and export, sent in their transaction so that a receiver's writes commit or
roll back with them."""

from __future__ import annotations

from enum import StrEnum

from django.dispatch import Signal


class MatchChange(StrEnum):
    STARTED = "started"
    CANCELLED = "cancelled"  # ended before its start
    ABANDONED = "abandoned"  # ended in play, unfinished
    SEAT_TAKEN = "seat_taken"
    SEAT_LEFT = "seat_left"
    AUTOPILOT_ON = "autopilot_on"
    AUTOPILOT_OFF = "autopilot_off"  # the person acts again
    # After the finish (games/rematch.py), under the finished match's lock like every change,
    # so a match's followers get them after its end, in order.
    REMATCH_OFFERED = "rematch_offered"
    REMATCH_STARTED = "rematch_started"


# An account is being erased: sent in the erasure's transaction, the account row locked and not
# yet changed, after the person left every match waiting or in play. Arguments: `user`,
# `reason` (an `ErasureReason`). A receiver erases what its app keeps of the person.
account_erasing = Signal()

# A person's export is being written. Arguments: `user`. A receiver returns a dict of its
# sections (name: a JSON value, or an iterator of them written as a list as it goes).
personal_data = Signal()
