"""The dashboard, shown: ``scripts/dashboard-preview`` (``python -m loadtest.dashboard``).

Starts the scaled-out form on a scratch PostgreSQL database (gunicorn, the stream server, a
Celery worker, the webhook worker and beat, a Redis of its own, METRICS_TOKEN set) and Debian's
Prometheus, scraping each server every second as deploy/prometheus.yml does in compose (with the
alert rules loaded). Then a scripted run, over the whole of which two tables whose people never
move play on by clock time-outs and three spectators watch one of them (two by a live stream):

people            ``--clients`` clients each play all four seats of matches, flat out;
computer players  ``--clients`` people each play against three computer players of
                  ``--level``, thinking about a second a move and following the event feed;
platforms         a partner platform plays matches of four of its players, flat out,
                  subscribed to three webhook receivers that answer and one that answers
                  no HTTP at all;
quiet             only the time-outs and the spectators.

Finally it asks Prometheus for every query of deploy/grafana-dashboard.json over the run
(``query_range``), renders every panel with its title, unit and series on the dashboard's grid
(``gridPos``) as a static HTML page of inline SVG charts, and saves Chromium's screenshot of it.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import html
import http.client
import itertools
import json
import math
import os
import random
import re
import shutil
import socket
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from loadtest import __main__ as bench
from loadtest.scratch import scaled_out
from tests.integration.harness import client
from tests.integration.harness.stack import ROOT, Stack, free_port, wait_until
from tests.platforms.hostile import HostileReceiver
from tests.platforms.receiver import Receiver

DASHBOARD = ROOT / "deploy" / "grafana-dashboard.json"
SCRAPE_CONFIG = ROOT / "deploy" / "prometheus.yml"
ALERT_RULES = ROOT / "deploy" / "prometheus-alerts.yml"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update"]

# Grafana's grid: 24 columns across, rows of 30 px, 8 px between panels.
COLUMNS = 24
ROW = 30
GAP = 8
PAGE_WIDTH = 1400
TITLE_HEIGHT = 28
LEGEND_ROWS = 3
LEGEND_ROW_HEIGHT = 16
AXIS_WIDTH = 62
AXIS_HEIGHT = 18
# Grafana's classic palette, in its order.
COLOURS = ("#73bf69", "#f2cc0c", "#8ab8ff", "#ff780a", "#f2495c", "#5794f2", "#b877d9",
           "#705da0", "#37872d", "#fade2a", "#447ebc", "#c15c17")
UNIT_NAMES = {"reqps": "requests/s", "ops": "per second", "percentunit": "share",
              "s": "seconds", "short": "count"}


# --- rendering (no server) -------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Series:
    """One line of a panel: its legend name and its (unix time, value) points; a NaN is a gap."""

    name: str
    points: list[tuple[float, float]]

    @property
    def peak(self) -> float:
        values = [value for _, value in self.points if math.isfinite(value)]
        return max(values, default=-math.inf)


@dataclasses.dataclass(frozen=True)
class Box:
    left: int
    top: int
    width: int
    height: int


def place(grid: dict[str, int], page_width: int = PAGE_WIDTH) -> Box:
    """Where a panel of ``gridPos`` ``grid`` goes on a page ``page_width`` wide, as Grafana
    lays it out: the columns share the width, the gaps between panels included."""
    column = (page_width + GAP) / COLUMNS
    left = round(grid["x"] * column)
    return Box(left=left, top=grid["y"] * (ROW + GAP),
               width=round((grid["x"] + grid["w"]) * column - GAP) - left,
               height=grid["h"] * (ROW + GAP) - GAP)


def legend_name(target: dict[str, Any], labels: dict[str, str]) -> str:
    """Grafana's name for a series: the target's legendFormat with ``{{label}}`` filled in,
    else its labels, else its expression."""
    shape = target.get("legendFormat")
    if shape:
        return re.sub(r"\{\{\s*(\w+)\s*\}\}", lambda m: labels.get(m.group(1), ""), shape)
    if labels:
        return "{" + ", ".join(f'{key}="{value}"' for key, value in sorted(labels.items())) + "}"
    return str(target["expr"])


def ticks(low: float, high: float, most: int = 5) -> list[float]:
    """Round values from at or below ``low`` to at or above ``high``, evenly spaced, at most
    ``most`` + 1 of them: the y axis's lines."""
    size = max(abs(low), abs(high))
    if high - low <= 1e-9 * max(1.0, size):  # flat: room above it, and below unless at 0
        pad = size / 2 if size > 1e-12 else 0.5
        low, high = (low, low + 2 * pad) if low == 0 else (low - pad, high + pad)
    rough = (high - low) / most
    power = 10 ** math.floor(math.log10(rough))
    step = next(power * factor for factor in (1, 2, 2.5, 5, 10)
                if power * factor * most >= high - low)
    first, last = math.floor(low / step), math.ceil(high / step)
    # A step times an index is rounded: one more line where it fell short of an end.
    first -= first * step > low
    last += last * step < high
    return [index * step for index in range(first, last + 1)]


def _short(value: float) -> str:
    for size, suffix in ((1e9, " G"), (1e6, " M"), (1e3, " K")):
        if abs(value) >= size:
            return f"{value / size:.3g}{suffix}"
    return f"{value:.3g}"


def format_value(value: float, unit: str) -> str:
    """A value as Grafana shows it in ``unit``."""
    if unit == "percentunit":
        return f"{value * 100:.3g}%"
    if unit == "s":
        return f"{value * 1000:.3g} ms" if abs(value) < 1 and value else f"{value:.3g} s"
    if unit == "reqps":
        return f"{_short(value)} req/s"
    if unit == "ops":
        return f"{_short(value)} ops/s"
    return _short(value)


def _clock(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).strftime("%H:%M:%S")


def _chart(series: list[Series], unit: str, width: int, height: int, start: float, end: float,
           marks: Sequence[tuple[str, float]]) -> str:
    """An SVG time-series chart of ``series`` from ``start`` to ``end``, phase starts marked."""
    plot_w, plot_h = width - AXIS_WIDTH - 8, height - AXIS_HEIGHT - 6
    values = [value for one in series for _, value in one.points if math.isfinite(value)]
    if not values:
        return (f'<svg width="{width}" height="{height}"><text x="{width / 2}" y="{height / 2}" '
                'class="nodata" text-anchor="middle">No data</text></svg>')
    lines = ticks(min(0.0, *values), max(values))
    low, high = lines[0], lines[-1]

    def x(moment: float) -> float:
        return AXIS_WIDTH + (moment - start) / (end - start) * plot_w

    def y(value: float) -> float:
        return 6 + plot_h - (value - low) / (high - low) * plot_h

    parts = [f'<svg width="{width}" height="{height}">']
    for value in lines:
        parts.append(f'<line class="grid" x1="{AXIS_WIDTH}" x2="{AXIS_WIDTH + plot_w}" '
                     f'y1="{y(value):.1f}" y2="{y(value):.1f}"/>'
                     f'<text class="axis" x="{AXIS_WIDTH - 6}" y="{y(value) + 4:.1f}" '
                     f'text-anchor="end">{html.escape(format_value(value, unit))}</text>')
    for index in range(5):
        moment = start + (end - start) * index / 4
        anchor = ("start", "middle", "middle", "middle", "end")[index]
        parts.append(f'<text class="axis" x="{x(moment):.1f}" y="{height - 4}" '
                     f'text-anchor="{anchor}">{_clock(moment)}</text>')
    for name, moment in marks:
        parts.append(f'<line class="mark" x1="{x(moment):.1f}" x2="{x(moment):.1f}" y1="6" '
                     f'y2="{6 + plot_h}"><title>{html.escape(name)}</title></line>')
    for colour, one in zip(itertools.cycle(COLOURS), series, strict=False):
        for run in _runs(one.points):
            path = " ".join(f"{x(t):.1f},{y(v):.1f}" for t, v in run)
            if len(run) == 1:
                parts.append(f'<circle cx="{x(run[0][0]):.1f}" cy="{y(run[0][1]):.1f}" r="1.5" '
                             f'fill="{colour}"/>')
            else:
                parts.append(f'<polyline points="{path}" stroke="{colour}"/>')
    parts.append("</svg>")
    return "".join(parts)


def _runs(points: list[tuple[float, float]]) -> Iterator[list[tuple[float, float]]]:
    """The stretches of a series without a gap (a NaN, or a step with no sample)."""
    step = min((b[0] - a[0] for a, b in itertools.pairwise(points)), default=0)
    run: list[tuple[float, float]] = []
    for moment, value in points:
        if run and (not math.isfinite(value) or moment - run[-1][0] > 1.5 * step):
            yield run
            run = []
        if math.isfinite(value):
            run.append((moment, value))
    if run:
        yield run


def _legend(series: list[Series]) -> str:
    shown = series if len(series) <= 2 * LEGEND_ROWS else series[: 2 * LEGEND_ROWS - 1]
    items = [f'<span class="item"><i style="background:{colour}"></i>{html.escape(one.name)}'
             "</span>" for colour, one in zip(itertools.cycle(COLOURS), shown, strict=False)]
    if len(shown) < len(series):
        items.append(f'<span class="item more">+ {len(series) - len(shown)} more series</span>')
    return f'<div class="legend">{"".join(items)}</div>'


def render_panel(panel: dict[str, Any], series: list[Series], start: float, end: float,
                 marks: Sequence[tuple[str, float]] = ()) -> str:
    """One panel as Grafana draws it: title and unit, chart, legend; its series ordered by
    their peak, the highest first (and first in the legend)."""
    box = place(panel["gridPos"])
    unit = panel.get("fieldConfig", {}).get("defaults", {}).get("unit", "short")
    ordered = sorted(series, key=lambda one: one.peak, reverse=True)
    chart_h = box.height - TITLE_HEIGHT - LEGEND_ROWS * LEGEND_ROW_HEIGHT - 10
    chart = _chart(ordered, unit, box.width - 16, chart_h, start, end, marks)
    return (f'<section class="panel" data-panel="{panel["id"]}" style="left:{box.left}px;'
            f'top:{box.top}px;width:{box.width}px;height:{box.height}px">'
            f'<h2>{html.escape(panel["title"])}<small>{UNIT_NAMES.get(unit, unit)}</small></h2>'
            f"{chart}{_legend(ordered)}</section>")


STYLE = """
body { margin: 0; background: #111217; color: #ccccdc;
       font: 12px "DejaVu Sans", "Liberation Sans", sans-serif; }
header { padding: 14px 16px 6px; }
header h1 { font-size: 18px; font-weight: 500; margin: 0 0 4px; color: #d8d9da; }
header p { margin: 2px 0; color: #9fa7b3; }
.grid { position: relative; margin: 8px 16px 16px; }
.panel { position: absolute; box-sizing: border-box; background: #181b1f;
         border: 1px solid #2c3235; border-radius: 2px; padding: 0 8px; overflow: hidden; }
.panel h2 { font-size: 13px; font-weight: 500; margin: 0; height: 28px; line-height: 28px;
            color: #d8d9da; white-space: nowrap; }
.panel h2 small { font-size: 11px; color: #8e8e8e; margin-left: 8px; font-weight: 400; }
svg { display: block; }
svg line.grid { stroke: #2c3235; stroke-width: 1; }
svg line.mark { stroke: #5a5f66; stroke-dasharray: 3 3; }
svg text.axis { fill: #9fa7b3; font-size: 10px; }
svg text.nodata { fill: #8e8e8e; font-size: 14px; }
svg polyline { fill: none; stroke-width: 1.5; }
.legend { display: grid; grid-template-columns: 1fr 1fr; column-gap: 12px; margin-top: 4px; }
.legend .item { height: 16px; line-height: 16px; white-space: nowrap; overflow: hidden;
                text-overflow: ellipsis; font-size: 11px; }
.legend .item i { display: inline-block; width: 14px; height: 3px; margin: 0 6px 3px 0;
                  vertical-align: middle; }
.legend .more { color: #8e8e8e; }
"""


def render_page(dashboard: dict[str, Any], answers: dict[int, list[Series]], start: float,
                end: float, marks: Sequence[tuple[str, float]], caption: str) -> str:
    """The whole dashboard as one static HTML page: every panel on its grid place."""
    panels = dashboard["panels"]
    height = max(place(panel["gridPos"]).top + place(panel["gridPos"]).height
                 for panel in panels)
    phases = ", ".join(f"{name} from {_clock(moment)}" for name, moment in marks)
    body = "".join(render_panel(panel, answers.get(panel["id"], []), start, end, marks)
                   for panel in panels)
    return (
        '<!doctype html><html><head><meta charset="utf-8">'
        f"<title>{html.escape(dashboard['title'])}</title><style>{STYLE}</style></head><body>"
        f"<header><h1>{html.escape(dashboard['title'])}</h1>"
        f"<p>{_clock(start)} to {_clock(end)} UTC; dashed lines: {html.escape(phases)}</p>"
        f"<p>{html.escape(caption)}</p></header>"
        f'<main class="grid" style="width:{PAGE_WIDTH}px;height:{height}px">{body}</main>'
        "</body></html>"
    )


def screenshot(page_html: str, out: Path) -> None:
    """Chromium's picture of the page (Debian's, driven by Playwright as the browser tests do)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": PAGE_WIDTH + 32, "height": 800})
        page.set_content(page_html)
        page.screenshot(path=str(out), full_page=True)
        browser.close()


# --- Prometheus -------------------------------------------------------------------------------


def prometheus_config(web_targets: list[str], worker_targets: list[str], token_file: Path,
                      interval: str) -> dict[str, Any]:
    """deploy/prometheus.yml with this run's targets and token, scraping every ``interval``."""
    config = yaml.safe_load(SCRAPE_CONFIG.read_text())
    config["global"]["scrape_interval"] = interval
    config["global"]["evaluation_interval"] = interval
    config["rule_files"] = [str(ALERT_RULES)]
    targets = {"batak-web": web_targets, "batak-workers": worker_targets}
    for job in config["scrape_configs"]:
        job["static_configs"] = [{"targets": targets[job["job_name"]]}]
        if "authorization" in job:
            job["authorization"]["credentials_file"] = str(token_file)
    return config


def start_prometheus(stack: Stack, config: dict[str, Any]) -> str:
    """Debian's Prometheus on loopback with ``config``; its URL, once every target is up."""
    folder = stack.logs / "prometheus"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "prometheus.yml").write_text(yaml.safe_dump(config))
    port = free_port()
    binary = shutil.which("prometheus")
    if binary is None:
        raise FileNotFoundError("prometheus is not installed (apt-get install prometheus)")
    stack.start("prometheus", [binary, f"--config.file={folder / 'prometheus.yml'}",
                               f"--storage.tsdb.path={folder / 'data'}",
                               f"--web.listen-address=127.0.0.1:{port}"])
    url = f"http://127.0.0.1:{port}"

    def all_up() -> bool:
        try:
            active = _get(url, "/api/v1/targets")["activeTargets"]
        except OSError:
            return False
        return bool(active) and all(target["health"] == "up" for target in active)

    wait_until(all_up, 60, "Prometheus scraping every target")
    return url


def _get(url: str, path: str, **query: str) -> Any:
    address = f"{url}{path}?{urllib.parse.urlencode(query)}"
    with urllib.request.urlopen(address, timeout=30) as response:
        body = json.load(response)
    if body.get("status") != "success":
        raise RuntimeError(f"Prometheus: {body}")
    return body["data"]


def query_panels(url: str, dashboard: dict[str, Any], start: float, end: float,
                 step: float) -> dict[int, list[Series]]:
    """Prometheus's answer to every query of every panel over the run, as series."""
    answers: dict[int, list[Series]] = {}
    for panel in dashboard["panels"]:
        answers[panel["id"]] = []
        for target in panel["targets"]:
            data = _get(url, "/api/v1/query_range", query=target["expr"], start=f"{start:.3f}",
                        end=f"{end:.3f}", step=f"{step:g}")
            answers[panel["id"]] += [
                Series(legend_name(target, result["metric"]),
                       [(float(moment), float(value)) for moment, value in result["values"]])
                for result in data["result"]
            ]
    return answers


# --- the scripted run -------------------------------------------------------------------------


@dataclasses.dataclass
class Steady:
    """What goes on over the whole run: tables played on by clock time-outs (nobody moves),
    watched by spectators, two of them by a live stream; until ``end``."""

    web: str
    stream: str
    stop: threading.Event = dataclasses.field(default_factory=threading.Event)
    threads: list[threading.Thread] = dataclasses.field(default_factory=list)
    connections: list[http.client.HTTPConnection] = dataclasses.field(default_factory=list)

    def start(self, tables: int, clock: int) -> None:
        matches = [self._table(clock) for _ in range(tables)]
        watchers = [client.guest(self.web) for _ in range(3)]
        self._spawn(lambda: self._look(watchers[0], matches[0]))
        for watcher in watchers[1:]:
            self._spawn(functools.partial(self._listen, watcher.token or "", matches[0]))

    def end(self) -> None:
        self.stop.set()
        for connection in self.connections:
            with contextlib.suppress(OSError):
                if connection.sock is not None:
                    connection.sock.shutdown(socket.SHUT_RDWR)
        for thread in self.threads:
            thread.join(timeout=30)

    def _spawn(self, target: Callable[[], None]) -> None:
        thread = threading.Thread(target=target, daemon=True)
        thread.start()
        self.threads.append(thread)

    def _table(self, clock: int) -> str:
        """A public match of four guests with a ``clock``-second turn clock, none of whom moves."""
        people = [client.guest(self.web) for _ in range(4)]
        body = {"deals": 1, "visibility": "public", "clock": {"bid": clock, "card": clock},
                "seats": [{"kind": "me"}] + [{"kind": "open"}] * 3}
        match_id = client.expect(people[0].post(f"{client.API}/matches", body), 201,
                                 "create")["id"]
        for seat, api in enumerate(people[1:], start=1):
            client.expect(api.post(f"{client.API}/matches/{match_id}/join", {"seat": seat}),
                          200, "join")
        return str(match_id)

    def _look(self, watcher: client.Api, match_id: str) -> None:
        """A spectator reading the table's view every few seconds."""
        while not self.stop.wait(5):
            watcher.get(f"{client.API}/matches/{match_id}/spectate")

    def _listen(self, token: str, match_id: str) -> None:
        """A spectator following the table's live stream on the stream server until the end."""
        parts = urllib.parse.urlsplit(self.stream)
        while not self.stop.is_set():
            connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=60)
            self.connections.append(connection)
            with contextlib.suppress(OSError, http.client.HTTPException):
                connection.request("GET", f"/api/v1/matches/{match_id}/stream",
                                   headers={"Authorization": f"Token {token}",
                                            "Accept": "text/event-stream"})
                response = connection.getresponse()
                while not self.stop.is_set() and response.readline():
                    pass
            connection.close()
            self.stop.wait(1)


def run_phases(web: str, args: argparse.Namespace) -> list[tuple[str, float]]:
    """The scripted phases, one after the other; each one's name and start (unix time)."""
    people = [[client.guest(web).token or "" for _ in range(4)] for _ in range(args.clients)]
    receivers: list[Receiver | HostileReceiver] = [Receiver() for _ in range(3)]
    receivers.append(HostileReceiver("bad-status"))
    phases: dict[str, Callable[[int, bench.Budget], bench.Tally]] = {
        "people": lambda i, budget: bench.moves_client(web, people[i], budget,
                                                       random.Random(i)),
        # The web server answers the streams too (held 30 s each, then resumed).
        "computer players": lambda i, budget: bench.bots_client(
            web, web, people[i][0], budget, random.Random(i), args.level, 1.0),
        "platforms": lambda i, budget: bench.hostile_platform_client(
            web, [receiver.url for receiver in receivers], budget, random.Random(i)),
    }
    counts = {"people": args.clients, "computer players": args.clients, "platforms": 1}
    marks = []
    try:
        for name, make in phases.items():
            marks.append((name, time.time()))
            tally, _ = bench.run_phase(name, counts[name], args.seconds, 100_000, make)
            print(f"{name}: {len(tally.latencies)} requests, errors {dict(tally.errors)}",
                  flush=True)
        marks.append(("quiet", time.time()))
        time.sleep(args.seconds / 2)
    finally:
        for receiver in receivers:
            receiver.stop()
    return marks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m loadtest.dashboard", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=2, help="clients of each phase")
    parser.add_argument("--seconds", type=float, default=40, help="length of each phase")
    parser.add_argument("--level", default="medium", help="level of the computer players")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "dashboard.png")
    parser.add_argument("--html", type=Path, help="also keep the page in this file")
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/postgres",
                        help="a PostgreSQL server (and database to connect to) where a scratch "
                        "database may be created and dropped")
    args = parser.parse_args(argv)

    dashboard = json.loads(DASHBOARD.read_text())
    with scaled_out(args.database_url, "dashboard", LOG_LEVEL="WARNING",
                    THROTTLE_ANON_RATE="100000/minute", THROTTLE_USER_RATE="100000/minute",
                    GUEST_CREATION_RATE="100000/minute", WEBHOOK_ALLOW_PRIVATE_ADDRESSES="true",
                    AUTOPILOT_AFTER_TIMEOUTS="1000") as stack:
        _setup_django(stack.env)
        web = stack.start_web(DJANGO_SETTINGS_MODULE="loadtest.settings")
        stream = stack.start_stream()
        stack.start_worker()
        stack.start_webhook_worker()
        stack.start_beat()
        token_file = stack.logs / "metrics-token"
        token_file.write_text(stack.env["METRICS_TOKEN"])
        config = prometheus_config(
            [urllib.parse.urlsplit(url).netloc for url in (web, stream)],
            [urllib.parse.urlsplit(url).netloc for url in stack.metrics_urls.values()],
            token_file, "1s")
        prometheus = start_prometheus(stack, config)
        start = time.time()
        steady = Steady(web, stream)
        steady.start(tables=2, clock=5)
        try:
            marks = run_phases(web, args)
        finally:
            steady.end()
        end = time.time()
        answers = query_panels(prometheus, dashboard, start, end, step=2)
        version = _get(prometheus, "/api/v1/status/buildinfo")["version"]
    minutes = (end - start) / 60
    caption = (f"Rendered by scripts/dashboard-preview from the answers of Prometheus {version} to "
               "the dashboard's own queries (query_range, 2 s steps). It scraped the web, stream "
               f"and worker servers every second during a scripted run of {minutes:.1f} minutes "
               "on one machine: too short for the 5-minute rates to fill.")
    page = render_page(dashboard, answers, start, end, marks, caption)
    if args.html:
        args.html.write_text(page)
    screenshot(page, args.out)
    empty = [panel["title"] for panel in dashboard["panels"] if not answers[panel["id"]]]
    print(json.dumps({"out": str(args.out), "series": {panel["title"]: len(answers[panel["id"]])
                      for panel in dashboard["panels"]}, "empty": empty}, indent=2))
    return 0


def _setup_django(env: dict[str, str]) -> None:
    # The platforms phase registers its partner platform in the scratch database directly.
    for name in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "REDIS_URL", "DJANGO_DEBUG",
                 "DJANGO_SECRET_KEY", "CELERY_QUEUE"):
        os.environ[name] = env[name]
    import django

    django.setup()


if __name__ == "__main__":
    raise SystemExit(main())
