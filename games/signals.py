"""What happens in a match, for the apps that follow matches without `games` knowing them (the
partner platforms' webhooks): sent inside the transaction that makes the change, so that a
receiver's writes commit or roll back with it."""

from __future__ import annotations

from enum import StrEnum

from django.dispatch import Signal

# A match changed: an action was applied, or it started. Arguments:
#   match      the match row (seats prefetched), after the change;
#   seat       the seat that acted, or None when the match started;
#   origin     how the action was made (`ActionOrigin`), or None;
#   ended_deal the deal row the action ended, if it ended one;
#   current    the current deal's engine state afterwards (None once the match is over).
match_progressed = Signal()


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


# A match changed other than by an action: it started or ended unfinished, or who plays a seat
# changed. Arguments:
#   match    the match row (seats prefetched), after the change;
#   change   a `MatchChange`;
#   seat     the seat concerned (seat changes), else None;
#   user_id  the account that held the seat before a seat change (that took it, for
#            SEAT_TAKEN; that offered it, for a rematch), else None;
#   rematch  the `RematchOffer` (REMATCH_OFFERED, REMATCH_STARTED), else not sent.
match_changed = Signal()


# A scored deal's post-deal analysis was recorded (games.services.record_deal_analysis), under
# its match's lock; never sent while the match's cards are sealed (a deal set's table).
# Arguments:
#   match     the match row (seats prefetched);
#   analysis  the `DealAnalysis`, done;
#   sequence  the deal's `sequence`.
deal_analysed = Signal()

# An account is being erased: sent in the erasure's transaction, the account row locked and not
# yet changed, after the person left every match waiting or in play. Arguments: `user`,
# `reason` (an `ErasureReason`). A receiver erases what its app keeps of the person.
account_erasing = Signal()

# A person's export is being written. Arguments: `user`. A receiver returns a dict of its
# sections (name: a JSON value, or an iterator of them written as a list as it goes).
personal_data = Signal()
