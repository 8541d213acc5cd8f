"""The first card a new user plays against three Hard computer players, on the embedded default.

`python -m loadtest.first_card` starts the service as `bash scripts/serve` does (uvicorn, SQLite,
computer players in-process) on a scratch database and an empty numba cache of its own, three
times, and each time a new guest plays the first deal's opening against three Hard players:

- `no install step`: the cache is empty, so the server compiles the search before it listens;
- `after a fresh install`: `python -m bots.compile` (the install step `scripts/serve` runs) filled
  the cache, and the server loads it;
- `after a restart`: the same server started again.

For each it prints how long the server took to answer its first request after the command,
and how long the person's first action and first card took to be answered (each answer comes
after the computer players' moves that follow it, as the embedded default plays them in the
request).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.integration.harness import client
from tests.integration.harness.stack import ROOT, free_port


def run_once(env: dict[str, str], seed: int) -> dict[str, float]:
    port = free_port()
    started = time.perf_counter()
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "batak_api.asgi:application", "--host", "127.0.0.1",
         "--port", str(port), "--no-access-log", "--lifespan", "off"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        while True:
            try:
                api = client.guest(base, "First card")
                break
            except OSError:
                if server.poll() is not None:
                    raise RuntimeError("the server exited") from None
                time.sleep(0.05)
        listening = time.perf_counter() - started
        match_id = client.match_against_bots(api, levels=["hard"] * 3, game="auction")
        rng = random.Random(seed)
        first_action = first_card = None
        while first_card is None:
            view = client.view(api, match_id)
            assert client.my_turn(view), "the computer players moved before answering"
            action = client.random_action(view, rng)
            sent = time.perf_counter()
            answer = client.act(api, match_id, action)
            took = time.perf_counter() - sent
            assert answer.status == 200, answer.body
            first_action = took if first_action is None else first_action
            if action["kind"] == "play":
                first_card = took
        api.close()
        assert first_action is not None  # the loop acted at least once
        return {"first_answer_s": round(listening, 2), "first_action_s": round(first_action, 3),
                "first_card_s": round(first_card, 3)}
    finally:
        server.terminate()
        server.wait(10)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="batak-first-card-") as scratch:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "batak_api.settings",
            "DATABASE_URL": f"sqlite:///{Path(scratch) / 'db.sqlite3'}",
            "NUMBA_CACHE_DIR": str(Path(scratch) / "numba"),
            "REDIS_URL": "",
            "LOG_LEVEL": "WARNING",
        }
        subprocess.run([sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"],
                       cwd=ROOT, env=env, check=True)
        report: dict[str, Any] = {"no install step": run_once(env, 1)}
        subprocess.run(["rm", "-rf", env["NUMBA_CACHE_DIR"]], check=True)
        subprocess.run([sys.executable, "-m", "bots.compile"], cwd=ROOT, env=env, check=True,
                       stdout=subprocess.DEVNULL)
        report["after a fresh install"] = run_once(env, 2)
        report["after a restart"] = run_once(env, 3)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"{'':<24} {'server answers':>15} {'first action':>13} {'first card':>11}")
        for case, figures in report.items():
            print(f"{case:<24} {figures['first_answer_s']:>13.2f} s "
                  f"{figures['first_action_s']:>11.3f} s {figures['first_card_s']:>9.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
