"""gunicorn settings: `gunicorn -c python:batak_api.gunicorn_conf` (the Docker image's command).

Threaded workers, because the event feed holds a request open for up to 30 s while it waits for
the next move: a sync worker would be blocked by one waiting client. Everything can be changed
from the environment (see the README's configuration table).
"""

import os

from batak_api.settings import LOGGING

wsgi_app = "batak_api.wsgi:application"
bind = os.environ.get("GUNICORN_BIND", f"0.0.0.0:{os.environ.get('PORT', '8000')}")
worker_class = "gthread"
# Processes share the CPU; threads mostly wait (event feed, database), so they are cheap.
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
threads = int(os.environ.get("GUNICORN_THREADS", "32"))
# A thread in a long poll answers within 30 s; anything slower is stuck and gets restarted.
timeout = 60
graceful_timeout = 35
keepalive = 5
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
