"""A webhook receiver down for a while, scaled out: ``python -m loadtest.webhook_outage``.

Starts the webhook workers and beat on a scratch PostgreSQL database with its own Redis, and a
receiver in this process that verifies every delivery. A platform subscribes it to every event
type; this process makes the platform's events as its matches' follow-ups do (`emit`, one
transaction each) at ``--rate`` a second over ``--matches`` matches. The receiver answers 503
for ``--outage`` seconds, then 204 again. Prints how long after the receiver recovered the
first delivery was taken (the probe that found it back) and the last event made during the
outage arrived, and the deliveries' figures: attempts, each event
received (verified) once or more, each match's events in order.
"""

from __future__ import annotations

import argparse
import json
import os
import threading
import time
import uuid

from loadtest.scratch import scaled_out, use_django
from tests.platforms.receiver import Receiver


def _make_events(platform_id: int, matches: list[str], rate: float, until: float,
                 made: list[tuple[float, str]]) -> None:
    from django.db import connection, transaction

    from platforms import events
    from platforms.models import WebhookEvent

    every, turn = 1 / rate, 0
    due = time.monotonic()
    try:
        while (now := time.monotonic()) < until:
            time.sleep(max(0.0, due - now))
            due += every
            match_id = matches[turn % len(matches)]
            turn += 1
            with transaction.atomic():
                events.emit(platform_id, [("turn.started", {
                    "match_id": match_id, "version": turn, "seat": 0, "external_id": "p0",
                    "deadline": None})])
            newest = WebhookEvent.objects.order_by("-created_at").values_list(
                "id", flat=True).first()
            made.append((time.monotonic(), str(newest)))
    finally:
        connection.close()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m loadtest.webhook_outage",
                                     description=__doc__)
    parser.add_argument("--outage", type=float, default=60)
    parser.add_argument("--rate", type=float, default=10, help="events a second")
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/postgres")
    args = parser.parse_args()
    with scaled_out(args.database_url, "webhook_outage", LOG_LEVEL="WARNING",
                    WEBHOOK_ALLOW_PRIVATE_ADDRESSES="true") as stack:
        use_django(stack.env, "WEBHOOK_QUEUE", "WEBHOOK_ALLOW_PRIVATE_ADDRESSES")
        from platforms import services, webhooks

        stack.start_webhook_worker()
        stack.start_beat()
        receiver = Receiver()
        platform = services.register_platform(name="Outage Games")
        subscription = webhooks.subscribe(platform=platform, url=receiver.url, event_types=["*"])
        receiver.secrets["outage"] = subscription.secret
        matches = [str(uuid.uuid4()) for _ in range(args.matches)]
        made: list[tuple[float, str]] = []
        receiver.answers.clear()
        receiver.decide = lambda body: 503
        started = time.monotonic()
        recovers_at = started + args.outage
        writer = threading.Thread(target=_make_events, args=(
            platform.pk, matches, args.rate, recovers_at + 10, made))
        writer.start()
        time.sleep(max(0.0, recovers_at - time.monotonic()))
        receiver.decide = None  # 204 from now on
        recovered = time.monotonic()
        held = [event_id for at, event_id in made if at < recovered]
        writer.join()
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            delivered = {record["id"] for record in receiver.got if record["status"] == 204}
            if {event_id for _, event_id in made} <= delivered:
                break
            time.sleep(0.2)
        arrivals = {record["id"]: record["at"] for record in receiver.got
                    if record["status"] == 204}
        last_held = max((arrivals.get(event_id, float("inf")) for event_id in held),
                        default=float("nan"))
        first_taken = min((record["at"] for record in receiver.got
                           if record["status"] == 204), default=float("nan"))
        report = _report(receiver, made, held, last_held - recovered, args)
        report["first_delivery_after_recovery_seconds"] = round(first_taken - recovered, 2)
        receiver.stop()
    print(json.dumps(report, indent=2))


def _report(receiver: Receiver, made: list[tuple[float, str]], held: list[str],
            last_held_after: float, args: argparse.Namespace) -> dict[str, object]:
    accepted = [record for record in receiver.got if record["status"] == 204]
    order: dict[str, list[int]] = {}
    for record in sorted(accepted, key=lambda record: record["at"]):
        body = record["body"]
        sequences = order.setdefault(body["data"]["match_id"], [])
        if body["sequence"] not in sequences:
            sequences.append(body["sequence"])
    return {
        "outage_seconds": args.outage, "events_per_second": args.rate,
        "matches": args.matches, "events_made": len(made),
        "events_made_during_the_outage": len(held),
        "last_held_event_after_recovery_seconds": round(last_held_after, 2),
        "attempts": len(receiver.got),
        "every_event_delivered": {event_id for _, event_id in made}
        <= {record["id"] for record in accepted},
        "every_signature_valid": all(record["valid"] for record in receiver.got),
        "each_match_in_order": all(found == sorted(found) for found in order.values()),
        "cpus": os.cpu_count(),
    }


if __name__ == "__main__":
    main()
