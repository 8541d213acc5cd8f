"""The service's periodic jobs, in one list.

Scaled out, Celery beat sends each to the workers on its interval (`beat_schedule`, read by the
settings). On the embedded default there is no beat and no worker: one thread of the serving
process runs the same jobs (`start_in_process`), started by the process's first request while
IN_PROCESS_JOBS is on; what a worker would be sent, it runs on a lane (runtime/lanes.py).
Every job is safe to run any number of times at once: each change it makes is made under its
match's lock for the version it was due at.

This module imports nothing of Django's at its top, so that the settings can read the list.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

logger = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Job:
    name: str
    # The Celery task (its dotted path): what beat sends, and what the in-process runner calls.
    task: str
    # The setting that gives its interval in seconds.
    interval_setting: str
    # For a job that knows when it is next due (the turn clocks: the next deadline), a function
    # giving the seconds until then; the in-process runner wakes for it.
    due_in: str = ""


JOBS = [
    # Timeouts of people's turns, and quick-match tables whose wait for people is over.
    Job("run-clocks", "bots.tasks.run_clocks", "CLOCK_SWEEP_INTERVAL_SECONDS",
        due_in="games.sweeper.seconds_to_next_deadline"),
    # Computer players' turns whose task was lost (broker down, worker died, process stopped).
    Job("sweep-bot-turns", "bots.tasks.sweep_bot_turns", "BOT_SWEEP_INTERVAL_SECONDS"),
    # Webhook deliveries that are due: retries, and first attempts whose task was lost.
    Job("sweep-webhooks", "platforms.tasks.sweep_webhooks", "WEBHOOK_SWEEP_INTERVAL_SECONDS"),
    # Post-deal analyses whose task was lost (broker down, process stopped).
    Job("sweep-analyses", "bots.tasks.sweep_analyses", "ANALYSIS_SWEEP_INTERVAL_SECONDS"),
    # The webhook delivery log past WEBHOOK_LOG_RETENTION_DAYS.
    Job("purge-webhook-log", "platforms.tasks.purge_webhook_log",
        "WEBHOOK_PURGE_INTERVAL_SECONDS"),
    # Matches ended more than FINISHED_MATCH_RETENTION_DAYS ago (none while it is 0).
    Job("purge-finished-matches", "games.tasks.purge_finished_matches",
        "RETENTION_PURGE_INTERVAL_SECONDS"),
]


def beat_schedule(intervals: dict[str, float]) -> dict[str, dict[str, Any]]:
    """Celery beat's schedule, from the settings' ``intervals`` by name."""
    return {
        job.name: {
            "task": job.task,
            "schedule": intervals[job.interval_setting],
            # A run still queued when the next is due is dropped, so a backlog does not grow.
            "options": {"expires": intervals[job.interval_setting]},
        }
        for job in JOBS
    }


# Never sleep less than this: a job that stays due (its run failing) must not make it spin.
MIN_SLEEP_SECONDS = 0.05
_started = False
_start_lock = threading.Lock()


def start_in_process(**_: Any) -> None:
    """Run the jobs in a thread of this process, once, while IN_PROCESS_JOBS is on (the
    embedded default). A receiver of Django's `request_started`."""
    global _started
    from django.conf import settings

    if _started or not settings.IN_PROCESS_JOBS:
        return
    with _start_lock:
        if _started:
            return
        threading.Thread(target=_run_forever, daemon=True, name="periodic-jobs").start()
        _started = True


def _run_forever() -> None:
    global _started
    from django.conf import settings
    from django.db import close_old_connections
    from django.utils.module_loading import import_string

    tasks: list[tuple[Job, Callable[[], Any]]] = [(job, import_string(job.task)) for job in JOBS]
    next_run = {job.name: 0.0 for job in JOBS}
    while True:
        if not settings.IN_PROCESS_JOBS:  # switched off (tests do, between their servers)
            with _start_lock:
                _started = False
            return
        now = time.monotonic()
        for job, task in tasks:
            if now < next_run[job.name]:
                continue
            next_run[job.name] = now + getattr(settings, job.interval_setting)
            try:
                task()
            except Exception:  # the next round tries again; a dead runner would stop them all
                logger.exception("a periodic job failed", extra={"job": job.name})
            finally:
                close_old_connections()
        time.sleep(_sleep_seconds(next_run))


def _sleep_seconds(next_run: dict[str, float]) -> float:
    from django.utils.module_loading import import_string

    now = time.monotonic()
    wait = min(next_run.values()) - now
    for job in JOBS:
        if job.due_in:
            try:
                due = import_string(job.due_in)()
            except Exception:  # the database is away: the job's interval is soon enough
                logger.exception("reading when a job is due failed", extra={"job": job.name})
                continue
            if due is not None:
                next_run[job.name] = min(next_run[job.name], now + due)
                wait = min(wait, due)
    return max(MIN_SLEEP_SECONDS, wait)

