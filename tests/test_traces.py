"""Traces (batak_api/tracing.py, runtime/traces.py): off by default; on, one trace follows a
person's move through the computer players' turns it caused to the webhook it sent, with the
match's id, seat and action kind on the spans and never a card."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest
from django.db import connection
from hypothesis import given
from hypothesis import strategies as st
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from batak_api import tracing
from platforms.models import DeliveryStatus, WebhookDelivery, WebhookEvent
from runtime import lanes, traces
from tests.platforms.conftest import API, new_platform
from tests.platforms.receiver import Receiver

ALONE_WITH_COMPUTERS = [
    {"kind": "player", "external_id": "ext-1"},
    {"kind": "bot", "bot_level": "easy"},
    {"kind": "bot", "bot_level": "medium"},
    {"kind": "bot", "bot_level": "easy"},
]
# What a span may say of a move: never which card.
MOVE_ATTRIBUTES = {traces.MATCH_ID, traces.SEAT, traces.ACTION, traces.ORIGIN, traces.VERSION}


class _WhileOn(SimpleSpanProcessor):
    """Keeps spans only while this module's tests run: the process's tracer provider, set once,
    outlives them."""

    on = False

    def on_end(self, span: ReadableSpan) -> None:
        if self.on:
            super().on_end(span)


_KEPT = InMemorySpanExporter()
_WHILE_ON = _WhileOn(_KEPT)


@pytest.fixture(scope="module")
def spans() -> Iterator[InMemorySpanExporter]:
    """Tracing on in this process, its spans kept in memory; instrumentation off after (and on
    again if pytest-django's ordering brings this module's tests back after others')."""
    if isinstance(trace.get_tracer_provider(), TracerProvider):
        for instrumentor in tracing.instrumentors():
            instrumentor.instrument()
    else:
        tracing.start([_WHILE_ON])
    _WHILE_ON.on = True
    yield _KEPT
    _WHILE_ON.on = False
    for instrumentor in tracing.instrumentors():
        instrumentor.uninstrument()
    _KEPT.clear()


def wait_for(check, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def ancestors(span: ReadableSpan, by_id: dict[int, ReadableSpan]) -> list[ReadableSpan]:
    chain = []
    while span.parent is not None and span.parent.span_id in by_id:
        span = by_id[span.parent.span_id]
        chain.append(span)
    return chain


@pytest.mark.parametrize(("environment", "on"), [
    ({}, False),
    ({"OTEL_SERVICE_NAME": "batak"}, False),
    ({"OTEL_TRACES_EXPORTER": "console"}, True),
    ({"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, False),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, True),
    ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, True),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_SDK_DISABLED": "true"},
     False),
])
def test_the_standard_variables_turn_traces_on(monkeypatch, environment, on) -> None:
    for name in list(os.environ):
        if name.startswith("OTEL_"):
            monkeypatch.delenv(name)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert tracing.enabled() is on


def test_an_exporter_of_another_kind_is_refused(monkeypatch) -> None:
    from django.core.exceptions import ImproperlyConfigured

    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "zipkin")
    with pytest.raises(ImproperlyConfigured, match="zipkin"):
        tracing._exporters()


def test_off_by_default_no_provider_nothing_instrumented() -> None:
    """A process whose environment names no exporter: after `configure` and Django's set-up,
    the tracer provider is the API's placeholder, no middleware was added, and a move's span
    records nothing and hands on no traceparent."""
    program = (
        "import django; django.setup()\n"
        "from batak_api import tracing; tracing.configure()\n"
        "from django.conf import settings\n"
        "from opentelemetry import trace\n"
        "from runtime import traces\n"
        "with traces.span('match.apply', {}) as span:\n"
        "    print(type(trace.get_tracer_provider()).__name__, span.is_recording(),\n"
        "          repr(traces.traceparent()),\n"
        "          any('opentelemetry' in name for name in settings.MIDDLEWARE))\n"
    )
    environment = {name: value for name, value in os.environ.items()
                   if not name.startswith("OTEL_")}
    environment["DJANGO_SETTINGS_MODULE"] = "batak_api.settings"
    answer = subprocess.run([sys.executable, "-c", program], env=environment, check=True,
                            capture_output=True, text=True, timeout=120)
    assert answer.stdout.split() == ["ProxyTracerProvider", "False", "''", "False"]


@given(trace_id=st.integers(1, 2**128 - 1), span_id=st.integers(1, 2**64 - 1),
       sampled=st.booleans())
def test_a_traceparent_handed_on_carries_on_the_same_trace(trace_id, span_id, sampled) -> None:
    """Whatever the span that hands work on, the work carries on under it (a trace the sampler
    left out stays out), and only while it runs."""
    flags = trace.TraceFlags(trace.TraceFlags.SAMPLED if sampled else trace.TraceFlags.DEFAULT)
    sender = trace.SpanContext(trace_id, span_id, is_remote=False, trace_flags=flags)
    with trace.use_span(trace.NonRecordingSpan(sender)):
        handed = traces.traceparent()
    with traces.carried_on(handed):
        got = trace.get_current_span().get_span_context()
    assert (got.trace_id, got.span_id, got.trace_flags.sampled) == (trace_id, span_id, sampled)
    assert not trace.get_current_span().get_span_context().is_valid
    assert traces.traceparent() == ""  # nothing to hand on outside a trace


def test_work_on_a_lane_carries_on_in_the_trace_that_sent_it(spans) -> None:
    seen: list[str] = []
    done = threading.Event()
    lane = lanes.Lane("test-traces")
    with traces.tracer.start_as_current_span("sender") as sender:
        lane.send(note_traceparent, seen, done)
    assert done.wait(10)
    trace_id = f"{sender.get_span_context().trace_id:032x}"
    span_id = f"{sender.get_span_context().span_id:016x}"
    assert [value.split("-")[1:3] for value in seen] == [[trace_id, span_id]]


def note_traceparent(seen: list[str], done: threading.Event) -> None:
    seen.append(traces.traceparent())
    done.set()


def test_requests_served_over_asgi_are_traced_by_route(spans) -> None:
    """The live streams' server and the embedded default serve over ASGI."""
    import asyncio

    import httpx

    from batak_api.asgi import StreamingASGIHandler

    async def get() -> int:
        transport = httpx.ASGITransport(app=StreamingASGIHandler())  # its middleware now
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as web:
            return (await web.get("/healthz")).status_code

    spans.clear()
    assert asyncio.run(get()) == 200
    [served] = [span for span in spans.get_finished_spans()
                if span.kind == trace.SpanKind.SERVER]
    assert served.name == "GET healthz"


@pytest.mark.django_db(transaction=True)
def test_one_trace_from_a_move_through_the_computer_turns_to_its_webhook(
    spans, settings
) -> None:
    settings.IN_PROCESS_JOBS = True  # deliveries on the webhooks' lane, in this process
    settings.WEBHOOK_RETRY_SECONDS = "0.2,0.2"
    receiver = Receiver()
    try:
        platform = new_platform("Traced")
        answer = platform.post("/webhooks", {"url": receiver.url,
                                             "event_types": ["turn.started"]})
        assert answer.status_code == 201, answer.content
        person = platform.player("ext-1")
        match = platform.post("/matches", {"game": "auction", "deals": 1,
                                           "seats": ALONE_WITH_COMPUTERS, "clock": None}).json()
        # The match's start and the computer players before the person: their own traces.
        wait_for(lambda: not WebhookDelivery.objects.filter(
            status=DeliveryStatus.PENDING).exists())
        # A move after which the person is to act again (a bid the others all passed) causes
        # no computer turn: the person moves on until one does.
        for _ in range(10):
            known = set(WebhookEvent.objects.values_list("pk", flat=True))
            spans.clear()
            view = person.get(f"{API}/matches/{match['id']}/view").json()
            assert view["deal"]["to_act"] == 0
            action = view["deal"]["legal_actions"][0]
            moved = person.post(f"{API}/matches/{match['id']}/actions", action,
                                format="json")
            assert moved.status_code == 200, moved.content
            new = WebhookDelivery.objects.exclude(event_id__in=known)
            wait_for(new.filter(status=DeliveryStatus.SUCCEEDED).exists)
            wait_for(lambda: any(s.name == "webhooks.attempt"
                                 for s in spans.get_finished_spans()))
            if any(s.name == "bots.play_turns" for s in spans.get_finished_spans()):
                break
    finally:
        receiver.stop()

    finished = spans.get_finished_spans()
    by_id = {span.context.span_id: span for span in finished}
    web = [span for span in finished if span.kind == trace.SpanKind.SERVER]
    # Spans named by route.
    assert {span.name for span in web} == {
        "GET api/v1/matches/<uuid:match_id>/view",
        "POST api/v1/matches/<uuid:match_id>/actions",
    }
    request = next(span for span in web if span.name.startswith("POST"))
    in_trace = [span for span in finished if span.context.trace_id == request.context.trace_id]

    # The person's move, then the computer players' turns it caused, children of the request.
    moves = [span for span in in_trace if span.name == "match.apply"]
    assert moves[0].attributes[traces.SEAT] == 0
    assert moves[0].attributes[traces.ORIGIN] == "player"
    assert request in ancestors(moves[0], by_id)
    turns = [span for span in in_trace if span.name == "bots.play_turns"]
    assert turns and all(request in ancestors(turn, by_id) for turn in turns)
    computer_moves = [span for span in moves if span.attributes[traces.SEAT] != 0]
    assert computer_moves
    assert all(set(ancestors(span, by_id)) & set(turns) for span in computer_moves)
    for span in moves:
        assert set(span.attributes) == MOVE_ATTRIBUTES
        assert span.attributes[traces.MATCH_ID] == match["id"]
        assert span.attributes[traces.ACTION] in {"bid", "pass", "trump", "play", "announce"}
    # The database's queries are in it too (psycopg's: PostgreSQL, as the integration test
    # runs; the unit tests' SQLite is not traced).
    if connection.vendor == "postgresql":
        assert any(span.kind == trace.SpanKind.CLIENT and span.attributes.get("db.system")
                   for span in in_trace)

    # The webhook the move sent (its turn came back to the person), delivered on the lane:
    # in the same trace, under the move that made its event, with the HTTP call in it.
    attempts = [span for span in in_trace if span.name == "webhooks.attempt"]
    assert len(attempts) == 1
    delivery = attempts[0]
    assert delivery.attributes["batak.webhook.event_type"] == "turn.started"
    assert delivery.attributes["batak.webhook.delivered"] is True
    assert by_id[delivery.parent.span_id].name == "match.apply"
    assert any(span.kind == trace.SpanKind.CLIENT and span.name == "POST"
               and delivery in ancestors(span, by_id) for span in in_trace)
    event = WebhookEvent.objects.exclude(pk__in=known).get()
    assert event.traceparent.split("-")[1] == f"{request.context.trace_id:032x}"
