"""Long polls of the event feed on the embedded default: ``python -m loadtest.long_polls``.

Starts the service as `scripts/serve` does (uvicorn, SQLite, computer players in-process) on a
scratch database, seats four people at a match, then holds ``--waiters`` long polls of
``--wait`` seconds open on a match where nothing moves (opened over the first quarter of the
wait). Prints the server's CPU while they wait (as a share of one core) and how long past
their ``wait`` they end. Each waiter connects before its clock starts.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from tests.integration.harness.stack import ROOT, free_port


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m loadtest.long_polls", description=__doc__)
    parser.add_argument("--waiters", type=int, default=200)
    parser.add_argument("--wait", type=int, default=10)
    args = parser.parse_args()
    port = free_port()
    scratch = Path(tempfile.mkdtemp(prefix="batak-long-polls-"))
    env = {**os.environ, "DJANGO_DEBUG": "true", "REDIS_URL": "", "LOG_LEVEL": "WARNING",
           "DATABASE_URL": f"sqlite:///{scratch / 'db.sqlite3'}", "PORT": str(port),
           # One account's waits, far past the bounds a deployment keeps (games/api/slots.py):
           # the cost of many waiters is what is measured here.
           "LONG_POLL_MAX_PER_ACCOUNT": str(args.waiters),
           "LONG_POLL_MAX_PER_PROCESS": str(args.waiters)}
    # The embedded default as its README command starts it (it migrates, then execs uvicorn).
    server = subprocess.Popen(
        ["bash", "scripts/serve"], cwd=ROOT, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        print(json.dumps(measure(port, server.pid, args.waiters, args.wait), indent=2))
    finally:
        server.terminate()
        server.wait()


def call(port: int, method: str, path: str, body: object = None, token: str = "") -> dict:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    payload = json.dumps(body or {}) if method == "POST" else None
    connection.request(method, f"/api/v1{path}", payload, headers)
    answer = json.loads(connection.getresponse().read())
    connection.close()
    return answer


def measure(port: int, pid: int, waiters: int, wait: int) -> dict:
    for _ in range(100):
        try:
            token = call(port, "POST", "/auth/guest")["token"]
            break
        except OSError:
            time.sleep(0.2)
    seats = [{"kind": "me"}] + [{"kind": "open"}] * 3
    match = call(port, "POST", "/matches", {"seats": seats, "visibility": "public"}, token)["id"]
    for seat in (1, 2, 3):
        call(port, "POST", f"/matches/{match}/join", {"seat": seat},
             call(port, "POST", "/auth/guest")["token"])
    late: list[float] = []
    failed: list[str] = []

    def waiter() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=wait + 60)
        try:
            connection.connect()
            started = time.monotonic()
            connection.request("GET", f"/api/v1/matches/{match}/events?after=0&wait={wait}",
                               headers={"Authorization": f"Token {token}"})
            connection.getresponse().read()
        except OSError as error:
            failed.append(type(error).__name__)
            return
        late.append(time.monotonic() - started - wait)

    def cpu_seconds() -> float:
        fields = Path(f"/proc/{pid}/stat").read_text().split(")")[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    threads = [threading.Thread(target=waiter) for _ in range(waiters)]
    for thread in threads:
        thread.start()
        # Spread over the first quarter of the wait: the development server accepts one
        # connection at a time, and a burst would measure its accept queue, not the waits.
        time.sleep(wait / 4 / waiters)
    time.sleep(min(2, wait / 4))
    used, since = cpu_seconds(), time.monotonic()
    time.sleep(wait / 2)
    share = (cpu_seconds() - used) / (time.monotonic() - since)
    for thread in threads:
        thread.join()
    late.sort()
    return {
        "waiters": waiters,
        "wait_s": wait,
        "failed": len(failed),
        "server_cpu_share_of_a_core": round(share, 3),
        "past_wait_s": {
            "p50": round(late[len(late) // 2], 2),
            "p90": round(late[int(len(late) * 0.9)], 2),
            "max": round(late[-1], 2),
            "over_1s": sum(seconds > 1 for seconds in late),
        },
    }


if __name__ == "__main__":
    main()
