"""Traces with OpenTelemetry: off unless the standard `OTEL_*` variables turn them on.

`configure` runs once in each process that serves or works (gunicorn's workers after their
fork, Celery's pool processes and the webhook workers, the ASGI server's processes, `manage.py
runserver`). Off, it does nothing at all: no tracer provider is set, nothing is instrumented,
and the apps' spans (runtime/traces.py) are the OpenTelemetry API's no-ops. On (an exporter named
by OTEL_TRACES_EXPORTER, or an OTLP endpoint given, and OTEL_SDK_DISABLED not `true`), it
traces Django's requests (spans named by route), Celery's tasks (sent and run, the trace
carried in the message), psycopg's queries (their SQL, never their parameters) and the
webhooks' HTTP calls (httpx), and exports the spans in batches from a thread of the process.

The SDK reads the rest of the standard variables itself: OTEL_SERVICE_NAME (default `batak`),
OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER and its argument, OTEL_EXPORTER_OTLP_* (endpoint,
headers, timeout, compression), OTEL_BSP_* (the batches), and the instrumentations' own
(OTEL_PYTHON_DJANGO_EXCLUDED_URLS...).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ImproperlyConfigured

if TYPE_CHECKING:
    from opentelemetry.sdk.trace.export import SpanExporter, SpanProcessor

# The exporters OTEL_TRACES_EXPORTER may name (a comma-separated list).
EXPORTERS = ("otlp", "console")
DEFAULT_SERVICE_NAME = "batak"

_configured = False


def enabled() -> bool:
    """Whether this process's environment turns traces on."""
    if os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    exporters = os.environ.get("OTEL_TRACES_EXPORTER", "").strip().lower()
    if exporters:
        return exporters != "none"
    return bool(os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
                or os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"))


def configure() -> None:
    """Trace this process as its environment says (once; later calls do nothing)."""
    global _configured
    if _configured or not enabled():
        return
    _configured = True
    # Django's instrumentation reads the settings before Django is set up (gunicorn's fork),
    # and would make empty ones of its own if it found none named.
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "batak_api.settings")
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    start([BatchSpanProcessor(exporter) for exporter in _exporters()])


def start(processors: list[SpanProcessor]) -> None:
    """Set the process's tracer provider (once a process: OpenTelemetry keeps the first), its
    spans going to ``processors``, and `instrument`."""
    from opentelemetry import trace
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource
    from opentelemetry.sdk.trace import TracerProvider

    resource = Resource.create()
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME: DEFAULT_SERVICE_NAME}))
    provider = TracerProvider(resource=resource)
    for processor in processors:
        provider.add_span_processor(processor)
    trace.set_tracer_provider(provider)
    for instrumentor in instrumentors():
        instrumentor.instrument()


def instrumentors() -> list[Any]:
    """Django's, Celery's, psycopg's and httpx's (`BaseInstrumentor`s, a class mypy does not
    find in its module). Django's must be on before its handler loads the middleware (the first
    request's, or the WSGI/ASGI application's making)."""
    from opentelemetry.instrumentation.celery import CeleryInstrumentor
    from opentelemetry.instrumentation.django import DjangoInstrumentor
    from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor
    from opentelemetry.instrumentation.psycopg import PsycopgInstrumentor

    return [DjangoInstrumentor(), CeleryInstrumentor(), PsycopgInstrumentor(),
            HTTPXClientInstrumentor()]


def _exporters() -> list[SpanExporter]:
    names = [name.strip() for name in
             os.environ.get("OTEL_TRACES_EXPORTER", "otlp").lower().split(",") if name.strip()]
    unknown = sorted(set(names) - set(EXPORTERS))
    if unknown:
        raise ImproperlyConfigured(
            f"OTEL_TRACES_EXPORTER: {', '.join(unknown)} is not one of {', '.join(EXPORTERS)}"
        )
    exporters: list[SpanExporter] = []
    if "otlp" in names:
        # OTLP over HTTP (protobuf); the endpoint, headers and timeout from OTEL_EXPORTER_OTLP_*.
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        exporters.append(OTLPSpanExporter())
    if "console" in names:
        from opentelemetry.sdk.trace.export import ConsoleSpanExporter

        exporters.append(ConsoleSpanExporter())
    return exporters
