"""Load benchmark of the scaled-out form on this machine.

    python -m loadtest [--clients 50] [--seconds 20] [--level medium] [--json FILE]

Starts a scratch PostgreSQL database, a Redis of its own, gunicorn (the image's configuration),
the stream server and a Celery worker and beat, all on loopback, then runs the phases of
``--seconds`` each, with ``--clients`` simulated clients as threads of this process:

touch  each client posts to a trivial authenticated endpoint that does one database write:
       the framework's own cost per request, the baseline.
moves  each client plays all four seats of matches between people, so that every request is a
       move (the client follows each deal with the engine to know each seat's legal moves): the
       move endpoint's throughput, reported as a share of the baseline's.
bots   each client plays matches against three computer players of ``--level`` as a
       push-first app does, from its seat's stream (one POST a move, no read): move latency,
       bot turnaround (the person's move answered → the person's next `turn` heard), the
       person's wait (move sent → next `turn` heard: where the computer players play in the
       move's request, its answer comes after them), actions per second (the bots' included).
hard   the bots phase again, against three Hard computer players (whatever ``--level``
       says): the search's decision time under load, read off the log.
hostile  the bots phase again, while ``--hostile`` accounts do everything their limits allow,
       flat out: each tries a match of computer players alone and more computer players'
       deals than it may have (both refused), and plays the heaviest match it may keep (52
       deals against three Hard computer players) without a pause. The clients' turnaround
       wait is reported against the bots phase's, measured in the same run.
hostile-platform  the same with ``--hostile`` players of one partner platform in place of the
       hostile accounts, each doing with its player token all a hostile account does.
hooks  the bots phase again, while ``--hostile`` partner platforms play matches of four of
       their players flat out, each subscribed to six webhook receivers (in this process)
       that answer at once.
hostile-hooks  the hooks phase again, with receivers that misbehave every way they can: a
       header every half second, silence, no HTTP, a gigabyte of body, a redirect to
       loopback. The clients' wait is reported against the hooks phase's: what the
       receivers' behaviour alone costs other people.

tables  ``--tables N --think S``: N tables at a person's pace (each a person against three
       computer players of ``--level``, thinking about S seconds a move), held for ``--seconds``:
       the bots phase's figures (and the latency once every table is set up, without the
       arrivals' burst) and, per action and per table, what the service spent: CPU by
       part (PostgreSQL's backends included), transactions and rows written, WAL bytes, Redis
       commands: the measured inputs of a capacity model.

The accounts' server time (SERVER_TIME_PER_ACCOUNT) is held to its budget only in a run with a
hostile phase: touch, moves and hard drive their accounts far past a person's.

Every bot phase reports those costs too. Finally every match played is checked against an
engine replay (no accepted move lost or
applied twice), the scratch database is dropped and every process stopped.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import os
import platform
import random
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from http.client import HTTPException
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg

from tests.integration.harness import client
from tests.integration.harness.stack import ROOT, Stack, production_env
from tests.platforms.hostile import HostileReceiver
from tests.platforms.receiver import Receiver

PHASES = ("touch", "moves", "bots", "hard", "hostile", "hostile-platform", "hooks",
          "hostile-hooks", "tables")
# Phases that play against computer players, and the level they play against.
BOT_PHASES = {"bots": None, "hard": "hard", "hostile": None, "hostile-platform": None,
              "hooks": None, "hostile-hooks": None, "tables": None}
# Phases with other clients beside the measured ones: hostile accounts, partner platforms.
HOSTILE_PHASES = ("hostile", "hostile-platform", "hooks", "hostile-hooks")
HOOK_PHASES = ("hooks", "hostile-hooks")


@dataclasses.dataclass
class Budget:
    """A phase's bounds: a deadline and a number of requests, whichever comes first."""

    deadline: float
    requests: itertools.count[int]
    limit: int

    def take(self) -> bool:
        return time.monotonic() < self.deadline and next(self.requests) < self.limit

    def open(self) -> bool:
        return time.monotonic() < self.deadline


@dataclasses.dataclass
class Tally:
    """What one client thread saw; merged per phase."""

    latencies: list[float] = dataclasses.field(default_factory=list)
    sent_at: list[float] = dataclasses.field(default_factory=list)  # of each latency's request
    # When this client's first table was set up (bot phases): the phase is "seated" once every
    # client's was, and the arrivals' burst of sign-ups and new matches is over.
    seated_at: float = 0.0
    turnarounds: list[float] = dataclasses.field(default_factory=list)
    # A person's move sent → their next turn heard: the move's request (which includes the
    # computer players' round when they play in it) and the turnaround together.
    waits: list[float] = dataclasses.field(default_factory=list)
    reads: Counter[str] = dataclasses.field(default_factory=Counter)
    errors: Counter[str] = dataclasses.field(default_factory=Counter)
    # (match id, version, seat, action) of every move answered with 200.
    accepted: list[tuple[str, int, int, dict[str, Any]]] = dataclasses.field(default_factory=list)

    def merge(self, other: Tally) -> None:
        self.latencies += other.latencies
        self.sent_at += other.sent_at
        self.seated_at = max(self.seated_at, other.seated_at)
        self.turnarounds += other.turnarounds
        self.waits += other.waits
        self.reads.update(other.reads)
        self.errors.update(other.errors)
        self.accepted += other.accepted

    def answer(self, response: client.Response, expected: int = 200) -> bool:
        self.latencies.append(response.seconds)
        self.sent_at.append(time.monotonic() - response.seconds)
        if response.status != expected:
            code = response.body.get("code") if isinstance(response.body, dict) else ""
            self.errors[f"{response.status} {code}".strip()] += 1
            return False
        return True


# --- the clients -------------------------------------------------------------------------------


def touch_client(web: str, token: str, budget: Budget, rng: random.Random) -> Tally:
    tally = Tally()
    api = client.Api(web, token)
    while budget.take():
        tally.answer(api.post("/loadtest/touch"))
    api.close()
    return tally


def moves_client(web: str, tokens: list[str], budget: Budget, rng: random.Random) -> Tally:
    tally = Tally()
    apis = [client.Api(web, token) for token in tokens]
    while budget.open():
        match_id = client.expect(apis[0].post(f"{client.API}/matches", {
            "game": "auction", "deals": 4, "seats": [{"kind": "me"}] + [{"kind": "open"}] * 3,
            "visibility": "public",
        }), 201, "create match")["id"]
        for seat, api in enumerate(apis[1:], start=1):
            client.expect(api.post(f"{client.API}/matches/{match_id}/join", {"seat": seat}),
                          200, "join")
        while budget.open() and (tracked := _follow_deal(apis, match_id)) is not None:
            if not _play_deal(apis, match_id, *tracked, budget, rng, tally):
                break  # refused: the next match starts from a known state
    return tally


def _play_deal(
    apis: list[client.Api],
    match_id: str,
    deal: Any,
    version: int,
    budget: Budget,
    rng: random.Random,
    tally: Tally,
) -> bool:
    """Play random legal moves for whichever seat is to act until the deal is over; False when
    the budget ran out or a move was refused."""
    from games import engine

    while not deal.is_over:
        if not budget.take():
            return False
        seat = deal.to_act
        action = rng.choice(
            [a for a in deal.legal_actions(seat) if a.kind != engine.ActionKind.REDEAL]
        )
        response = client.act(apis[seat], match_id, action.to_dict(), expected_version=version)
        if not tally.answer(response):
            return False
        deal.apply(seat, action)
        version = response.body["version"]
        tally.accepted.append((match_id, version, seat, action.to_dict()))
    return True


def _follow_deal(apis: list[client.Api], match_id: str) -> tuple[Any, int] | None:
    """The engine state of the match's current deal, built from the four seats' hands, and the
    match version; None when the match is over."""
    from games import engine

    views = [client.view(api, match_id) for api in apis]
    if views[0]["deal"] is None:
        return None
    deal = views[0]["deal"]
    start = engine.DealStart.from_cards(
        engine.TableRules.from_dict(views[0]["rules"]),
        deal["dealer"],
        [[engine.Card.parse(card) for card in view["deal"]["hand"]] for view in views],
        deal["number"],
    )
    return engine.Deal(start), views[0]["version"]


def bots_client(
    web: str, stream: str, token: str, budget: Budget, rng: random.Random, level: str,
    think: float,
) -> Tally:
    tally = Tally()
    api = client.Api(web, token)
    # People neither arrive nor think in step: without this, clients started together would
    # keep sending their moves in bursts.
    time.sleep(rng.uniform(0, think))
    while budget.open():
        match_id = client.match_against_bots(api, levels=[level] * 3, deals=4)
        tally.seated_at = tally.seated_at or time.monotonic()
        play_against_bots(api, stream, match_id, budget, rng, think, tally)
    api.close()
    return tally


# A stream quiet this long while the person waits is opened again (with Last-Event-ID), so a
# client notices the phase's end.
STREAM_QUIET_SECONDS = 5.0


def play_against_bots(
    api: client.Api, stream: str, match_id: str, budget: Budget, rng: random.Random,
    think: float, tally: Tally,
) -> None:
    """The person's moves in ``match_id`` until it ends or the budget does, played as a
    push-first app plays: one stream of the match (on the stream server), each `turn` it tells
    answered with one POST ``think`` (about) after it. No view is read."""
    # When the person's last move was sent and answered, and the version it made.
    answered: tuple[float, float, int] | None = None
    for turn in client.turns(api, match_id, stream=stream, quiet=STREAM_QUIET_SECONDS,
                             going=budget.open):
        if answered is not None and turn["version"] > answered[2]:
            heard = time.perf_counter()
            tally.turnarounds.append(heard - answered[1])
            tally.waits.append(heard - answered[0])
        time.sleep(rng.uniform(0.5, 1.5) * think)
        if not budget.take():
            return
        action = rng.choice([a for a in turn["legal_actions"] if a["kind"] != "redeal"])
        sent = time.perf_counter()
        response = client.act(api, match_id, action, expected_version=turn["version"])
        while response.status == 429 and budget.open():
            # Past its server time (a hostile account): waits as Retry-After asks, and again.
            tally.reads[f"refused 429 {response.body.get('code')}"] += 1
            retry_after = {name.lower(): value for name, value in response.headers.items()}
            time.sleep(float(retry_after.get("retry-after", "1")))
            response = client.act(api, match_id, action, expected_version=turn["version"])
        answered = None
        if tally.answer(response):
            tally.accepted.append((match_id, response.body["version"], 0, action))
            answered = (sent, time.perf_counter(), response.body["version"])


def hostile_client(web: str, stream: str, token: str, budget: Budget,
                   rng: random.Random) -> Tally:
    """One account doing all its limits allow, flat out (see the module's ``hostile``)."""
    tally = Tally()
    api = client.Api(web, token)
    hard = [{"kind": "bot", "bot_level": "hard"}] * 3
    bots_only = api.post(f"{client.API}/matches", {"deals": 52, "seats": [*hard, hard[0]]})
    match_id = client.match_against_bots(api, levels=["hard"] * 3, deals=52)
    beyond_the_cap = api.post(f"{client.API}/matches",
                              {"deals": 52, "seats": [{"kind": "me"}, *hard]})
    for refused in (bots_only, beyond_the_cap):
        tally.reads[f"refused {refused.status} {refused.body.get('code')}"] += 1
    play_against_bots(api, stream, match_id, budget, rng, 0.0, tally)
    tally.reads["moves"] = len(tally.accepted)
    api.close()
    return tally


def hostile_platform_player(web: str, stream: str, key: str, budget: Budget,
                            rng: random.Random) -> Tally:
    """One of a platform's players doing all its limits allow, flat out (see the module's
    ``hostile-platform``): with the token the platform got for it, as the hostile accounts do."""
    server = client.Api(web)
    external_id = f"hostile-{secrets.token_hex(4)}"
    player = server.request("PUT", f"{client.API}/platform/players/{external_id}",
                            {"display_name": external_id},
                            headers={"Authorization": f"Api-Key {key}"})
    server.close()
    token = client.expect(player, 201, "platform player")["token"]
    return hostile_client(web, stream, token, budget, rng)


def hostile_platform_client(web: str, receivers: list[str], budget: Budget,
                            rng: random.Random) -> Tally:
    """A partner platform subscribed to ``receivers`` for every event, playing matches of four
    of its players flat out (see the module's ``hooks``): no computer player's work, only
    moves and their webhooks."""
    tally = Tally()
    key = _platform_key("Hostile")
    server = client.Api(web)
    headers = {"Authorization": f"Api-Key {key}"}
    every_type = ["turn.started", "deal.ended", "match.finished", "seat.timed_out"]
    for url in receivers:
        tally.answer(server.request("POST", f"{client.API}/platform/webhooks",
                                    {"url": url, "event_types": every_type},
                                    headers=headers), 201)
    apps = {}
    for seat in range(4):
        player = server.request("PUT", f"{client.API}/platform/players/p{seat}",
                                {"display_name": f"p{seat}"}, headers=headers)
        apps[seat] = client.Api(web, player.body["token"])
    seats = [{"kind": "player", "external_id": f"p{seat}"} for seat in range(4)]
    while budget.open():
        match = server.request("POST", f"{client.API}/platform/matches",
                               {"game": "auction", "deals": 1, "seats": seats, "clock": None},
                               headers=headers)
        if not tally.answer(match, 201):
            break
        for _ in client.moves_to_the_end(apps, match.body["id"], rng):
            tally.reads["platform moves"] += 1
            if not budget.open():
                break
    for api in (server, *apps.values()):
        api.close()
    return tally


def run_phase(
    name: str, count: int, seconds: float, limit: int, make: Callable[[int, Budget], Tally]
) -> tuple[Tally, float]:
    budget = Budget(time.monotonic() + seconds, itertools.count(), limit)
    results: list[Tally] = [Tally() for _ in range(count)]

    def run(index: int) -> None:
        try:
            results[index] = make(index, budget)
        except (OSError, HTTPException, client.ApiError) as error:
            results[index].errors[f"client stopped: {type(error).__name__}: {error}"[:160]] += 1

    threads = [threading.Thread(target=run, args=(i,), name=f"{name}-{i}") for i in range(count)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    total = Tally()
    for result in results:
        total.merge(result)
    return total, elapsed


# --- measuring ---------------------------------------------------------------------------------


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def cpu_seconds(pids: list[int]) -> dict[int, float]:
    """User and system CPU time of each of these processes still alive."""
    ticks = os.sysconf("SC_CLK_TCK")
    times = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        times[pid] = (int(fields[11]) + int(fields[12])) / ticks
    return times


def cpu_used(before: dict[int, float], after: dict[int, float]) -> float:
    # Only processes alive at both ends: a database backend that came and went (other clients
    # of the server) would otherwise count as negative time.
    return sum(after[pid] - before[pid] for pid in after.keys() & before.keys())


def busy_cores() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far, from /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]
    ticks = os.sysconf("SC_CLK_TCK")
    return (sum(fields) - idle) / ticks, sum(fields) / ticks


def process_groups(stack: Stack) -> dict[str, list[int]]:
    """The pids of each part, by process session (each was started in one of its own), and of
    this process (the clients)."""
    sessions = {process.pid: name for name, process in stack.processes.items()}
    groups: dict[str, list[int]] = {name: [] for name in stack.processes}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        session = int(stat.rsplit(")", 1)[1].split()[3])
        if session in sessions:
            groups[sessions[session]].append(int(entry.name))
    groups["clients"] = [os.getpid()]
    return groups


def pin(stack: Stack, placements: list[str]) -> None:
    """Keep each named part on its CPUs (``worker=1``: the workers on CPU 1; ``web=0``), every
    thread of every process of it: a machine's parts kept apart, as on separate hosts."""
    groups = process_groups(stack)
    for placement in placements:
        name, _, cpus = placement.partition("=")
        chosen = {int(cpu) for cpu in cpus.split(",")}
        for pid in groups[name]:
            for task in Path(f"/proc/{pid}/task").iterdir():
                os.sched_setaffinity(int(task.name), chosen)


def server_turnarounds(
    since: datetime, match_ids: set[str]
) -> tuple[list[float], list[float], list[float]]:
    """From the log of ``match_ids``: a person's move committed → the last of the bots' moves
    that followed it committed (the turn back with the person), for every person's move
    answered by bots; the same → the first of them committed (the turn's wait for a worker,
    and one decision); and a bot's move committed → the next bot's move committed, where one
    follows the other: that decision with its read and write, an upper bound of the decision
    time under the load."""
    from games.models import Action, Seat

    bots = set(Seat.objects.exclude(bot_level="").values_list("match_id", "index"))
    rows = Action.objects.filter(created_at__gte=since, match_id__in=match_ids).order_by(
        "match_id", "version")
    turnarounds, first_moves, intervals = [], [], []
    moved: datetime | None = None
    last_bot: datetime | None = None
    current = None
    for match_id, seat, created in rows.values_list("match_id", "seat", "created_at"):
        if match_id != current:
            current, moved, last_bot = match_id, None, None
        if (match_id, seat) in bots:
            if last_bot is not None:
                intervals.append((created - last_bot).total_seconds())
            elif moved is not None:
                first_moves.append((created - moved).total_seconds())
            last_bot = created
            continue
        if moved is not None and last_bot is not None:
            turnarounds.append((last_bot - moved).total_seconds())
        moved, last_bot = created, None
    return turnarounds, first_moves, intervals


def postgres_processes() -> list[int]:
    """The PostgreSQL server's processes on this machine (its backends come and go): their CPU
    is the database's part. Other databases' clients on the same server count too, so a run
    on a quiet server is the one to quote."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() == "postgres":
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


def service_counters(env: dict[str, str]) -> dict[str, float]:
    """The scratch database's transactions (an autocommitted read is one) and rows written,
    the server's WAL bytes and the bench's own Redis's commands, so far."""
    import redis

    with psycopg.connect(env["DATABASE_URL"]) as connection:
        row = connection.execute(
            "SELECT xact_commit, tup_inserted, tup_updated, tup_deleted FROM pg_stat_database "
            "WHERE datname = current_database()"
        ).fetchone()
        wal = connection.execute("SELECT wal_bytes FROM pg_stat_wal").fetchone()
    with redis.Redis.from_url(env["REDIS_URL"]) as server:
        commands = server.info("stats")["total_commands_processed"]
    assert row is not None and wal is not None
    return {"transactions": row[0], "rows_inserted": row[1], "rows_updated": row[2],
            "rows_deleted": row[3], "wal_bytes": float(wal[0]), "redis_commands": commands}


def _costs(cpu: dict[str, float], before: dict[str, float], after: dict[str, float],
           actions: int, tables: int, elapsed: float) -> dict[str, Any]:
    """What one action (a person's or a computer player's move) and one table cost the service:
    the capacity model's inputs."""
    per_action = max(actions, 1)
    spent = {name: after[name] - before[name] for name in after}
    service_cpu = {name: seconds for name, seconds in cpu.items() if name != "clients"}
    return {
        "cpu_ms_per_action": {name: round(seconds * 1000 / per_action, 2)
                              for name, seconds in service_cpu.items()},
        "per_action": {name: round(value / per_action, 2) for name, value in spent.items()},
        "cpu_cores_per_1000_tables": round(sum(service_cpu.values()) / elapsed / tables * 1000,
                                           2),
        "actions_per_table_minute": round(actions / tables / elapsed * 60, 2),
    }


def machine() -> dict[str, Any]:
    model = next(
        (line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
         if line.startswith("model name")), platform.processor(),
    )
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        "kernel": platform.release(),
    }


# --- the run -----------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m loadtest", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20, help="length of each phase")
    parser.add_argument("--max-requests", type=int, default=100_000, help="per phase")
    parser.add_argument("--level", default="medium", help="level of the computer players")
    parser.add_argument("--think", type=float, default=0.0,
                        help="mean seconds a person thinks before each move in the bots phase "
                        "(each wait drawn between half and one and a half times this)")
    parser.add_argument("--phases", default=",".join(p for p in PHASES if p != "tables"))
    parser.add_argument("--tables", type=int,
                        help="the tables phase alone, with this many tables (clients) at a "
                        "person's pace (--think, 3 s unless given)")
    parser.add_argument("--hostile", type=int, default=4,
                        help="accounts doing all their limits allow in the hostile phase")
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument("--web-threads", type=int, default=32)
    parser.add_argument("--celery-concurrency", type=int, default=2)
    parser.add_argument("--pin", action="append", default=[], metavar="PART=CPUS",
                        help="keep a part's processes on these CPUs (e.g. worker=1 web=0), "
                        "as if on a host of its own; repeat for each part")
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/postgres",
                        help="a PostgreSQL server (and database to connect to) where a scratch "
                        "database may be created and dropped")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    parser.add_argument("--logs", type=Path,
                        help="keep the processes' logs (JSON lines) in this folder")
    args = parser.parse_args(argv)
    phases = [phase for phase in args.phases.split(",") if phase]
    if args.tables:
        phases, args.clients = ["tables"], args.tables
        args.think = args.think or 3.0
    unknown = set(phases) - set(PHASES)
    if unknown:
        parser.error(f"unknown phases: {', '.join(sorted(unknown))}")

    scratch = f"batak_loadtest_{os.getpid()}_{secrets.token_hex(3)}"
    admin_url = args.database_url
    url = urlunsplit(urlsplit(admin_url)._replace(path=f"/{scratch}"))
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{scratch}"')
    logs = args.logs or Path(tempfile.mkdtemp(prefix="batak-loadtest-"))
    stack = Stack(production_env(url, "", LOG_LEVEL="INFO",
                                 # Every client signs up from 127.0.0.1 within seconds.
                                 THROTTLE_ANON_RATE="100000/minute",
                                 THROTTLE_USER_RATE="100000/minute",
                                 GUEST_CREATION_RATE="100000/minute",
                                 # The hooks phase's receivers listen on loopback.
                                 WEBHOOK_ALLOW_PRIVATE_ADDRESSES="true",
                                 # Every client follows its match with a long poll: all of
                                 # them may wait at once, leaving each process 4 threads.
                                 LONG_POLL_MAX_PER_PROCESS=str(max(1, args.web_threads - 4)),
                                 # touch, moves and hard drive a few accounts flat out, far
                                 # past a person's server time: the budget holds only in a run
                                 # of the hostile phases, which measure it.
                                 **({} if set(phases) & set(HOSTILE_PHASES)
                                    else {"SERVER_TIME_PER_ACCOUNT": "0"})),
                  logs)
    try:
        stack.env["REDIS_URL"] = stack.start_redis()
        _setup_django(stack.env)
        subprocess.run([sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"],
                       cwd=ROOT, env=stack.env, check=True)
        web = stack.start_web(workers=args.web_workers, threads=args.web_threads,
                              DJANGO_SETTINGS_MODULE="loadtest.settings")
        stack.start_stream()
        stack.start_worker(concurrency=args.celery_concurrency)
        stack.start_webhook_worker()
        stack.start_beat()
        pin(stack, args.pin)
        report = _run(args, phases, stack, web)
        report["machine"]["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
        report["database"] = _server_versions(stack.env)
    finally:
        stack.stop_all()
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{scratch}" WITH (FORCE)')
        if args.logs is None:
            shutil.rmtree(logs, ignore_errors=True)
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    failed = report["errors"] or report["lost_or_duplicated"]
    return 1 if failed else 0


def _setup_django(env: dict[str, str]) -> None:
    # This process reads the scratch database to check the logs at the end.
    for name in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "REDIS_URL", "DJANGO_DEBUG",
                 "DJANGO_SECRET_KEY", "CELERY_QUEUE"):
        os.environ[name] = env[name]
    import django

    django.setup()


def _run(args: argparse.Namespace, phases: list[str], stack: Stack, web: str) -> dict[str, Any]:
    report: dict[str, Any] = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "settings": {key: getattr(args, key) for key in
                     ("clients", "seconds", "level", "think", "hostile", "web_workers",
                      "web_threads", "celery_concurrency", "pin")},
        "phases": {},
    }
    rng = random.Random(2026)
    seats = 4 if "moves" in phases else 1
    tokens = [[client.guest(web).token or "" for _ in range(seats)] for _ in range(args.clients)]
    hostile_tokens = [client.guest(web).token or "" for _ in range(args.hostile)]
    accepted: list[tuple[str, int, int, dict[str, Any]]] = []
    errors = 0
    for phase in phases:
        seeds = [rng.randrange(2**32) for _ in range(args.clients + _hostile_count(args, phase))]
        make = _ClientMaker(args, phase, web, stack.urls["stream"], tokens, hostile_tokens,
                            seeds)
        receivers = _receivers(phase)
        make.receivers = [receiver.url for receiver in receivers]
        if phase == "hostile-platform":
            make.platform_key = _platform_key("Hostile players")
        try:
            result, tally = _run_measured_phase(args, phase, stack, make)
        finally:
            for receiver in receivers:
                receiver.stop()
        report["phases"][phase] = result
        accepted += tally.accepted
        errors += sum(tally.errors.values())
    report.update(_phase_ratios(report["phases"]))
    report.update(_audit(accepted))
    report["errors"] = errors
    return report


def _receivers(phase: str) -> list[HostileReceiver | Receiver]:
    """The webhook receivers of a hooks phase: six that answer at once, or six that misbehave."""
    if phase == "hooks":
        return [Receiver() for _ in range(6)]
    if phase == "hostile-hooks":
        target = HostileReceiver("silent")  # loopback, where a redirect must never lead
        receivers = [HostileReceiver(mode) for mode in ("trickle", "silent", "bad-status",
                                                        "huge-body")]
        return [*receivers, HostileReceiver("redirect", target=target.url), target]
    return []


def _platform_key(name: str) -> str:
    """A new partner platform with the default limits: a key of all its scopes."""
    from platforms import services
    from platforms.models import Scope

    platform = services.register_platform(name=f"{name} {secrets.token_hex(3)}")
    _, key = services.issue_key(platform=platform, name="server",
                                scopes=[scope.value for scope in Scope])
    return key


def _hostile_count(args: argparse.Namespace, phase: str) -> int:
    return args.hostile if phase in HOSTILE_PHASES else 0


@dataclasses.dataclass
class _ClientMaker:
    """Runs the phase's client ``i`` with its own seed: ``args.clients`` clients of the phase's
    kind, then (in the hostile phase) the hostile accounts. Those are kept apart in
    ``hostiles``: the clients' figures are what the hostile accounts may not spoil."""

    args: argparse.Namespace
    phase: str
    web: str
    stream: str  # the stream server's base URL
    tokens: list[list[str]]
    hostile_tokens: list[str]
    seeds: list[int]
    hostiles: list[Tally] = dataclasses.field(default_factory=list)
    # The hooks phase's misbehaving webhook receivers (URLs), one of each kind.
    receivers: list[str] = dataclasses.field(default_factory=list)
    # The hostile-platform phase's platform: its key, shared by its hostile players.
    platform_key: str = ""

    def __call__(self, i: int, budget: Budget) -> Tally:
        args, web = self.args, self.web
        rng = random.Random(self.seeds[i])
        if i >= args.clients and self.phase in HOOK_PHASES:
            hostile = hostile_platform_client(web, self.receivers, budget, rng)
            self.hostiles.append(hostile)
            return Tally(errors=hostile.errors)
        if i >= args.clients and self.phase == "hostile-platform":
            hostile = hostile_platform_player(web, self.stream, self.platform_key, budget, rng)
            self.hostiles.append(hostile)
            return Tally(accepted=hostile.accepted, errors=hostile.errors)
        if i >= args.clients:
            hostile = hostile_client(web, self.stream, self.hostile_tokens[i - args.clients],
                                     budget, rng)
            self.hostiles.append(hostile)
            return Tally(accepted=hostile.accepted, errors=hostile.errors)
        if self.phase == "touch":
            return touch_client(web, self.tokens[i][0], budget, rng)
        if self.phase == "moves":
            return moves_client(web, self.tokens[i], budget, rng)
        level = BOT_PHASES[self.phase] or args.level
        return bots_client(web, self.stream, self.tokens[i][0], budget, rng, level, args.think)


def _run_measured_phase(
    args: argparse.Namespace, phase: str, stack: Stack, make: _ClientMaker
) -> tuple[dict[str, Any], Tally]:
    """Run one phase; its figures, and what its clients saw."""
    groups = process_groups(stack)
    groups["postgres"] = postgres_processes()
    before = {name: cpu_seconds(pids) for name, pids in groups.items()}
    counters_before = service_counters(stack.env)
    machine_before = busy_cores()
    started_at = datetime.now(UTC)
    hostile = _hostile_count(args, phase)
    tally, elapsed = run_phase(phase, args.clients + hostile, args.seconds, args.max_requests,
                               make)
    if phase in BOT_PHASES:
        time.sleep(2)  # the bots' turns still queued when the clients stopped
    groups["postgres"] = postgres_processes()  # backends that came since are counted from 0
    after = {name: cpu_seconds(pids) for name, pids in groups.items()}
    counters_after = service_counters(stack.env)
    machine_after = busy_cores()
    result = {
        "seconds": round(elapsed, 1),
        "requests": len(tally.latencies),
        "requests_per_second": round(len(tally.latencies) / elapsed, 1),
        "latency_ms": _percentiles_ms(tally.latencies),
        "errors": dict(tally.errors),
        # Cores' worth of CPU each part used: what the machine's time went to.
        "cpu_share": {
            name: round(cpu_used(before[name], after[name]) / elapsed, 2) for name in after
        },
        # Busy share of all cores, whoever used them (PostgreSQL, other programs included).
        "machine_busy": round(
            (machine_after[0] - machine_before[0]) / (machine_after[1] - machine_before[1]), 2
        ),
    }
    if phase in BOT_PHASES:
        hostile_matches = {match_id for one in make.hostiles for match_id, *_ in one.accepted}
        clients_matches = {match_id for match_id, *_ in tally.accepted} - hostile_matches
        figures = _bot_phase_figures(tally, clients_matches, started_at, elapsed)
        # The same once every table was set up: the steady state at a person's pace, without
        # the arrivals' burst (all the phase's people sign up and start a match in the first
        # --think seconds).
        figures["latency_seated_ms"] = _percentiles_ms([
            seconds for seconds, sent in zip(tally.latencies, tally.sent_at, strict=True)
            if sent >= tally.seated_at
        ])
        cpu = {name: cpu_used(before[name], after[name]) for name in after}
        # A database backend started during the phase (a new connection) counts from zero.
        cpu["postgres"] += sum(after["postgres"][pid] for pid in
                               after["postgres"].keys() - before["postgres"].keys())
        figures["costs"] = _costs(cpu, counters_before, counters_after, figures["actions"],
                                  args.clients, elapsed)
        result.update(figures)
    if phase in HOSTILE_PHASES:
        seen: Counter[str] = Counter()
        for one in make.hostiles:
            seen.update(one.reads)
        result["hostile_accounts"] = {"accounts": hostile, **dict(seen)}
    if phase in HOOK_PHASES:
        result["webhooks"] = _deliveries(started_at)
    return result, tally


def _deliveries(since: datetime) -> dict[str, Any]:
    """What became of the platforms' webhook deliveries of the phase."""
    from platforms.models import WebhookDelivery

    rows = WebhookDelivery.objects.filter(created_at__gte=since)
    return {
        "deliveries": rows.count(),
        "attempted": rows.filter(attempts__gte=1).count(),
        "by_outcome": Counter(
            error.split(":")[0] or "delivered"
            for error in rows.filter(attempts__gte=1, in_flight_until__isnull=True)
            .values_list("last_error", flat=True)
        ),
    }


def _percentiles_ms(values: list[float]) -> dict[str, float]:
    return {f"p{q}": round(percentile(values, q / 100) * 1000, 1) for q in (50, 95, 99)}


def _bot_phase_figures(tally: Tally, clients_matches: set[str], started_at: datetime,
                       elapsed: float) -> dict[str, Any]:
    """A phase against computer players: the actions stored (the bots' included) and the
    turnaround, as the person sees it and as the log shows it."""
    from games.models import Action

    actions = Action.objects.filter(created_at__gte=started_at).count()
    # As the log shows it, for the measured clients' matches: the worker's part alone.
    served, first_moves, intervals = server_turnarounds(started_at, clients_matches)
    return {
        "actions": actions,
        "actions_per_second": round(actions / elapsed, 1),
        "reads": dict(tally.reads),
        # As the person sees it: their move answered → their next turn heard on the stream,
        # and their move sent → the same (what they wait for, whichever part plays the bots).
        "bot_turnaround_ms": _percentiles_ms(tally.turnarounds),
        "turn_wait_ms": _percentiles_ms(tally.waits),
        "bot_turnaround_in_log_ms": _percentiles_ms(served),
        "first_bot_move_in_log_ms": _percentiles_ms(first_moves),
        "bot_move_after_bot_move_ms": _percentiles_ms(intervals),
    }


def _phase_ratios(phases: dict[str, Any]) -> dict[str, float]:
    """The comparisons between phases run together: the hostile accounts' effect on the
    clients' wait for their next turn (move sent → next turn heard: the computer players may
    play in the move's request or after its answer), and a move's throughput against the
    baseline's."""
    ratios: dict[str, float] = {}
    for calm_phase, loaded_phase, name in (
        ("bots", "hostile", "hostile_to_calm_turnaround_p95"),
        ("bots", "hostile-platform", "hostile_platform_to_calm_turnaround_p95"),
        ("hooks", "hostile-hooks", "hostile_hooks_to_hooks_turnaround_p95"),
    ):
        if calm_phase in phases and loaded_phase in phases:
            calm = phases[calm_phase]["turn_wait_ms"]["p95"]
            loaded = phases[loaded_phase]["turn_wait_ms"]["p95"]
            ratios[name] = round(loaded / calm, 2)
    if "touch" in phases and "moves" in phases:
        ratios["moves_to_touch_throughput"] = round(
            phases["moves"]["requests_per_second"] / phases["touch"]["requests_per_second"], 2
        )
    return ratios


def _audit(accepted: list[tuple[str, int, int, dict[str, Any]]]) -> dict[str, Any]:
    """Every match played checked against an engine replay of its accepted moves."""
    from tests.integration.harness import audit

    by_match: dict[str, list[tuple[int, int, dict[str, Any]]]] = {}
    for match_id, version, seat, action in accepted:
        by_match.setdefault(match_id, []).append((version, seat, action))
    problems = []
    for match_id, moves in by_match.items():
        problems += [f"{match_id}: {problem}" for problem in audit.log_problems(match_id, moves)]
    return {
        "matches_checked": len(by_match),
        "accepted_moves_checked": len(accepted),
        "lost_or_duplicated": problems,
    }


def _server_versions(env: dict[str, str]) -> dict[str, str]:
    import redis

    with psycopg.connect(env["DATABASE_URL"]) as connection:
        row = connection.execute("SHOW server_version").fetchone()
    with redis.Redis.from_url(env["REDIS_URL"]) as server:
        info = server.info("server")
    return {"postgresql": row[0] if row else "?", "redis": str(info.get("redis_version"))}


if __name__ == "__main__":
    sys.exit(main())
