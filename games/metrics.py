"""What the service counts as matches are played, for Prometheus (batak_api/metrics.py serves
it). Names follow Prometheus's conventions: a `batak_` prefix, units in the name, `_total` on
counters. Scaled out, every process writes its own values to PROMETHEUS_MULTIPROC_DIR and a
scrape sums them (gauges by `livesum`: only live processes count)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db import transaction
from prometheus_client import Counter, Gauge, Histogram

if TYPE_CHECKING:
    from games.models import Match

MOVES = Counter(
    "batak_moves_total", "Moves applied, by game and by who made them: `player` (the seat's "
    "own, a person or a computer seat), `timeout` (the stand-in, as the turn clock ran out), "
    "`autopilot` or `stand_in` (after the person left).", ["game", "origin"],
)
COMPUTER_TURN_WAIT = Histogram(
    "batak_computer_turn_wait_seconds", "From a computer player's turn coming up (the move "
    "before it committed) to a worker taking it up.",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
OPEN_WAITS = Gauge(
    "batak_open_waits", "Requests that wait, open now: live streams (`streams`) and event-feed "
    "long polls (`long_polls`).", ["kind"], multiprocess_mode="livesum",
)


def count_move(sender: type[Match], match: Match, origin: str | None, **_: Any) -> None:
    """A receiver of `games.signals.match_progressed`: counts the move once it is committed (a
    move rolled back was never made)."""
    if origin is not None:
        labels = MOVES.labels(game=match.game, origin=origin)
        transaction.on_commit(labels.inc)
