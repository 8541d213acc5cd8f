"""The webhook workers: `python -m batak_api.webhook_worker [celery worker options]`.

A Celery worker on WEBHOOK_QUEUE alone, with WEBHOOK_WORKER_THREADS threads: a delivery spends
its time waiting on a partner's receiver, so threads (not processes) are what it needs, and the
computer players' workers, on CELERY_QUEUE, never wait on a receiver at all.
"""

from __future__ import annotations

import sys

from celery.signals import worker_init
from django.conf import settings

from batak_api.celery import app, warm_up_computer_players
from batak_api.tracing import configure


def main(argv: list[str]) -> None:
    # No computer player moves here: spare the worker their compilation.
    worker_init.disconnect(warm_up_computer_players)
    # Its pool is threads of this process, which Celery's pool-process signal never reaches.
    configure()
    app.worker_main([
        "worker", "--queues", settings.WEBHOOK_QUEUE, "--pool", "threads",
        "--concurrency", str(settings.WEBHOOK_WORKER_THREADS), *argv,
    ])


if __name__ == "__main__":
    main(sys.argv[1:])
