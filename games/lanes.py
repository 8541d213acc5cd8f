"""The embedded default's workers: what a Celery worker is sent when the service is scaled out,
the serving process runs on a lane, a queue with a thread of its own (the periodic jobs have
their runner in batak_api/jobs.py)."""

from __future__ import annotations

import logging
import queue
import threading
from typing import Any

from django.conf import settings

from games import traces

logger = logging.getLogger(__name__)

# A lane's thread ends after this long without work, and starts again with the next.
LANE_IDLE_SECONDS = 5.0


class Lane:
    """Work of one kind, taken in the order it was sent by threads of this process that live
    while there is work: one (one item at a time, in order), or as many as the setting
    ``threads_setting`` says. Kinds have lanes of their own so that one kind's slow work (a
    webhook receiver that answers slowly) never holds up another's (the computer players of a
    table with no person at it). Work sent in a trace carries on in it (its `traceparent` goes
    with it to the lane's thread)."""

    def __init__(self, name: str, threads_setting: str | None = None) -> None:
        self.name = name
        self._threads_setting = threads_setting
        # (task, args, traceparent)
        self._queue: queue.Queue[tuple[str, tuple[Any, ...], str]] = queue.Queue()
        self._lock = threading.Lock()
        self._running = 0
        self._idle = 0

    @property
    def threads(self) -> int:
        return getattr(settings, self._threads_setting) if self._threads_setting else 1

    def send(self, task: str, *args: Any) -> None:
        """Run ``task`` (a dotted path) with ``args`` on one of this lane's threads."""
        with self._lock:
            self._queue.put((task, args, traces.traceparent()))
            if self._idle == 0 and self._running < self.threads:
                self._running += 1
                threading.Thread(target=self._run, daemon=True, name=self.name).start()

    def _run(self) -> None:
        from django.db import connections
        from django.utils.module_loading import import_string

        while True:
            with self._lock:
                self._idle += 1
            try:
                task, args, traceparent = self._queue.get(timeout=LANE_IDLE_SECONDS)
            except queue.Empty:
                with self._lock:  # `send` puts under this lock: nothing is left behind
                    self._idle -= 1
                    if self._queue.empty():
                        self._running -= 1
                        return
                continue
            with self._lock:
                self._idle -= 1
            try:
                with traces.carried_on(traceparent):
                    import_string(task)(*args)
            except Exception:  # the sweeps try again; a dead lane would stop every later item
                logger.exception("background work failed", extra={"lane": self.name, "task": task})
            finally:
                connections.close_all()


LANES = {
    "computer-players": Lane("computer-players"),
    # Deliveries wait on receivers, not the CPU: as many at once as a webhook worker takes.
    "webhooks": Lane("webhooks", threads_setting="WEBHOOK_WORKER_THREADS"),
    # The post-deal analysis, one deal at a time (its searches run in a process of their own at
    # the lowest priority: bots/analysis.py).
    "analysis": Lane("analysis"),
}


def run_soon(lane: str, task: str, *args: Any) -> None:
    """On the embedded default, what a worker would do: ``task`` with ``args``, on ``lane``."""
    LANES[lane].send(task, *args)
