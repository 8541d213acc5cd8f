"""What follows a match's change, in one table: the handlers games/follow_ups.py runs once the
change is committed, in this order, each on its own (a failure never undoes the change nor stops
the next). The kept ones get their events through rows written with the change, so none is
missed; the others start what has a sweep of its own.

"""

from __future__ import annotations

from deal_sets import services as deal_sets
from games import account_stream, match_unit, metrics
from games.follow_ups import (
    Committed,
    DealAnalysed,
    Handler,
    MatchChanged,
    MatchProgressed,
    RatingsChanged,
)
from platforms import events as webhooks
from ratings import services as ratings
from ratings import statistics

FOLLOW_UPS = [
    # Within the change: a person's own stream has its events exactly when the change is.
    Handler("account_streams", (MatchProgressed, MatchChanged, RatingsChanged),
            account_stream.record, within=True),
    # First: the feed's long polls and the live streams wait for it.
    Handler("announce", (Committed,), match_unit.announce),
    Handler("metrics", (MatchProgressed,), metrics.count_move),
    # First of the kept: a match's `match.finished` goes before its `rating.changed`, told by
    # the ratings' handler after it.
    Handler("webhooks", (MatchProgressed, MatchChanged, DealAnalysed, RatingsChanged),
            webhooks.follow, kept=True, wants=webhooks.wants),
    Handler("ratings", (MatchProgressed,), ratings.follow, kept=True,
            wants=ratings.finished_rated),
    Handler("statistics", (MatchProgressed,), statistics.follow, kept=True,
            wants=statistics.finished),
    Handler("deal_sets", (MatchProgressed,), deal_sets.follow, kept=True,
            wants=deal_sets.finished_a_deal),
    Handler("analysis", (Committed,), match_unit.send_analyses),
    # Last: on the embedded default a person's request plays the computer players' round
    # here, each of their moves a change followed in turn.
    Handler("computer_players", (Committed,), match_unit.send_computer_turns),
]
