"""What follows a change of a match, after it is committed, from one table of handlers.

A change (games/match_unit.py, games/rematch.py, an analysis recorded) `tell`s what happened as
events: plain facts as they were at the change (no model rows: a handler runs after commit,
maybe much later), written down only when a handler must never miss them. The handlers are the
table that `install` is given (batak_api/follow_ups.py, the one place that lists them), run in
its order once the change's transaction commits:
- each in a transaction of its own, its failure logged and counted: it never undoes the change
  (committed already) nor stops the handlers after it;
- a **kept** handler (the platforms' webhooks, ratings, players' records, deal sets) gets its
  events through a `FollowUp` row written in the change's own transaction when it wants them:
  it removes the row in the transaction of its work, so its work is done exactly once, in the
  order of the match's changes; a row left behind (the handler failed, the process stopped
  after the commit) is taken up by the periodic sweep (`resume`), later each time it fails;
- a handler **within** the change (the people's own streams) runs as the change is told, in
  its transaction: what it writes is part of the change, there exactly when the change is;
- the others (announcements, metrics, the post-deal analysis, the computer players' turns)
  are told in memory; what they start has a sweep or a resync of its own.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import timedelta
from typing import Any, ClassVar

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Max
from django.utils import timezone
from prometheus_client import Counter

from games.metrics import closed
from games.models import FollowUp
from runtime import traces

logger = logging.getLogger(__name__)


# --- events -------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Event:
    """What happened to a match, as it was then."""

    match_id: str
    version: int
    # The match's circle (a platform's matches have one), for those who follow only some.
    circle_id: int | None
    # The trace of the change (runtime/traces.py): what follows carries it on.
    traceparent: str

    kind: ClassVar[str] = ""


@dataclasses.dataclass(frozen=True)
class MatchProgressed(Event):
    """An action was applied, or the match started (``seat`` None) or finished (``seat`` and
    ``origin`` None, ``status`` finished)."""

    status: str
    game: str
    rated: bool
    totals: list[int]
    ranking: list[int] | None
    # Each seat: its account (None: a computer player), on autopilot, and whether its person
    # acts themselves (a person not played by the computer).
    seat_users: list[int | None]
    seat_autopilot: list[bool]
    seat_acts: list[bool]
    seat: int | None
    origin: str | None
    # The scored deal the action ended, if it ended one (its row no longer changes).
    ended_deal_id: int | None
    # The deal in play afterwards: who is to act, its number, phase and turn clock.
    to_act: int | None
    deal_number: int | None
    phase: str | None
    deadline: str | None

    kind: ClassVar[str] = "match_progressed"

    @property
    def finished(self) -> bool:
        return self.status == "finished" and self.seat is None and self.origin is None


@dataclasses.dataclass(frozen=True)
class MatchChanged(Event):
    """A change other than an action (`games.signals.MatchChange`): the start, an end
    unfinished, who plays a seat, a rematch."""

    status: str
    change: str
    totals: list[int]
    seat_users: list[int | None]
    seat: int | None
    # The account that held the seat before (that took it, for a seat taken; that offered a
    # rematch), else None.
    user_id: int | None
    # A rematch's offer as the API shows it (`rematch.offer_view`), and the new match's
    # id and seats' accounts once it started.
    rematch: dict[str, Any] | None = None
    new_match_id: str | None = None
    new_seat_users: list[int | None] | None = None

    kind: ClassVar[str] = "match_changed"


@dataclasses.dataclass(frozen=True)
class DealAnalysed(Event):
    """A scored deal's analysis was recorded (never while the match's cards are sealed)."""

    sequence: int
    result: dict[str, Any]

    kind: ClassVar[str] = "deal_analysed"


@dataclasses.dataclass(frozen=True)
class RatingsChanged(Event):
    """What a rated match did to its people's ratings: each change as the stream tells it,
    with its ``user_id`` and ``seat``."""

    changes: list[dict[str, Any]]

    kind: ClassVar[str] = "ratings_changed"


@dataclasses.dataclass(frozen=True)
class Committed(Event):
    """What the unit of work itself has sent once a change commits (games/match_unit.py): the
    new versions to announce (what `notify.announce` is told), whether the seats changed,
    whether the computer players are to act (and then each seat's `bot_level`, "" for a
    person's), the ended deals to analyse."""

    announcements: list[dict[str, Any]]
    seats_changed: bool
    computer_to_act: bool
    analyses: list[int]
    seat_levels: tuple[str, ...] = ()

    kind: ClassVar[str] = "committed"


_KINDS: dict[str, type[Event]] = {
    kind.kind: kind for kind in (MatchProgressed, MatchChanged, DealAnalysed, RatingsChanged,
                                 Committed)
}


def _encode(event: Event) -> dict[str, Any]:
    return {"kind": event.kind, **dataclasses.asdict(event)}


def _decode(data: dict[str, Any]) -> Event:
    fields = dict(data)
    return _KINDS[fields.pop("kind")](**fields)


# --- the table ----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Handler:
    """``run`` one event of the ``takes`` kinds; with ``kept``, only the events ``wants``
    says it wants, through a `FollowUp` row; ``within``: in the change's transaction."""

    name: str
    takes: tuple[type[Event], ...]
    run: Callable[[Any], None]
    kept: bool = False
    within: bool = False
    wants: Callable[[Any], bool] = lambda event: True

    def takes_event(self, event: Event) -> bool:
        return isinstance(event, self.takes) and self.wants(event)


_table: list[Handler] = []
# Where the database locks no rows (SQLite: the embedded default's one process is its only
# writer), a kept handler's rows of a match are taken by one thread at a time: one lock per
# handler and match, while they are being taken.
@dataclasses.dataclass
class _Taking:
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)
    users: int = 0  # the threads that hold or wait for it


_taking: dict[tuple[str, str], _Taking] = {}
_taking_lock = threading.Lock()
FAILURES = closed(Counter(
    "batak_follow_up_failures_total", "Handlers of what follows a match's change that failed "
    "(the change stands; a kept handler is tried again by the sweep), by handler.",
    ["handler"],
), handler=("announce", "metrics", "webhooks", "ratings", "statistics", "deal_sets",
            "analysis", "computer_players"))


def install(handlers: Sequence[Handler]) -> None:
    """The table, in the order its handlers run (batak_api/follow_ups.py)."""
    _table[:] = handlers


def tell(events: Iterable[Event]) -> None:
    """What a change did, told in its transaction (or outside one: at once): the rows of the
    kept handlers that want them are written now, and the handlers run once it commits."""
    told = list(events)
    if not told:
        return
    for handler in _table:
        if handler.within:
            for event in told:
                if handler.takes_event(event):
                    handler.run(event)
    rows = FollowUp.objects.bulk_create(
        FollowUp(match_id=match_id, handler=handler.name, events=[_encode(e) for e in wanted],
                 due_at=timezone.now() + timedelta(seconds=settings.FOLLOW_UP_RETRY_SECONDS))
        for handler in _table if handler.kept
        for match_id, wanted in _by_match([e for e in told if handler.takes_event(e)])
    )
    rows_of = {(row.handler, str(row.match_id)): row.pk for row in rows}
    transaction.on_commit(functools.partial(_run, told, rows_of))


def _by_match(events: list[Event]) -> list[tuple[str, list[Event]]]:
    matches: dict[str, list[Event]] = {}
    for event in events:
        matches.setdefault(event.match_id, []).append(event)
    return list(matches.items())


def _run(events: list[Event], rows_of: dict[tuple[str, str], int]) -> None:
    for handler in _table:
        try:
            if handler.within:
                continue
            if handler.kept:
                for (name, match_id), up_to in rows_of.items():
                    if name == handler.name:
                        _take(handler, match_id, up_to)
            else:
                for event in events:
                    if handler.takes_event(event):
                        handler.run(event)
        except Exception:  # the change stands, and the next handler runs
            logger.exception("a follow-up failed", extra={"handler": handler.name})
            FAILURES.labels(handler=handler.name).inc()


def _take(handler: Handler, match_id: str, up_to: int) -> None:
    """Run ``handler`` on its rows of ``match_id`` up to row ``up_to``, in order, and remove
    them, in one transaction; on a failure the rows stay, due again later."""
    with _one_at_a_time(handler.name, match_id):
        try:
            with transaction.atomic():
                rows = list(FollowUp.objects.select_for_update().filter(
                    match_id=match_id, handler=handler.name, pk__lte=up_to).order_by("pk"))
                for row in rows:
                    for data in row.events:
                        event = _decode(data)
                        with traces.carried_on(event.traceparent):
                            handler.run(event)
                FollowUp.objects.filter(pk__in=[row.pk for row in rows]).delete()
        except Exception:
            _later(match_id, handler.name, up_to)
            raise


@contextlib.contextmanager
def _one_at_a_time(handler: str, match_id: str) -> Iterator[None]:
    if connection.features.has_select_for_update:  # the rows' locks keep the takers apart
        yield
        return
    key = (handler, match_id)
    with _taking_lock:
        entry = _taking.setdefault(key, _Taking())
        entry.users += 1
    try:
        with entry.lock:
            yield
    finally:
        with _taking_lock:
            entry.users -= 1
            if not entry.users:
                del _taking[key]


def _later(match_id: str, handler: str, up_to: int) -> None:
    """A failed handler's rows are due again after a wait that doubles with each failure."""
    for row in FollowUp.objects.filter(match_id=match_id, handler=handler, pk__lte=up_to):
        row.attempts += 1
        wait = min(settings.FOLLOW_UP_RETRY_SECONDS * 2 ** row.attempts, 3600)
        row.due_at = timezone.now() + timedelta(seconds=wait)
        row.save(update_fields=["attempts", "due_at"])


def resume() -> int:
    """Run the kept handlers' rows that are due: left behind by a failure or a stopped process
    (a periodic job). Returns how many matches' rows were taken."""
    handlers = {handler.name: handler for handler in _table if handler.kept}
    due = (FollowUp.objects.filter(due_at__lte=timezone.now(), handler__in=list(handlers))
           .values("match_id", "handler").annotate(up_to=Max("pk")).order_by("up_to")[:200])
    taken = 0
    for row in list(due):
        try:
            _take(handlers[row["handler"]], str(row["match_id"]), row["up_to"])
            taken += 1
        except Exception:
            logger.exception("a follow-up failed again", extra={"handler": row["handler"]})
            FAILURES.labels(handler=row["handler"]).inc()
    return taken
