"""The embedded default's workers: what a Celery worker is sent when the service is scaled out,
the serving process runs on a lane, a queue with threads of its own (the periodic jobs have
their runner in batak_api/jobs.py). A lane shares its threads between accounts by the rule of
the workers' fair queues scaled out (games/fair_queue.py)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Hashable
from typing import Any

from django.conf import settings

from games import fair_queue, traces

logger = logging.getLogger(__name__)

# A lane's thread ends after this long without work, and starts again with the next.
LANE_IDLE_SECONDS = 5.0


class Lane:
    """Work of one kind, run by threads of this process that live while there is work: one,
    or as many as the setting ``threads_setting`` says. Kinds have lanes of their own so that
    one kind's slow work (a webhook receiver that answers slowly) never holds up another's (the
    computer players of a table with no person at it). Work is sent for an account (a
    platform's deliveries, a person's analyses), and the accounts share the threads fairly: the
    next work taken is the account's that used them least (games/fair_queue.py), so that one
    account's flood never holds up another account's work; an account's work is taken in the
    order it was sent, and work sent for no account is all one account's. Work sent in a trace
    carries on in it (its `traceparent` goes with it to the lane's thread)."""

    def __init__(self, name: str, threads_setting: str | None = None) -> None:
        self.name = name
        self._threads_setting = threads_setting
        # (task, args, traceparent) by account
        self._order: fair_queue.FairOrder[tuple[str, tuple[Any, ...], str]] = (
            fair_queue.FairOrder())
        self._changed = threading.Condition()
        self._running = 0
        self._idle = 0

    @property
    def threads(self) -> int:
        return getattr(settings, self._threads_setting) if self._threads_setting else 1

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
        from django.db import connections
        from django.utils.module_loading import import_string

        while True:
            with self._changed:
                self._idle += 1
                idle_until = time.monotonic() + LANE_IDLE_SECONDS
                while (taken := self._order.take()) is None:
                    if time.monotonic() >= idle_until:
                        self._idle -= 1
                        self._running -= 1
                        return
                    self._changed.wait(idle_until - time.monotonic())
                self._idle -= 1
            account, (task, args, traceparent), charged = taken
            started = time.monotonic()
            try:
                with traces.carried_on(traceparent):
                    import_string(task)(*args)
            except Exception:  # the sweeps try again; a dead lane would stop every later item
                logger.exception("background work failed", extra={"lane": self.name, "task": task})
            finally:
                connections.close_all()
                with self._changed:
                    self._order.done(account, charged, time.monotonic() - started)


LANES = {
    "computer-players": Lane("computer-players"),
    # Deliveries wait on receivers, not the CPU: as many at once as a webhook worker takes,
    # shared between platforms.
    "webhooks": Lane("webhooks", threads_setting="WEBHOOK_WORKER_THREADS"),
    # The post-deal analysis, one deal at a time (its searches run in a process of their own at
    # the lowest priority: bots/analysis.py), shared between accounts.
    "analysis": Lane("analysis"),
}


def run_soon(lane: str, task: str, *args: Any, account: Hashable = None) -> None:
    """On the embedded default, what a worker would do: ``task`` with ``args``, on ``lane``, in
    ``account``'s share of it."""
    LANES[lane].send(task, *args, account=account)
