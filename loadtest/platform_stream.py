"""One platform following its matches on one stream, scaled out:
``python -m loadtest.platform_stream``.

Starts the stream server (uvicorn, one process) on a scratch PostgreSQL database with its own
Redis, registers a platform and opens its stream (`GET /platform/stream`, from now). Writers in
this process then make the platform's events as the follow-ups of ``--matches`` matches in play
make them: one transaction per change, each with that match's next event, through
`platforms.events.emit` (the match's counter locked, the event written to the stream and
announced on commit), ``--rate`` events a second in all, round the matches in turn, for
``--seconds``. A platform with no webhook subscription: the figures are the stream's alone.

Prints: the events made and received; whether each match's events arrived exactly once and in
order (by `sequence`); how long after its event was stamped (in its transaction, just before
the commit) each arrived, parsed, at the follower (one clock); and what the stream costs: the
stream process's CPU per event, and the machine's.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import threading
import time
import uuid
from collections import defaultdict
from datetime import datetime

from loadtest.scratch import scaled_out, use_django
from loadtest.streams import _cpu_seconds, _delay_figures, _machine_busy
from tests import sse


def _writer(platform_id: int, matches: list[str], rate: float, until: float,
            made: list[int]) -> None:
    from django.db import connection, transaction

    from platforms import events

    every = 1 / rate
    due = time.monotonic()
    turn = 0
    try:
        while (now := time.monotonic()) < until:
            if now < due:
                time.sleep(due - now)
            due += every
            match_id = matches[turn % len(matches)]
            turn += 1
            with transaction.atomic():
                events.emit(platform_id, [("turn.started", {
                    "match_id": match_id, "version": turn, "seat": turn % 4,
                    "external_id": f"p{turn % 4}", "deadline": None,
                })])
            made[0] += 1
    finally:
        connection.close()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m loadtest.platform_stream",
                                     description=__doc__)
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=300, help="events a second, in all")
    parser.add_argument("--writers", type=int, default=4, help="writing threads")
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/postgres")
    args = parser.parse_args()
    with scaled_out(args.database_url, "platform_stream", LOG_LEVEL="WARNING") as stack:
        use_django(stack.env)
        from platforms import services
        from platforms.models import Scope

        stream_url = stack.start_stream()
        platform = services.register_platform(name="Bench Games")
        _, key = services.issue_key(platform=platform, name="bench",
                                    scopes=[Scope.MATCHES_READ.value])
        matches = [str(uuid.uuid4()) for _ in range(args.matches)]
        follower = sse.Follower(stream_url, "", key, scheme="Api-Key", timeout=60,
                                path="/api/v1/platform/stream")
        assert follower.status == 200, follower.status
        got: list[tuple[float, sse.Message]] = []

        def follow() -> None:
            with contextlib.suppress(OSError, AttributeError):  # closed at the end
                for message in follower:
                    if message.event not in ("comment", "retry"):
                        got.append((time.time(), message))

        reader = threading.Thread(target=follow, daemon=True)
        reader.start()
        time.sleep(1)
        made = [0]
        until = time.monotonic() + args.seconds
        writers = [
            threading.Thread(target=_writer, args=(
                platform.pk, matches[index::args.writers], args.rate / args.writers, until,
                made))
            for index in range(args.writers)
        ]
        pid = stack.processes["stream"].pid
        cpu_before, busy_before = _cpu_seconds(pid), _machine_busy()
        for writer in writers:
            writer.start()
        for writer in writers:
            writer.join()
        deadline = time.monotonic() + 10
        while len(got) < made[0] and time.monotonic() < deadline:
            time.sleep(0.1)
        cpu = _cpu_seconds(pid) - cpu_before
        busy_after = _machine_busy()
        follower.close()
        report = _report(got, made[0], args, cpu, busy_before, busy_after)
    print(json.dumps(report, indent=2))


def _report(got: list[tuple[float, sse.Message]], made: int, args: argparse.Namespace,
            cpu: float, busy_before: tuple[float, float], busy_after: tuple[float, float]
            ) -> dict[str, object]:
    sequences: dict[str, list[int]] = defaultdict(list)
    delays = []
    for arrived, message in got:
        body = message.json()
        sequences[body["data"]["match_id"]].append(body["sequence"])
        delays.append(arrived - datetime.fromisoformat(body["timestamp"]).timestamp())
    in_order_once = all(found == list(range(1, len(found) + 1)) for found in sequences.values())
    machine = (busy_after[0] - busy_before[0]) / max(1, busy_after[1] - busy_before[1])
    return {
        "matches": args.matches, "seconds": args.seconds, "rate_asked": args.rate,
        "events_made": made, "events_received": len(got),
        "events_per_second": round(made / args.seconds, 1),
        "matches_with_events": len(sequences),
        "each_match_in_order_exactly_once": in_order_once and len(got) == made,
        "stamp_to_follower_ms": _delay_figures(delays),
        "stream_process_cpu_ms_per_event": round(1000 * cpu / max(1, len(got)), 3),
        "machine_cpu_busy": round(machine, 2),
        "cpus": os.cpu_count(),
    }


if __name__ == "__main__":
    main()
