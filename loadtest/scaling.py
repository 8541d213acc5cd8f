"""How throughput and latency grow with the service's processes, and what a table costs: the
measured inputs of the capacity model (docs/capacity.md).

    python -m loadtest.scaling [--rounds 2] [--seconds 20] [--json FILE]

Runs `python -m loadtest` once per configuration (each its own scratch stack), in rounds, the
configurations of a round back to back so that they compare, and prints a Markdown table:

- web processes 1, 2, 4 (64 threads in all): the trivial write and the move endpoint flat out
  (`--phases touch,moves`, 50 clients);
- Celery processes 1, 2, 4: 50 people against Medium computer players flat out
  (`--phases bots`): actions a second and the people's turnaround;
- 25, 50 and 100 tables at a person's pace (`--tables N --think 3`, Celery 2, each web
  process with threads for half the tables' long polls and 8 more): the move's
  p99 a person sees, the turnaround, and each action's and each table's cost.

A configuration whose run fails (errors, a lost or doubled move) is shown with its errors.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

# name, then the loadtest arguments of the configuration
CONFIGURATIONS: list[tuple[str, list[str]]] = [
    # 64 threads in all: each keeps a database connection (DATABASE_CONN_MAX_AGE), and 4
    # processes of 32 ran PostgreSQL's default 100 out.
    *((f"web {n}", ["--phases", "touch,moves", "--clients", "50", "--web-workers", str(n),
                    "--web-threads", str(64 // n)])
      for n in (1, 2, 4)),
    *((f"celery {n}", ["--phases", "bots", "--clients", "50", "--celery-concurrency", str(n)])
      for n in (1, 2, 4)),
    # Each table's person follows its match with a long poll, which holds a thread: each of
    # the two web processes gets threads for half of them, and 8 more.
    *((f"tables {n}", ["--tables", str(n), "--think", "3", "--web-threads", str(n // 2 + 8)])
      for n in (25, 50, 100)),
]


def run(arguments: list[str], seconds: float) -> dict[str, Any]:
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        finished = subprocess.run(
            [sys.executable, "-m", "loadtest", *arguments, "--seconds", str(seconds),
             "--json", out.name],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False,
        )
        text = Path(out.name).read_text()
    if not text:
        return {"failed": finished.stderr[-500:]}
    report: dict[str, Any] = json.loads(text)
    return report


def row(name: str, report: dict[str, Any]) -> str:
    if "failed" in report:
        return f"| {name} | failed: {report['failed'][-120:]!r} |"
    phases = report["phases"]
    load = report["machine"]["load_average_at_start"][0]
    problems = f"{report['errors']} errors, {len(report['lost_or_duplicated'])} lost/doubled"
    if "moves" in phases:
        touch, moves = phases["touch"], phases["moves"]
        figures = (f"trivial {touch['requests_per_second']} req/s, moves "
                   f"{moves['requests_per_second']}/s = {report['moves_to_touch_throughput']}; "
                   f"web CPU {moves['cpu_share']['web']} cores")
    else:
        phase = phases["bots"] if "bots" in phases else phases["tables"]
        costs = phase["costs"]
        cpu = costs["cpu_ms_per_action"]
        per = costs["per_action"]
        figures = (
            f"{phase['actions_per_second']} actions/s; move p50/p99 "
            f"{phase['latency_ms']['p50']}/{phase['latency_ms']['p99']} ms; wait for the next "
            f"turn p50/p95 {phase['turn_wait_ms']['p50']}/{phase['turn_wait_ms']['p95']} ms; "
            f"CPU ms/action web {cpu['web']}, worker {cpu['worker']}, PostgreSQL "
            f"{cpu['postgres']}, Redis {cpu['redis']}; per action {per['transactions']} "
            f"transactions, {per['rows_inserted'] + per['rows_updated']:.2f} rows written, "
            f"{per['wal_bytes']:.0f} WAL bytes, {per['redis_commands']} Redis commands; "
            f"{costs['actions_per_table_minute']} actions/table-minute, "
            f"{costs['cpu_cores_per_1000_tables']} cores per 1,000 tables; machine busy "
            f"{phase['machine_busy']}"
        )
    return f"| {name} | {figures} | {problems} | {load} |"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m loadtest.scaling", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=20, help="length of each phase")
    parser.add_argument("--only", help="run only the configurations whose name starts so")
    parser.add_argument("--json", type=Path, help="also write every report to this file")
    args = parser.parse_args(argv)
    chosen = [(name, arguments) for name, arguments in CONFIGURATIONS
              if not args.only or name.startswith(args.only)]
    reports: list[dict[str, Any]] = []
    print("| configuration | figures | errors | load average at start |")
    print("| --- | --- | --- | --- |")
    for round_number in range(1, args.rounds + 1):
        for name, arguments in chosen:
            report = run(arguments, args.seconds)
            reports.append({"round": round_number, "configuration": name, **report})
            print(row(f"{name} (round {round_number})", report), flush=True)
    if args.json:
        args.json.write_text(json.dumps(reports, indent=2) + "\n")
    return 0 if all("failed" not in r and not r["errors"] for r in reports) else 1


if __name__ == "__main__":
    raise SystemExit(main())
