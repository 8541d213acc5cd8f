"""What the service counts as matches are played, for Prometheus (batak_api/metrics.py serves
it). Names follow Prometheus's conventions: a `batak_` prefix, units in the name, `_total` on
counters. Scaled out, every process writes its own values to PROMETHEUS_MULTIPROC_DIR and a
scrape sums them (gauges by `livesum`: only live processes count).

Every label takes its values from a closed set the code defines (`closed`): each value makes a
series, kept for the process's life, so a value taken from a request (a made-up method, a path)
would let anyone grow the metrics without bound. A value outside its set is counted as `other`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from prometheus_client import Counter, Gauge, Histogram
from prometheus_client.metrics import MetricWrapperBase

if TYPE_CHECKING:
    pass

# The value of a label that was none of its set's.
OTHER = "other"

Metric = TypeVar("Metric", bound=MetricWrapperBase)
# A label's values: a set, or what makes it once the service is set up (the models' choices,
# the URL patterns), read at the first use.
Values = Collection[str] | Callable[[], Collection[str]]


class Closed(Generic[Metric]):
    """A metric whose labels take values only from the closed sets given by name: what
    `labels` is given outside its label's set is counted as `other`."""

    # Every closed metric, by the metric it closes (tests/api/test_metrics.py asserts that
    # every metric of the service with labels is among them).
    every: ClassVar[dict[MetricWrapperBase, Closed[Any]]] = {}

    def __init__(self, metric: Metric, **values: Values) -> None:
        if tuple(values) != metric._labelnames:
            raise ValueError(f"{metric._name}: values for {metric._labelnames}, in that order")
        self._metric = metric
        self._values = values
        self._sets: dict[str, frozenset[str]] = {}
        Closed.every[metric] = self

    def allowed(self, label: str) -> frozenset[str]:
        known = self._sets.get(label)
        if known is None:
            given = self._values[label]
            known = self._sets[label] = frozenset(given() if callable(given) else given)
        return known

    def labels(self, **given: str) -> Metric:
        return self._metric.labels(**{
            label: value if value in self.allowed(label) else OTHER
            for label, value in given.items()
        })


def closed(metric: Metric, **values: Values) -> Closed[Metric]:
    return Closed(metric, **values)


def _choices(name: str) -> Callable[[], list[str]]:
    """The values of a model's choices (games/models.py), once the models can be imported."""

    def values() -> list[str]:
        from games import models

        return list(getattr(models, name).values)

    return values


MOVES = closed(Counter(
    "batak_moves_total", "Moves applied, by game and by who made them: `player` (the seat's "
    "own, a person or a computer seat), `timeout` (the stand-in, as the turn clock ran out), "
    "`autopilot` or `stand_in` (after the person left).", ["game", "origin"],
), game=_choices("GameChoice"), origin=_choices("ActionOrigin"))
COMPUTER_TURN_WAIT = Histogram(
    "batak_computer_turn_wait_seconds", "From the computer players' turn coming up (the move "
    "before it committed) to a worker taking it up: once a run of their moves in a row.",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
OPEN_WAITS = closed(Gauge(
    "batak_open_waits", "Requests that wait, open now: live streams (`streams`) and event-feed "
    "long polls (`long_polls`).", ["kind"], multiprocess_mode="livesum",
), kind=("streams", "long_polls"))


def count_move(event: Any) -> None:
    """Count the move a match's change made (a handler of games/follow_ups.py, after commit:
    a move rolled back was never made); ``event`` a `MatchProgressed`."""
    if event.origin is not None:
        MOVES.labels(game=event.game, origin=event.origin).inc()
