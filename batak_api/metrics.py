"""Metrics for Prometheus (served by batak_api/scrape.py): the requests', and the processes'.

Counted where things happen (each module defines its own: `games.metrics`, `bots.tasks`,
`platforms.webhooks`, and the requests here) and read from the database at each scrape (what is
live now: `ServiceCollector`). Scaled out, gunicorn's and Celery's processes each write their
values to files in PROMETHEUS_MULTIPROC_DIR (prometheus_client's multiprocess mode), and a
scrape of any web process sums those of its host: gunicorn's workers' here, and a Celery
worker's processes on its own port (METRICS_PORT, `serve_worker_metrics`). On the embedded
default (one process) the values are that process's own.
"""

from __future__ import annotations

import os
from http import HTTPStatus
from typing import TYPE_CHECKING

from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    multiprocess,
    start_http_server,
)

from games.metrics import closed

if TYPE_CHECKING:
    from django.http import HttpRequest
    from django.urls import URLPattern, URLResolver

# The methods the service answers (any other is `other`: its 405 is counted, not its name).
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
STATUSES = tuple(str(status.value) for status in HTTPStatus)
UNMATCHED = "unmatched"


def routes() -> set[str]:
    """Every URL pattern of the service, joined as Django joins them in a request's
    `resolver_match.route`, and `unmatched`."""
    from django.urls import get_resolver

    found = {UNMATCHED}

    def walk(patterns: list[URLPattern | URLResolver], prefix: str) -> None:
        for pattern in patterns:
            route = str(pattern.pattern)
            joined = prefix + route.removeprefix("^") if prefix else route
            if hasattr(pattern, "url_patterns"):
                walk(pattern.url_patterns, joined)
            else:
                found.add(joined)

    walk(get_resolver().url_patterns, "")
    return found


REQUESTS = closed(Counter(
    "batak_http_requests_total", "Requests answered, by method (`other` for a method the "
    "service does not answer), route (the URL pattern, or `unmatched`) and status.",
    ["method", "route", "status"],
), method=METHODS, route=routes, status=STATUSES)
REQUEST_DURATION = closed(Histogram(
    "batak_http_request_duration_seconds", "How long requests took to answer, by method and "
    "route (a stream: until its answer began).", ["method", "route"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
), method=METHODS, route=routes)


def count_request(request: HttpRequest, status: int, seconds: float) -> None:
    match = request.resolver_match
    route = match.route if match is not None else UNMATCHED
    method = request.method or ""
    REQUESTS.labels(method=method, route=route, status=str(status)).inc()
    REQUEST_DURATION.labels(method=method, route=route).observe(seconds)


def _multiprocess() -> bool:
    return bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))


def processes_registry() -> CollectorRegistry:
    """The values of every process of this host (multiprocess mode), or this one's."""
    if not _multiprocess():
        return REGISTRY
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)
    return registry


def serve_worker_metrics(port: int) -> None:
    """A Celery worker's own metrics (its processes' decisions, turns and webhook attempts), on
    ``port`` of its host: started by its main process, summed over its pool's processes."""
    start_http_server(port, registry=processes_registry())


def process_ended(pid: int) -> None:
    """A process of this host ended: its live gauges stop counting (multiprocess mode)."""
    if _multiprocess():
        multiprocess.mark_process_dead(pid)


def clear_processes() -> None:
    """Forget the values of earlier processes (a server's start, before its pool starts). The
    folder must exist before any process of the service starts: values without labels are made
    as their module is imported."""
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if folder:
        for name in os.listdir(folder):
            if name.endswith(".db"):
                os.remove(os.path.join(folder, name))
