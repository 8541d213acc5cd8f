"""What traces cost a move: the move endpoint timed with tracing off and on.

`python -m loadtest.tracing_cost` (`--moves 400`) makes a scratch PostgreSQL database and a
Redis of its own (the scaled-out settings, `loadtest.scratch`) and a small OTLP/HTTP receiver
that takes every span and answers at once. Then, in a fresh process for each (a process's
tracer provider is set once), it plays random legal moves of matches between four people
through the whole Django stack, with no OTEL_* variable (off, the default) and with
OTEL_EXPORTER_OTLP_ENDPOINT on the receiver (on: every request, query and move traced, every
span exported in batches), `--rounds` processes of each, turn about. Each move is timed from
the request to its answer, and the process's CPU (the export's thread included) over them
(which includes the reads between moves, alike in both modes); the first 40 moves of each
process are a warm-up. Prints the median and p90 of each mode, its CPU a move, and the
differences.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from loadtest.people import play_random_moves
from loadtest.scratch import scaled_out

WARM_UP_MOVES = 40


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=400)
    parser.add_argument("--admin-url", default=os.environ.get(
        "BENCH_ADMIN_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres"))
    parser.add_argument("--rounds", type=int, default=3,
                        help="processes of each mode, run turn about")
    parser.add_argument("--measure", choices=["off", "on"], help=argparse.SUPPRESS)
    parser.add_argument("--round", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure:
        print(json.dumps(measure(args.moves, f"{args.measure}{args.round}",
                                 traced=args.measure == "on")))
        return 0
    receiver, spans = _receiver()
    endpoint = f"http://127.0.0.1:{receiver.server_address[1]}"
    results: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    with scaled_out(args.admin_url, "tracingcost", DJANGO_SETTINGS_MODULE="loadtest.settings",
                    THROTTLE_USER_RATE="1000000/minute") as stack:
        env = {name: value for name, value in stack.env.items()
               if not name.startswith("OTEL_")}
        modes = {"off": {}, "on": {"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
                                   "OTEL_SERVICE_NAME": "tracing-cost"}}
        # Turn about, so that whatever else the machine does falls on both alike.
        for round_ in range(args.rounds):
            for mode, extra in modes.items():
                answer = subprocess.run(
                    [sys.executable, "-m", "loadtest.tracing_cost", "--moves", str(args.moves),
                     "--measure", mode, "--round", str(round_)], env={**env, **extra},
                    check=True, capture_output=True, text=True)
                figures = json.loads(answer.stdout.strip().splitlines()[-1])
                results.setdefault(mode, []).extend(figures["seconds"])
                cpu.setdefault(mode, []).append(figures["cpu_per_move"])
    receiver.shutdown()
    print(f"{args.moves} moves a process, {args.rounds} processes each; spans exported with "
          f"tracing on: {spans[0]}")
    for mode, seconds in results.items():
        print(f"tracing {mode:>3}: median {statistics.median(seconds) * 1000:.2f} ms, "
              f"p90 {_p90(seconds) * 1000:.2f} ms; the process's CPU "
              f"{statistics.median(cpu[mode]) * 1000:.2f} ms a move")
    off, on = (statistics.median(results[mode]) for mode in ("off", "on"))
    print(f"difference: {(on - off) * 1000:+.2f} ms a move ({(on / off - 1) * 100:+.0f}%)")
    off, on = (statistics.median(cpu[mode]) for mode in ("off", "on"))
    print(f"CPU: {(on - off) * 1000:+.2f} ms a move ({(on / off - 1) * 100:+.0f}%)")
    return 0


def measure(moves: int, name: str, *, traced: bool) -> dict[str, Any]:
    """Seconds of each of ``moves`` moves (after the warm-up), in this process, by players
    named after ``name``, and the process's CPU seconds a move (all its threads: the spans'
    export included, which runs beside the requests) over them."""
    if traced:
        from batak_api.tracing import configure

        configure()  # before Django loads its middleware, as the servers do
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.test import Client
    from knox.models import AuthToken

    clients = []
    for index in range(4):
        user = get_user_model().objects.create_user(f"player{index}-{name}", password=None)
        _, token = AuthToken.objects.create(user)
        clients.append(Client(HTTP_AUTHORIZATION=f"Token {token}"))
    rng = random.Random(2026)
    seconds: list[float] = []
    while len(seconds) < WARM_UP_MOVES:
        _play_match(clients, rng, WARM_UP_MOVES - len(seconds), seconds)
    seconds.clear()
    began = time.process_time()
    while len(seconds) < moves:
        _play_match(clients, rng, moves - len(seconds), seconds)
    if traced:
        from opentelemetry import trace

        trace.get_tracer_provider().force_flush()  # type: ignore[attr-defined]
    return {"seconds": seconds, "cpu_per_move": (time.process_time() - began) / moves}


def _play_match(clients: list[Any], rng: random.Random, budget: int,
                seconds: list[float]) -> None:
    """Random legal moves of one new auction match of four people, at most ``budget``, each
    timed into ``seconds``."""

    @contextmanager
    def timed() -> Iterator[None]:
        began = time.perf_counter()
        yield
        seconds.append(time.perf_counter() - began)

    play_random_moves(clients, rng, budget, game="auction", around_move=timed)


def _receiver() -> tuple[ThreadingHTTPServer, list[int]]:
    """An OTLP/HTTP receiver, in a thread, that counts the spans it is sent and answers each
    export at once."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    taken = [0]

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            export = ExportTraceServiceRequest.FromString(body)
            taken[0] += sum(len(scope.spans) for resource in export.resource_spans
                            for scope in resource.scope_spans)
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, taken


def _p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[-1]


if __name__ == "__main__":
    sys.exit(main())
