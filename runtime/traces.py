"""Traces of a move, as the apps write them (OpenTelemetry's API only: whether and where they
go is configured once per process by batak_api/tracing.py, and without it every call here is
the API's no-op).

One trace follows a person's move from its request through the computer players' turns it
caused to the webhooks it sent. Where the work leaves the thread that made the move (the fair
queue in Redis, a lane's thread, a webhook event written for a worker to send), the trace goes
with it as its W3C `traceparent` (https://www.w3.org/TR/trace-context/), and the work carries
on in that trace. Spans name the operation and carry the match's id, the seat and the kind of
action, never a card in play.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from opentelemetry import context, trace
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
from opentelemetry.util.types import AttributeValue

# Attribute names, under the service's own prefix.
MATCH_ID = "batak.match_id"
SEAT = "batak.seat"
ACTION = "batak.action"
ORIGIN = "batak.origin"
VERSION = "batak.version"

tracer = trace.get_tracer("batak")
_PROPAGATOR = TraceContextTextMapPropagator()


def traceparent() -> str:
    """The current span's `traceparent` (a trace the sampler left out says so, and stays out
    downstream), or "" when there is none (tracing off)."""
    if not trace.get_current_span().get_span_context().is_valid:
        return ""
    carrier: dict[str, str] = {}
    _PROPAGATOR.inject(carrier)
    return carrier.get("traceparent", "")


@contextmanager
def carried_on(traceparent: str) -> Iterator[None]:
    """Work handed on with ``traceparent`` (maybe "") runs in its trace: the spans it starts
    are children of the span that handed it on (not of the Celery task or the lane's thread
    that took it)."""
    if not traceparent:
        yield
        return
    with within(_PROPAGATOR.extract({"traceparent": traceparent})):
        yield


@contextmanager
def span(name: str, attributes: Mapping[str, AttributeValue]) -> Iterator[trace.Span]:
    """A span named after the operation ``name``, a child of the current one."""
    with tracer.start_as_current_span(name, attributes=attributes) as current:
        yield current


def span_apart(name: str, attributes: Mapping[str, AttributeValue],
               traceparent: str) -> tuple[trace.Span, context.Context]:
    """A span in the trace ``traceparent`` carries (the current one's when it is "") that is
    not made current, and the context in which it is the current span: for one of several
    pieces of work done together, each in its own trace (a backlog's webhooks, posted at
    once). The caller ends it."""
    parent = (_PROPAGATOR.extract({"traceparent": traceparent}) if traceparent
              else context.get_current())
    apart = tracer.start_span(name, context=parent, attributes=attributes)
    return apart, trace.set_span_in_context(apart, parent)


@contextmanager
def within(carried: context.Context) -> Iterator[None]:
    """Run in ``carried`` (from `span_apart`): the spans started here are its span's."""
    token = context.attach(carried)
    try:
        yield
    finally:
        context.detach(token)
