"""Fairness between accounts in the background work: ``python -m loadtest.fairness``.

    python -m loadtest.fairness [--parts webhooks-embedded,webhooks-scaled-out,analysis]
                                [--samples 40] [--database-url URL]

webhooks-embedded  another platform's webhook latency (its event committed → its receiver has it),
       one event at a time, calm and while one platform replays its events without a pause
       (a replay call every 0.5 s, each of up to 500 events, to a receiver that answers in
       0.05 s, as the other platform's does; both in a process of their own), on the embedded
       default as deployed (DEBUG off): SQLite and the webhooks' lane, in this process.
webhooks-scaled-out  the same scaled out: a scratch database on ``--database-url``'s server, a
       Redis of its own and a webhook worker (its 16 threads); this process writes the
       events and makes the replay calls.
analysis  another account's post-deal analysis latency (sent → analysed), one deal at a time,
       calm and while one account's flood of 65 ended deals waits, on the embedded default's
       analysis lane (the searches in the analysis processes, at the lowest priority).

Each part runs in a process of its own (a form's settings are read once) and prints p50 and
p95 calm, p50 and p95 beside the flood, and the ratio of the p95s (a latency past
GIVE_UP_SECONDS, 60 s, counts as 60 s).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.integration.harness.stack import ROOT

PARTS = ("webhooks-embedded", "webhooks-scaled-out", "analysis")
STORM_EVENTS = 500
RECEIVER_SECONDS = 0.05
FLOOD_DEALS = 65
# A delivery or an analysis not there after this long is counted as this long.
GIVE_UP_SECONDS = 60.0


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m loadtest.fairness",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default=",".join(PARTS))
    parser.add_argument("--part", choices=PARTS, help=argparse.SUPPRESS)  # (one, in-process)
    parser.add_argument("--samples", type=int, default=40)
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/postgres")
    args = parser.parse_args()
    if args.part is None:
        for part in args.parts.split(","):
            subprocess.run([sys.executable, "-m", "loadtest.fairness", "--part", part,
                            "--samples", str(args.samples), "--database-url",
                            args.database_url], cwd=ROOT, check=True)
        return
    if args.part == "webhooks-scaled-out":
        from loadtest.scratch import scaled_out

        with scaled_out(args.database_url, "fairness", LOG_LEVEL="WARNING",
                        WEBHOOK_ALLOW_PRIVATE_ADDRESSES="true") as stack:
            for name in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "REDIS_URL", "DJANGO_DEBUG",
                         "DJANGO_SECRET_KEY", "CELERY_QUEUE", "WEBHOOK_QUEUE",
                         "WEBHOOK_ALLOW_PRIVATE_ADDRESSES"):
                os.environ[name] = stack.env[name]
            stack.start_webhook_worker()
            # After the worker: the harness's app that asked it if it was up would otherwise be
            # this process's current Celery app, sending to no queue of the service's.
            _setup()
            report("webhooks, scaled out", *webhooks(args.samples))
        return
    scratch = Path(tempfile.mkdtemp(prefix="batak-fairness-"))
    # As deployed: DEBUG off (with it on, every query is also recorded, and SQLite quotes each
    # one's parameters with a query of its own).
    os.environ.update(DATABASE_URL=f"sqlite:///{scratch / 'db.sqlite3'}", REDIS_URL="",
                      LOG_LEVEL="WARNING", WEBHOOK_ALLOW_PRIVATE_ADDRESSES="true",
                      DJANGO_DEBUG="false", DJANGO_SECRET_KEY="fairness-benchmark-" + "x" * 40)
    _setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from django.conf import settings

    settings.IN_PROCESS_JOBS = True
    if args.part == "webhooks-embedded":
        report("webhooks, embedded default", *webhooks(args.samples))
    else:
        report("analysis, embedded default", *analyses(args.samples // 2))


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "batak_api.settings")
    import django

    django.setup()


def report(what: str, calm: list[float], flooded: list[float], flood: str) -> None:
    def p95(values: list[float]) -> float:
        return statistics.quantiles(values, n=20)[-1]

    print(f"{what}: calm p50 {statistics.median(calm) * 1000:.0f} ms, p95 "
          f"{p95(calm) * 1000:.0f} ms; {flood} p50 {statistics.median(flooded) * 1000:.0f} ms, "
          f"p95 {p95(flooded) * 1000:.0f} ms; p95 ratio {p95(flooded) / p95(calm):.2f}",
          flush=True)


def timed(samples: int, once: Callable[[], float], pause: float) -> list[float]:
    took = []
    for _ in range(samples):
        took.append(once())
        time.sleep(pause)
    return took


# --- webhooks ----------------------------------------------------------------------------------

def webhooks(samples: int) -> tuple[list[float], list[float], str]:
    from django.db import transaction

    from platforms import webhooks
    from platforms.models import DeliveryStatus, WebhookDelivery
    from tests.integration.harness.stack import free_port
    from tests.platforms import storms
    from tests.platforms.receiver import ReceiverProcess

    # The receivers (both platforms', as one) in a process of their own: their work is not
    # the service's.
    port = free_port()
    storming, calm = storms.storming_and_calm(f"http://127.0.0.1:{port}/hooks")
    receiver = ReceiverProcess(port, Path(tempfile.mkdtemp()) / "received.jsonl",
                               [storming.secret, calm.secret], answer_after=RECEIVER_SECONDS)
    storms.delivered_long_ago(storming, STORM_EVENTS)

    def one_event() -> float:
        made: list[float] = []
        with transaction.atomic():
            # Made once committed (before its deliveries are sent, on the commit too).
            transaction.on_commit(lambda: made.append(time.monotonic()))
            match_id = storms.calm_event(calm)
        while time.monotonic() - made[0] < GIVE_UP_SECONDS:
            for record in receiver.got():
                if record["body"]["data"]["match_id"] == match_id:
                    return record["at"] - made[0]
            time.sleep(0.002)
        return GIVE_UP_SECONDS

    calm_latencies = timed(samples, one_event, 0.1)
    stop = threading.Event()

    def storm() -> None:
        while not stop.is_set():
            webhooks.replay(storming, since=storming.created_at)
            time.sleep(0.5)

    storming_thread = threading.Thread(target=storm, daemon=True)
    storming_thread.start()
    time.sleep(2)
    stormy = len(receiver.got())
    flooded = timed(samples, one_event, 0.1)
    stormy = len(receiver.got()) - stormy - samples
    stop.set()
    storming_thread.join()
    WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING).update(
        status=DeliveryStatus.CANCELLED)
    receiver.stop()
    return calm_latencies, flooded, f"beside the storm ({stormy} of its attempts meanwhile)"


# --- analysis ----------------------------------------------------------------------------------

# What the analyses below recorded: (account, seconds from sent to analysed).
_analysed: list[tuple[int, float]] = []
_analysed_lock = threading.Lock()


def analyse(start: Any, log: Any, sent: float, account: int) -> None:
    """The lane's task: the analysis as the embedded default runs it (`bots.tasks.analyse_deal`
    without the database's read and write)."""
    from django.conf import settings

    from bots import analysis

    analysis.analyse_in_background(start, log, settings.ANALYSIS_SECONDS_PER_DEAL,
                                   processes=settings.ANALYSIS_PROCESSES)
    with _analysed_lock:
        _analysed.append((account, time.monotonic() - sent))


def analyses(samples: int) -> tuple[list[float], list[float], str]:
    from bots.tasks import ANALYSES
    from loadtest import fairness  # (what the lane's task records is there)
    from loadtest.analysis import _played, games

    rng = random.Random(1)
    rules = games()["auction"]
    deals = [_played(rules, rng) for _ in range(FLOOD_DEALS + 2 * samples + 1)]
    flooding, other = 1, 2

    def send(account: int) -> None:
        deal = deals.pop()
        ANALYSES.lane.send(analyse, deal.start, deal.log, time.monotonic(), account,
                           account=account)

    def one_deal() -> float:
        before = sum(account == other for account, _ in fairness._analysed)
        send(other)
        sent = time.monotonic()
        while time.monotonic() - sent < GIVE_UP_SECONDS:
            with fairness._analysed_lock:
                mine = [seconds for account, seconds in fairness._analysed if account == other]
            if len(mine) > before:
                return mine[-1]
            time.sleep(0.01)
        return GIVE_UP_SECONDS

    one_deal()  # the analysis process started and warm
    calm = timed(samples, one_deal, 0.5)
    for _ in range(FLOOD_DEALS):
        send(flooding)
    flooded = timed(samples, one_deal, 0.5)

    def flood_left() -> int:
        return FLOOD_DEALS - sum(account == flooding for account, _ in fairness._analysed)

    waiting = flood_left()
    while flood_left():  # (the analysis process ends with this one)
        time.sleep(0.5)
    return calm, flooded, f"beside the flood ({waiting} of its deals still waiting at the end)"


if __name__ == "__main__":
    main()
