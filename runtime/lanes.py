"""The embedded default's executor: what a Celery worker is sent when the service is scaled out,
the serving process runs on a lane, a queue with threads of its own, and what is due later (a
retry, a clock's deadline, the next run of a periodic job) waits in the one scheduler until it
is handed to its lane. A lane shares its threads between accounts by the rule of the workers'
fair queues scaled out (runtime/fair_queue.py). The service defers work through
runtime/work.py, which picks the lane.
"""

from __future__ import annotations

import collections
import heapq
import logging
import threading
import time
from collections.abc import Callable, Container, Hashable
from typing import Any

from django.conf import settings

from runtime import fair_queue, traces

logger = logging.getLogger(__name__)

# A lane's thread ends after this long without work, and starts again with the next.
LANE_IDLE_SECONDS = 5.0
# A piece of work: a function, its arguments, the trace it was sent in.
_Work = tuple[Callable[..., Any], tuple[Any, ...], str]


class Lane:
    """Work of one kind, run by threads of this process that live while there is work: one,
    or as many as the setting ``threads_setting`` says. Kinds have lanes of their own so that
    one kind's slow work (a webhook receiver that answers slowly) never holds up another's (the
    computer players of a table with no person at it). Work is sent for an account (a
    platform's deliveries, a person's analyses), and the accounts share the threads fairly: the
    next work taken is the account's that used them least (runtime/fair_queue.py), so that one
    account's flood never holds up another account's work; an account's work is taken in the
    order it was sent, and work sent for no account is all one account's. Work sent in a trace
    carries on in it (its `traceparent` goes with it to the lane's thread)."""

    def __init__(self, name: str, threads_setting: str | None = None,
                 per_account_setting: str | None = None) -> None:
        self.name = name
        self._threads_setting = threads_setting
        self._per_account_setting = per_account_setting
        # Of the accounts with work under way: how much.
        self._under_way: collections.Counter[Hashable] = collections.Counter()
        # (function, args, traceparent) by account
        self._order: fair_queue.FairOrder[_Work] = fair_queue.FairOrder()
        self._changed = threading.Condition()
        self._running = 0
        self._idle = 0

    @property
    def threads(self) -> int:
        return getattr(settings, self._threads_setting) if self._threads_setting else 1

    @property
    def per_account(self) -> int:
        """How many of the threads one account's work may hold at once: the setting
        ``per_account_setting``, else all but one (so another account's work starts at once),
        else the one."""
        if self._per_account_setting:
            return int(getattr(settings, self._per_account_setting))
        return max(1, self.threads - 1)

    def send(self, function: Callable[..., Any], *args: Any, account: Hashable = None) -> None:
        """Run ``function`` with ``args`` on one of this lane's threads, in ``account``'s
        share of them."""
        with self._changed:
            self._order.push(account, (function, args, traces.traceparent()))
            self._changed.notify()
            if len(self._order) > self._idle and self._running < self.threads:
                self._running += 1
                threading.Thread(target=self._run, daemon=True, name=self.name).start()

    def _run(self) -> None:
        from django.db import close_old_connections

        _here.lane = self
        while True:
            with self._changed:
                self._idle += 1
                idle_until = time.monotonic() + LANE_IDLE_SECONDS
                while (taken := self._order.take(self._busy())) is None:
                    if time.monotonic() >= idle_until:
                        self._idle -= 1
                        self._running -= 1
                        return
                    self._changed.wait(idle_until - time.monotonic())
                self._idle -= 1
                account, (function, args, traceparent), charged = taken
                self._under_way[account] += 1
            started = time.monotonic()
            try:
                with traces.carried_on(traceparent):
                    function(*args)
            except Exception:  # the sweeps try again; a dead lane would stop every later item
                logger.exception("background work failed", extra={
                    "lane": self.name, "task": getattr(function, "__qualname__", repr(function)),
                })
            finally:
                # As after a request: closed unless DATABASE_CONN_MAX_AGE keeps it (SQLite's
                # always are, being files: see the settings). A database that is away must
                # not end the thread: its lane would count it running for ever.
                try:
                    close_old_connections()
                except Exception:
                    logger.warning("closing a lane's connections failed", exc_info=True)
                with self._changed:
                    self._order.done(account, charged, time.monotonic() - started)
                    self._under_way[account] -= 1
                    if not self._under_way[account]:
                        del self._under_way[account]
                    # The account's next work may wait for this thread's turn to end.
                    self._changed.notify_all()

    def discard(self, deadline: float) -> bool:
        """Drop the work waiting for a thread and wait for the work under way to end (until
        ``deadline``, `time.monotonic`, then TimeoutError), dropping what it sends here
        meanwhile: whether there was any. For tests (runtime/work.py's `stop_in_process`)."""
        with self._changed:
            had = bool(self._under_way) or len(self._order) > 0
            while True:
                self._order = fair_queue.FairOrder()
                if not self._under_way:
                    return had
                if not self._changed.wait(deadline - time.monotonic()):
                    raise TimeoutError(f"work still under way on the {self.name} lane")

    def waiting(self, excluding: Container[Hashable] = ()) -> bool:
        """Whether an account (not one of ``excluding``) has work waiting that a thread could
        take (one at its limit could not)."""
        with self._changed:
            busy = self._busy()
            return any(account not in excluding and account not in busy
                       for account in self._order.accounts())

    def _busy(self) -> set[Hashable]:
        """Accounts with as much work under way as they may have (held with the lock)."""
        limit = self.per_account
        return {account for account, count in self._under_way.items() if count >= limit}


_here = threading.local()


def on_a_lane() -> bool:
    """Whether this thread is a lane's: work running in the serving process, beside its
    requests."""
    return getattr(_here, "lane", None) is not None


class Scheduler:
    """What is due later, handed to its lane when it is due: one thread for all of it, however
    much waits, started with the first."""

    def __init__(self) -> None:
        # (monotonic time, order sent, lane, function, args, account), a heap
        self._due: list[tuple[float, int, Lane, Callable[..., Any], tuple[Any, ...],
                              Hashable]] = []
        self._sent = 0
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def at(self, when: float, lane: Lane, function: Callable[..., Any], args: tuple[Any, ...],
           account: Hashable) -> None:
        """Send ``function`` with ``args`` to ``lane``, in ``account``'s share, at ``when``
        (`time.monotonic`)."""
        with self._changed:
            self._sent += 1
            heapq.heappush(self._due, (when, self._sent, lane, function, args, account))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True, name="scheduler")
                self._thread.start()
            self._changed.notify()

    def discard(self) -> bool:
        """Drop everything that waits (for tests: runtime/work.py's `stop_in_process`):
        whether anything did."""
        with self._changed:
            had = bool(self._due)
            self._due.clear()
            return had

    def _run(self) -> None:
        while True:
            with self._changed:
                while not self._due or self._due[0][0] > time.monotonic():
                    self._changed.wait(self._due[0][0] - time.monotonic() if self._due else None)
                _, _, lane, function, args, account = heapq.heappop(self._due)
                # Sent under the lock: `discard` never misses one taken and not yet sent.
                lane.send(function, *args, account=account)


SCHEDULER = Scheduler()
