"""Traces scaled out: gunicorn, a Celery worker and the webhook worker, each exporting over
OTLP/HTTP (the standard OTEL_* variables) to a small receiver this test runs. A platform's
player's move against three computer players is one trace across the three processes: the
web request, the computer players' turns the worker took from the fair queue, their moves
and queries, and the webhook delivery the webhook worker made, with its HTTP call."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from platforms import services
from platforms.models import DeliveryStatus, Scope, WebhookDelivery
from tests.integration.conftest import _forget_queue, stack_env
from tests.integration.harness import client
from tests.integration.harness.stack import Stack, wait_until
from tests.platforms.receiver import Receiver

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

# A Hard player sends the computer players' turns to the worker (quick players alone would play
# in the person's request's thread).
SEATS = [{"kind": "player", "external_id": "ext-1"}, {"kind": "bot", "bot_level": "easy"},
         {"kind": "bot", "bot_level": "hard"}, {"kind": "bot", "bot_level": "easy"}]


@dataclass(frozen=True)
class Span:
    service: str
    trace_id: str
    span_id: str
    parent_id: str
    name: str
    kind: int
    attributes: dict[str, Any]


@dataclass
class Collector:
    """An OTLP/HTTP trace receiver on loopback: what it got, by span."""

    spans: list[Span] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self, body: bytes) -> None:
        request = ExportTraceServiceRequest.FromString(body)
        got = []
        for resource_spans in request.resource_spans:
            resource = {a.key: a.value.string_value for a in resource_spans.resource.attributes}
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    got.append(Span(
                        resource.get("service.name", ""), span.trace_id.hex(),
                        span.span_id.hex(), span.parent_span_id.hex(), span.name, span.kind,
                        {a.key: _value(a.value) for a in span.attributes},
                    ))
        with self.lock:
            self.spans.extend(got)

    def of_trace(self, trace_id: str) -> list[Span]:
        with self.lock:
            return [span for span in self.spans if span.trace_id == trace_id]


def _value(value: Any) -> Any:
    return getattr(value, value.WhichOneof("value")) if value.WhichOneof("value") else None


@pytest.fixture
def collector() -> Iterator[tuple[Collector, str]]:
    collected = Collector()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if self.path == "/v1/traces":
                collected.take(body)
            answer = ExportTraceServiceResponse().SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield collected, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def traced_stack(
    django_db_setup: None, collector: tuple[Collector, str], tmp_path: Path
) -> Iterator[Stack]:
    """gunicorn, a worker and the webhook worker, each tracing to the collector as itself."""
    _, endpoint = collector
    env = {**stack_env(settings.REDIS_URL), "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
           # Spans exported a moment after they end, not after the default 5 s.
           "OTEL_BSP_SCHEDULE_DELAY": "200"}
    processes = Stack(env, tmp_path / "logs")
    try:
        processes.start_web(workers=1, threads=4, OTEL_SERVICE_NAME="batak-web")
        processes.start_worker(concurrency=1, OTEL_SERVICE_NAME="batak-worker")
        processes.start_webhook_worker(OTEL_SERVICE_NAME="batak-webhooks")
        yield processes
    finally:
        processes.stop_all()
        for queue in (processes.env["CELERY_QUEUE"], processes.env["WEBHOOK_QUEUE"]):
            _forget_queue(settings.REDIS_URL, queue)


def test_one_trace_across_web_worker_and_webhook_worker(
    traced_stack: Stack, collector: tuple[Collector, str]
) -> None:
    collected, _ = collector
    web = traced_stack.urls["web"]
    receiver = Receiver()
    try:
        platform = services.register_platform(name="Traced")
        _, key = services.issue_key(platform=platform, name="server",
                                    scopes=[scope.value for scope in Scope])
        headers = {"Authorization": f"Api-Key {key}"}
        server = client.Api(web)
        client.expect(server.request("POST", f"{client.API}/platform/webhooks", {
            "url": receiver.url, "event_types": ["turn.started"]}, headers=headers), 201,
            "subscribe")
        token = client.expect(server.request(
            "PUT", f"{client.API}/platform/players/ext-1", {"display_name": "ext-1"},
            headers=headers), 201, "player")["token"]
        person = client.Api(web, token)
        match_id = client.expect(server.request("POST", f"{client.API}/platform/matches", {
            "game": "auction", "deals": 1, "seats": SEATS, "clock": None}, headers=headers),
            201, "match")["id"]
        wait_until(lambda: client.my_turn(client.view(person, match_id)), 30, "the person's turn")
        deliveries = WebhookDelivery.objects.filter(event__match_id=match_id)
        wait_until(lambda: deliveries.filter(status=DeliveryStatus.SUCCEEDED).exists(), 30,
                   "the first turn's webhook")
        # The person moves until a move hands the turn to a computer player: a call after
        # the others all passed makes the person the declarer (the dealer, when everyone
        # passed), whose trump and first lead come straight back to them.
        for _ in range(8):
            before = set(deliveries.values_list("pk", flat=True))
            legal = client.view(person, match_id)["deal"]["legal_actions"]
            action = next((a for a in legal if a["kind"] == "pass"), legal[0])
            answer = client.expect(client.act(person, match_id, action), 200, "the person's move")
            if not client.my_turn(answer):
                break
        else:
            raise AssertionError("no move of the person's handed the turn to a computer player")
        wait_until(lambda: deliveries.exclude(pk__in=before).filter(
            status=DeliveryStatus.SUCCEEDED).exists(), 60, "the move's webhook")
    finally:
        receiver.stop()

    path = "api/v1/matches/<uuid:match_id>/actions"

    def the_move() -> Span | None:
        with collected.lock:
            # The last such request: the person's earlier moves may have been of its kind.
            return next((span for span in reversed(collected.spans)
                         if span.service == "batak-web" and span.name == f"POST {path}"), None)

    wait_until(lambda: the_move() is not None, 30, "the move's request span")
    request = the_move()
    assert request is not None

    def names(service: str) -> set[str]:
        return {span.name for span in collected.of_trace(request.trace_id)
                if span.service == service}

    wait_until(lambda: {"bots.play_turns", "match.apply"} <= names("batak-worker")
               and "webhooks.attempt" in names("batak-webhooks"), 30,
               f"the trace's spans in every process: {collected.of_trace(request.trace_id)}")
    in_trace = collected.of_trace(request.trace_id)
    by_id = {span.span_id: span for span in in_trace}
    # The person's move under the request, with its queries (psycopg, on PostgreSQL).
    move = next(span for span in in_trace if span.name == "match.apply"
                and span.service == "batak-web")
    assert move.parent_id == request.span_id
    assert move.attributes["batak.seat"] == 0 and move.attributes["batak.match_id"] == match_id
    assert any(span.attributes.get("db.system") for span in in_trace
               if span.service == "batak-web")
    # The computer players' turns: taken from the fair queue by the worker, in the move's
    # trace (their parent is the request that queued them), their moves under them.
    turns = [span for span in in_trace if span.name == "bots.play_turns"]
    assert all(span.service == "batak-worker" and span.parent_id == request.span_id
               for span in turns)
    computer = [span for span in in_trace if span.name == "match.apply"
                and span.service == "batak-worker"]
    assert computer and all(by_id[span.parent_id] in turns for span in computer)
    assert all(span.attributes["batak.seat"] != 0 for span in computer)
    # The webhook its last move sent, attempted by the webhook worker, with its HTTP call.
    [attempt] = [span for span in in_trace if span.name == "webhooks.attempt"]
    assert attempt.service == "batak-webhooks"
    assert by_id[attempt.parent_id].name == "match.apply"
    assert attempt.attributes["batak.webhook.delivered"] is True
    assert any(span.name == "POST" and span.parent_id == attempt.span_id
               and span.service == "batak-webhooks" for span in in_trace)
