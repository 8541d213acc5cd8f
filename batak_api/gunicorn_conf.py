"""gunicorn settings: `gunicorn -c python:batak_api.gunicorn_conf` (the Docker image's command).

Threaded workers, because the event feed holds a request open for up to 30 s while it waits for
the next move: a sync worker would be blocked by one waiting client. Everything can be changed
from the environment (see the README's configuration table).

A gthread worker reads each request in one of its threads, blocking, with no deadline for the
request's head or body: a client that sends slowly (slowloris) holds a thread for as long as it
likes, and a few dozen of them hold them all. gunicorn has no setting against that, so it must
sit behind a proxy that reads whole requests first (deploy/nginx.conf) and never be exposed
directly. Its own bounds on a request's head are below; its worker (batak_api/gunicorn_worker.py)
answers their breach as nginx does, with a problem document.
"""

import os
from typing import Any

from batak_api.settings import LOGGING

wsgi_app = "batak_api.wsgi:application"
bind = os.environ.get("GUNICORN_BIND", f"0.0.0.0:{os.environ.get('PORT', '8000')}")
worker_class = "batak_api.gunicorn_worker.ProblemThreadWorker"
# Processes share the CPU; threads mostly wait (event feed, database), so they are cheap.
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
threads = int(os.environ.get("GUNICORN_THREADS", "32"))
# A thread in a long poll answers within 30 s; anything slower is stuck and gets restarted.
timeout = 60
graceful_timeout = 35
keepalive = 5
# gunicorn's defaults, written out: nginx in front is stricter (4 KiB a request line or a header
# line), so a request that reaches gunicorn always fits and nginx answers the others, as a
# problem document.
limit_request_line = 4094
limit_request_field_size = 8190
limit_request_fields = 100
# Our request log (batak_api.logs.RequestLogMiddleware) is the access log, with request ids.
accesslog = None
# gunicorn's own records (start-up, worker restarts) in the same format as the service's.
logconfig_dict = {
    **LOGGING,
    "loggers": {
        "gunicorn.error": {"handlers": [], "propagate": True},
        "gunicorn.access": {"handlers": [], "propagate": False},
    },
}


def post_request(worker: Any, req: Any, environ: dict[str, Any], resp: Any) -> None:
    """A request answered with its body unread (over the size limit: batak_api/limits.py) ends
    its connection once a bounded part of the rest is dropped (so that a client still sending
    reads the answer rather than a reset): to reach a next request on it, gunicorn would
    otherwise read the rest of the body, however large, in one of its threads."""
    from batak_api.limits import BODY_LEFT_UNREAD, linger

    if environ.get(BODY_LEFT_UNREAD):
        linger(environ)
        req.force_close()


def post_fork(server: Any, worker: Any) -> None:
    """Traces, when the OTEL_* variables turn them on (batak_api/tracing.py): each worker its
    own exporting thread, started after the fork, before it loads the application."""
    from batak_api.tracing import configure

    configure()


def on_starting(server: Any) -> None:
    """Metrics in multiprocess mode (batak_api/metrics.py): the values of processes of an earlier
    start are not this start's."""
    from batak_api.metrics import clear_processes

    clear_processes()


def child_exit(server: Any, worker: Any) -> None:
    """A worker that ended (a restart, a time-out) stops counting in the live gauges."""
    from batak_api.metrics import process_ended

    process_ended(worker.pid)
