"""The embedded default's workers: what a Celery worker is sent when the service is scaled out,
the serving process runs on a lane, a queue with threads of its own (the periodic jobs have
their runner in batak_api/jobs.py). A lane shares its threads between accounts by the rule of
the workers' fair queues scaled out (runtime/fair_queue.py)."""

from __future__ import annotations

import collections
import logging
import threading
import time
from collections.abc import Hashable
from typing import Any

from django.conf import settings

from runtime import fair_queue, traces

logger = logging.getLogger(__name__)

# A lane's thread ends after this long without work, and starts again with the next.
LANE_IDLE_SECONDS = 5.0


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
        # (task, args, traceparent) by account
        self._order: fair_queue.FairOrder[tuple[str, tuple[Any, ...], str]] = (
            fair_queue.FairOrder())
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

    def send(self, task: str, *args: Any, account: Hashable = None) -> None:
        """Run ``task`` (a dotted path) with ``args`` on one of this lane's threads, in
        ``account``'s share of them."""
        with self._changed:
            self._order.push(account, (task, args, traces.traceparent()))
            self._changed.notify()
            if len(self._order) > self._idle and self._running < self.threads:
                self._running += 1
                threading.Thread(target=self._run, daemon=True, name=self.name).start()

    def _run(self) -> None:
        from django.db import close_old_connections
        from django.utils.module_loading import import_string

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
                account, (task, args, traceparent), charged = taken
                self._under_way[account] += 1
            started = time.monotonic()
            try:
                with traces.carried_on(traceparent):
                    import_string(task)(*args)
            except Exception:  # the sweeps try again; a dead lane would stop every later item
                logger.exception("background work failed", extra={"lane": self.name, "task": task})
            finally:
                # As after a request: closed unless DATABASE_CONN_MAX_AGE keeps it (SQLite's
                # always are, being files: see the settings).
                close_old_connections()
                with self._changed:
                    self._order.done(account, charged, time.monotonic() - started)
                    self._under_way[account] -= 1
                    if not self._under_way[account]:
                        del self._under_way[account]
                    # The account's next work may wait for this thread's turn to end.
                    self._changed.notify_all()

    def _busy(self) -> set[Hashable]:
        """Accounts with as much work under way as they may have (held with the lock)."""
        limit = self.per_account
        return {account for account, count in self._under_way.items() if count >= limit}


LANES = {
    "computer-players": Lane("computer-players"),
    # Deliveries wait on receivers, not the CPU: as many at once as a webhook worker takes,
    # shared between platforms, each with at most its attempts at once under way (the rest of
    # a platform's storm waits here, not for the database in a thread).
    "webhooks": Lane("webhooks", threads_setting="WEBHOOK_WORKER_THREADS",
                     per_account_setting="WEBHOOK_PLATFORM_CONCURRENCY"),
    # The post-deal analysis, a few deals at a time (their searches run in processes of their
    # own at the lowest priority: bots/analysis.py), shared between accounts: one account's
    # flood holds all but one of them.
    "analysis": Lane("analysis", threads_setting="ANALYSIS_PROCESSES"),
}


def run_soon(lane: str, task: str, *args: Any, account: Hashable = None) -> None:
    """On the embedded default, what a worker would do: ``task`` with ``args``, on ``lane``, in
    ``account``'s share of it."""
    LANES[lane].send(task, *args, account=account)
