"""The embedded default's workers: what a Celery worker is sent when the service is scaled out,
the serving process runs on a lane, a queue with a thread of its own (the periodic jobs have
their runner in batak_api/jobs.py)."""

from __future__ import annotations

import logging
import queue
import threading
from typing import Any

logger = logging.getLogger(__name__)

# A lane's thread ends after this long without work, and starts again with the next.
LANE_IDLE_SECONDS = 5.0


class Lane:
    """Work of one kind, run in the order it was sent, one item at a time, on a thread of
    this process that lives while there is work. Kinds have lanes of their own so that one
    kind's slow work (a webhook receiver that answers slowly) never holds up another's (the
    computer players of a table with no person at it)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._queue: queue.Queue[tuple[str, tuple[Any, ...]]] = queue.Queue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def send(self, task: str, *args: Any) -> None:
        """Run ``task`` (a dotted path) with ``args`` on this lane's thread."""
        with self._lock:
            self._queue.put((task, args))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True, name=self.name)
                self._thread.start()

    def _run(self) -> None:
        from django.db import connections
        from django.utils.module_loading import import_string

        while True:
            try:
                task, args = self._queue.get(timeout=LANE_IDLE_SECONDS)
            except queue.Empty:
                with self._lock:  # `send` puts under this lock: nothing is left behind
                    if self._queue.empty():
                        self._thread = None
                        return
                continue
            try:
                import_string(task)(*args)
            except Exception:  # the sweeps try again; a dead lane would stop every later item
                logger.exception("background work failed", extra={"lane": self.name, "task": task})
            finally:
                connections.close_all()


LANES = {name: Lane(name) for name in ("computer-players", "webhooks")}


def run_soon(lane: str, task: str, *args: Any) -> None:
    """On the embedded default, what a worker would do: ``task`` with ``args``, on ``lane``."""
    LANES[lane].send(task, *args)
