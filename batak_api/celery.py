"""Celery application.

Start a worker with `celery -A batak_api worker` and, once per deployment, the scheduler that
runs the bot sweeper with `celery -A batak_api beat`.
"""

import logging.config
import os
from typing import Any

from celery import Celery, Task
from celery.signals import (
    setup_logging,
    task_prerun,
    worker_init,
    worker_process_init,
    worker_process_shutdown,
)

from runtime.log_context import replace_log_context

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "batak_api.settings")

app = Celery("batak_api")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@setup_logging.connect
def _configure_logging(**kwargs: Any) -> None:
    # Without this Celery installs its own plain-text root handler; workers log like the web
    # processes instead, JSON lines included.
    from django.conf import settings

    logging.config.dictConfig(settings.LOGGING)


@task_prerun.connect
def _bind_task_to_logs(task_id: str, task: Task, **kwargs: Any) -> None:
    # A pool process runs one task after another, so each task starts with a clean context.
    replace_log_context(task_id=task_id, task=task.name)


@worker_init.connect
def lower_priority(**kwargs: Any) -> None:
    # In the main process, before the pool forks: its processes inherit it.
    from django.conf import settings

    os.nice(max(0, min(19, settings.WORKER_NICENESS)))


@worker_init.connect
def warm_up_computer_players(**kwargs: Any) -> None:
    # The Hard player's search compiles on first use (a few seconds). Compiling in the worker's
    # main process, before the pool forks, spares every pool process and every first move.
    from bots.players import warm_up

    warm_up()


@worker_init.connect
def serve_metrics(**kwargs: Any) -> None:
    # The main process serves its pool's metrics (batak_api/metrics.py), when given a port; the
    # values of an earlier start are not this one's.
    from django.conf import settings

    from batak_api.metrics import clear_processes, serve_worker_metrics

    clear_processes()
    if settings.METRICS_PORT:
        serve_worker_metrics(settings.METRICS_PORT)


@worker_process_init.connect
def _traces(**kwargs: Any) -> None:
    # Each pool process its own exporting thread, started after the fork (batak_api/tracing.py).
    from batak_api.tracing import configure

    configure()


@worker_process_shutdown.connect
def _pool_process_ended(pid: int | None = None, **kwargs: Any) -> None:
    from batak_api.metrics import process_ended

    process_ended(pid or os.getpid())
