"""Turn clock accuracy scaled out: ``python -m loadtest.clocks``.

Starts the scaled-out form on a scratch PostgreSQL database (gunicorn, a Celery worker, beat
running the clocks every CLOCK_SWEEP_INTERVAL_SECONDS, its own Redis), seats four guests at
each of ``--tables`` matches with a ``--clock``-second clock, and lets nobody move: every turn
runs out and is played by the stand-in. Prints how late each timeout's move was applied after
its deadline (the deadline is when the move before it was stored, or the deal dealt, plus the
clock: a few milliseconds early, so the figures err on the late side).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from datetime import timedelta

from loadtest.scratch import scaled_out
from tests.integration.harness import client


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m loadtest.clocks", description=__doc__)
    parser.add_argument("--tables", type=int, default=30)
    parser.add_argument("--clock", type=int, default=5, help="seconds a call and a card")
    parser.add_argument("--seconds", type=float, default=40)
    parser.add_argument("--autopilot-after", type=int, default=1000,
                        help="timeouts in a row before autopilot (the default keeps every "
                        "move a timeout; 2, the service's default, adds autopilot moves)")
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/postgres")
    args = parser.parse_args()
    with scaled_out(args.database_url, "clocks", LOG_LEVEL="WARNING",
                    THROTTLE_ANON_RATE="100000/minute", THROTTLE_USER_RATE="100000/minute",
                    GUEST_CREATION_RATE="100000/minute",
                    AUTOPILOT_AFTER_TIMEOUTS=str(args.autopilot_after)) as stack:
        for name in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "REDIS_URL", "DJANGO_DEBUG",
                     "DJANGO_SECRET_KEY", "CELERY_QUEUE"):
            os.environ[name] = stack.env[name]
        import django

        django.setup()
        web = stack.start_web()
        stack.start_worker()
        stack.start_beat()
        matches = [_table(web, args.clock) for _ in range(args.tables)]
        time.sleep(args.seconds)
        report = _lateness(matches, args.clock)
        report.update(tables=args.tables, clock_seconds=args.clock, seconds=args.seconds,
                      autopilot_after=args.autopilot_after, cpus=os.cpu_count())
    print(json.dumps(report, indent=2))


def _table(web: str, seconds: int) -> str:
    people = [client.guest(web) for _ in range(4)]
    body = {"deals": 1, "visibility": "public", "clock": {"bid": seconds, "card": seconds},
            "seats": [{"kind": "me"}] + [{"kind": "open"}] * 3}
    match_id = client.expect(people[0].post(f"{client.API}/matches", body), 201, "create")["id"]
    for seat, api in enumerate(people[1:], start=1):
        client.expect(api.post(f"{client.API}/matches/{match_id}/join", {"seat": seat}), 200,
                      "join")
    return match_id


def _lateness(matches: list[str], clock: int) -> dict[str, object]:
    from games.models import Action, Deal

    late: list[float] = []
    others = 0
    for match_id in matches:
        started = {deal.pk: deal.started_at for deal in Deal.objects.filter(match_id=match_id)}
        previous = None
        for action in Action.objects.filter(match_id=match_id).order_by("version"):
            if action.origin != "timeout":
                others += 1
            else:
                since = started[action.deal_id] if previous is None or (
                    previous.deal_id != action.deal_id) else previous.created_at
                deadline = since + timedelta(seconds=clock)
                late.append((action.created_at - deadline).total_seconds())
            previous = action
    late.sort()

    def at(share: float) -> float:
        return round(late[min(len(late) - 1, int(len(late) * share))], 3)

    return {
        "timeouts": len(late),
        "other_moves": others,
        "late_seconds": {"p50": at(0.5), "p95": at(0.95), "max": round(late[-1], 3),
                         "min": round(late[0], 3)},
    }


if __name__ == "__main__":
    main()
