"""Live streams scaled out: ``python -m loadtest.streams``.

Starts the scaled-out form on a scratch PostgreSQL database with its own Redis: gunicorn, a
Celery worker, beat, and the stream process (uvicorn, one process). Seats a guest at each of
``--tables`` matches against three Easy computer players and opens ``--listeners`` live streams
spread evenly over the tables (the table's own account, as on several devices). Once every
stream is open, each person plays at a person's pace: ``--think`` seconds after an event of
their stream, if it is their turn, a random legal move. The computer players answer at once.

Prints, for the ``--seconds`` that follow: how long after its commit each event reached each
listener (from the action's ``created_at``, stored in the move's transaction before its
commit, to the moment the listener has parsed it; one clock), for every listener, for the
first of each event, and by who moved (a person's move is stored by gunicorn, which builds
the answer inside the transaction, so its figures include that; a computer player's commits
at once); how many moves and deliveries that was; and the stream process's memory per
listener (its resident memory with every stream open and idle, less with one), threads, CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import time
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit

from loadtest.scratch import scaled_out
from tests.integration.harness import client


class Table:
    def __init__(self, api: client.Api, match_id: str, think: float, rng: random.Random):
        self.api = api
        self.match_id = match_id
        self.think = think
        self.rng = rng
        self.pending = False
        self.playing = False
        self.moves = 0

    def nudge(self) -> None:
        """An event came: look whether it is the person's turn, after thinking."""
        if self.playing and not self.pending:
            self.pending = True
            asyncio.get_running_loop().create_task(self._maybe_move())

    async def _maybe_move(self) -> None:
        try:
            await asyncio.sleep(self.think * self.rng.uniform(0.5, 1.5))
            if await asyncio.to_thread(self._move):
                self.moves += 1
        finally:
            self.pending = False

    # The HTTP calls run in the loop's default pool (a few threads): more threads in this
    # process would make its listeners' own loop wait for the GIL and inflate the figures.
    def _move(self) -> bool:
        seat_view = client.view(self.api, self.match_id)
        if seat_view["status"] != "active" or not client.my_turn(seat_view):
            return False
        answer = client.act(self.api, self.match_id, client.random_action(seat_view, self.rng),
                            expected_version=seat_view["version"])
        return answer.status == 200


# How long after its commit each event reached its first listener, and all of them by who
# moved: a person's move is stored by the web process, which builds its answer before the
# commit; a computer player's by a worker, which commits at once.
FIRST: dict[tuple[str, int], float] = {}
BY_ORIGIN: dict[str, list[float]] = {"person": [], "computer": []}


class Listener:
    """One stream, read with asyncio: HTTP/1.1, chunked, Server-Sent Events."""

    def __init__(self, host: str, port: int, table: Table, delays: list[float],
                 drives: bool) -> None:
        self.host, self.port, self.table = host, port, table
        self.delays = delays
        self.drives = drives
        self.open = asyncio.Event()
        self.recording = False
        self.received = 0

    async def run(self) -> None:
        reader, writer = await asyncio.open_connection(self.host, self.port)
        writer.write((
            f"GET /api/v1/matches/{self.table.match_id}/stream HTTP/1.1\r\n"
            f"Host: {self.host}:{self.port}\r\nAuthorization: Token {self.table.api.token}\r\n"
            "Accept: text/event-stream\r\n\r\n").encode())
        await writer.drain()
        status = await reader.readline()
        assert b" 200 " in status, status
        while (await reader.readline()) not in (b"\r\n", b""):
            pass
        buffer = b""
        while True:
            size = int((await reader.readline()).strip() or b"0", 16)
            if size == 0:
                break
            buffer += await reader.readexactly(size)
            await reader.readexactly(2)
            *frames, buffer = buffer.split(b"\n\n")
            for frame in frames:
                self._frame(frame)
        writer.close()

    def _frame(self, frame: bytes) -> None:
        if frame.startswith(b"retry:"):
            self.open.set()
            return
        if b"event: action" not in frame:
            return
        data = json.loads(frame.split(b"data: ", 1)[1])
        if self.recording:
            created = datetime.fromisoformat(data["created_at"]).timestamp()
            delay = time.time() - created
            self.delays.append(delay)
            self.received += 1
            FIRST.setdefault((self.table.match_id, data["version"]), delay)
            BY_ORIGIN["person" if data["submitted_by"] == 0 else "computer"].append(delay)
        if self.drives:
            self.table.nudge()


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def _threads(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    raise RuntimeError("no Threads")


def _machine_busy() -> tuple[float, float]:
    """(busy, total) jiffies of every core since boot."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _set_playing(listeners: list[Listener], tables: list[Table], playing: bool) -> None:
    """Start (each table looks at once whether it is its person's turn) or stop the measured
    part: the listeners record the delays while the people play."""
    for listener in listeners:
        listener.recording = playing
    for table in tables:
        table.playing = playing
        if playing:
            table.nudge()


def _ms_at(share: float, values: list[float]) -> float:
    values = sorted(values)
    return round(1000 * values[min(len(values) - 1, int(len(values) * share))], 1)


def _delay_figures(values: list[float]) -> dict[str, float] | None:
    """Percentiles and the worst of ``values`` (seconds), in milliseconds; None for none."""
    if not values:
        return None
    return {"p50": _ms_at(0.5, values), "p95": _ms_at(0.95, values),
            "p99": _ms_at(0.99, values), "max": round(1000 * max(values), 1)}


async def _measure(stream_url: str, stream_pid: int, tables: list[Table], listeners: int,
                   seconds: float) -> dict[str, object]:
    parts = urlsplit(stream_url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    delays: list[float] = []
    first = Listener(host, port, tables[0], delays, drives=True)
    tasks = [asyncio.create_task(first.run())]
    await first.open.wait()
    await asyncio.sleep(1)
    rss_one, threads_one = _rss_kib(stream_pid), _threads(stream_pid)
    everyone = [first]
    for index in range(1, listeners):
        table = tables[index % len(tables)]
        listener = Listener(host, port, table, delays, drives=index < len(tables))
        everyone.append(listener)
        tasks.append(asyncio.create_task(listener.run()))
        if index % 50 == 0:
            await asyncio.sleep(0.05)  # clients arrive over a few seconds, not in one burst
    opening = time.monotonic()
    await asyncio.wait_for(asyncio.gather(*(one.open.wait() for one in everyone)), 120)
    opened_in = time.monotonic() - opening
    await asyncio.sleep(2)
    rss_all, threads_all = _rss_kib(stream_pid), _threads(stream_pid)
    _set_playing(everyone, tables, True)
    cpu_before, started = _cpu_seconds(stream_pid), time.monotonic()
    own_before = time.process_time()
    busy_before, total_before = _machine_busy()
    await asyncio.sleep(seconds)
    busy_after, total_after = _machine_busy()
    machine = (busy_after - busy_before) / max(1, total_after - total_before)
    elapsed = time.monotonic() - started
    cpu = (_cpu_seconds(stream_pid) - cpu_before) / elapsed
    own_cpu = (time.process_time() - own_before) / elapsed
    _set_playing(everyone, tables, False)
    failed = [task for task in tasks if task.done() and task.exception()]
    for task in tasks:
        task.cancel()
    return {
        "listeners": listeners,
        "streams_failed": len(failed),
        "all_open_within_seconds": round(opened_in, 1),
        "person_moves": sum(table.moves for table in tables),
        "deliveries": len(delays),
        "deliveries_per_second": round(len(delays) / seconds),
        "commit_to_listener_ms": _delay_figures(delays),
        "commit_to_first_listener_ms": _delay_figures(list(FIRST.values())),
        "commit_to_listener_ms_by_mover": {
            mover: _delay_figures(values) for mover, values in BY_ORIGIN.items()
        },
        "stream_process": {
            "rss_mib_one_listener": round(rss_one / 1024, 1),
            "rss_mib_all_listeners": round(rss_all / 1024, 1),
            "kib_per_listener": round((rss_all - rss_one) / max(1, listeners - 1), 1),
            "threads_one_listener": threads_one,
            "threads_all_listeners": threads_all,
            "cpu_share_of_a_core": round(cpu, 2),
        },
        "benchmark_client_cpu_share_of_a_core": round(own_cpu, 2),
        "machine_cpu_busy": round(machine, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m loadtest.streams", description=__doc__)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--listeners", type=int, default=1000)
    parser.add_argument("--think", type=float, default=3.0,
                        help="a person's seconds per move, on average")
    parser.add_argument("--seconds", type=float, default=40)
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/postgres")
    args = parser.parse_args()
    with scaled_out(args.database_url, "streams", LOG_LEVEL="WARNING",
                    THROTTLE_ANON_RATE="100000/minute", THROTTLE_USER_RATE="100000/minute",
                    GUEST_CREATION_RATE="100000/minute",
                    STREAM_MAX_PER_ACCOUNT=str(args.listeners),
                    STREAM_MAX_PER_PROCESS=str(args.listeners)) as stack:
        web = stack.start_web()
        stack.start_worker()
        stack.start_beat()
        stream_url = stack.start_stream()
        rng = random.Random(7)
        tables = []
        for _ in range(args.tables):
            api = client.guest(web)
            match_id = client.match_against_bots(api, levels=("easy",) * 3, deals=20)
            tables.append(Table(api, match_id, args.think, random.Random(rng.random())))
        report = asyncio.run(_measure(stream_url, stack.processes["stream"].pid, tables,
                                      args.listeners, args.seconds))
        report.update(tables=args.tables, think_seconds=args.think, seconds=args.seconds,
                      cpus=os.cpu_count())
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
