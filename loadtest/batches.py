"""A batch of scheduled matches, scaled out: ``python -m loadtest.batches``.

Starts gunicorn, a Celery worker and beat on a scratch PostgreSQL database with its own Redis,
registers a platform and four players a match, and creates one batch of ``--matches``
matches (four of the platform's players each, a 30 s bid clock) over the API, starting
``--lead`` seconds later. Prints how long the create call took, and for each match how long
after ``starts_at`` it started (its first deal dealt), how long after ``starts_at`` a reader
first saw it in play (this process reads the batch's matches every 10 ms: committed, not only
dated), and how its first turn clock compares with a clock started at ``starts_at``: p50 / p95
/ max.
"""

from __future__ import annotations

import argparse
import json
import os
import threading
import time
from datetime import timedelta

from loadtest.scratch import scaled_out, use_django
from tests.integration.harness import client

BID_SECONDS = 30


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m loadtest.batches", description=__doc__)
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--lead", type=float, default=30,
                        help="seconds from the create call to the batch's start")
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/postgres")
    args = parser.parse_args()
    with scaled_out(args.database_url, "batches", LOG_LEVEL="WARNING") as stack:
        use_django(stack.env)
        from django.utils import timezone

        from games.models import Deal, Match
        from platforms import services
        from platforms.models import Scope

        web = stack.start_web()
        stack.start_worker()
        stack.start_beat()
        platform = services.register_platform(name="Bench Games")
        services.Platform.objects.filter(pk=platform.pk).update(
            max_unfinished_matches=args.matches + 10, requests_in_flight=64)
        _, key = services.issue_key(platform=platform, name="bench",
                                    scopes=[scope.value for scope in Scope])
        for number in range(4 * args.matches):
            services.put_player(platform=platform, external_id=f"p{number}",
                                display_name=f"Player {number}", language=None)
        starts_at = timezone.now() + timedelta(seconds=args.lead)
        body = {"starts_at": starts_at.isoformat(), "matches": [
            {"game": "auction", "deals": 1, "clock": {"bid": BID_SECONDS, "card": 20},
             "seats": [{"kind": "player", "external_id": f"p{4 * index + seat}"}
                       for seat in range(4)]}
            for index in range(args.matches)]}
        api = client.Api(web)
        asked = time.monotonic()
        made = api.request("POST", f"{client.API}/platform/batches", body,
                           headers={"Authorization": f"Api-Key {key}"})
        create_seconds = time.monotonic() - asked
        assert made.status == 201, made.body
        ids = [match["id"] for match in made.body["matches"]]
        seen: dict[str, float] = {}  # when a reader first saw each in play (epoch seconds)
        watcher = threading.Thread(target=_watch, args=(ids, seen, time.time() + args.lead + 5))
        watcher.start()
        left = (starts_at - timezone.now()).total_seconds()
        time.sleep(max(0.0, left) + 5)
        watcher.join()
        starts = dict(Deal.objects.filter(match_id__in=ids, number=1).values_list(
            "match_id", "started_at"))
        deadlines = dict(Match.objects.filter(pk__in=ids).values_list("pk", "turn_deadline"))
        lags = [(started - starts_at).total_seconds() for started in starts.values()]
        clocks = [(deadline - starts_at).total_seconds() - BID_SECONDS
                  for deadline in deadlines.values() if deadline is not None]
        report = {
            "matches": args.matches, "lead_seconds": args.lead,
            "create_call_seconds": round(create_seconds, 2),
            "started": len(starts),
            "start_after_starts_at_ms": _figures(lags),
            "seen_in_play_after_starts_at_ms": _figures(
                [at - starts_at.timestamp() for at in seen.values()]),
            "first_clock_after_starts_at_ms": _figures(clocks),
            "cpus": os.cpu_count(),
        }
    print(json.dumps(report, indent=2))


def _watch(ids: list[str], seen: dict[str, float], until: float) -> None:
    from django.db import connection

    from games.models import Match

    try:
        while time.time() < until:
            for match_id in Match.objects.filter(pk__in=ids, status="active").values_list(
                    "pk", flat=True):
                seen.setdefault(str(match_id), time.time())
            time.sleep(0.01)
    finally:
        connection.close()


def _figures(values: list[float]) -> dict[str, float] | None:
    if not values:
        return None
    ordered = sorted(values)

    def at(share: float) -> float:
        return round(1000 * ordered[min(len(ordered) - 1, int(len(ordered) * share))], 1)

    return {"min": round(1000 * ordered[0], 1), "p50": at(0.5), "p95": at(0.95),
            "max": round(1000 * ordered[-1], 1)}


if __name__ == "__main__":
    main()
