"""The dashboard and alert rules in deploy/ read only metrics the service has: a renamed or
removed metric breaks them here, not on the night they are needed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml
from prometheus_client import REGISTRY

import batak_api.metrics
import batak_api.scrape
import bots.tasks
import games.metrics
import platforms.webhooks

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"
NAME = re.compile(r"\bbatak_[a-z_]+")
SUFFIXES = ("_bucket", "_count", "_sum", "_total", "_created")
# The modules that define the metrics counted as things happen (registered as they are imported).
COUNTING = (batak_api.metrics, bots.tasks, games.metrics, platforms.webhooks)


def _service_metrics() -> set[str]:
    """The names the service exports: those it counts and those read at a scrape."""
    names = {metric.name for metric in REGISTRY.collect()}
    source = Path(batak_api.scrape.__file__).read_text()
    names |= set(re.findall(r'GaugeMetricFamily\(\s*"(batak_[a-z_]+)"', source))
    return names


def _base(name: str) -> str:
    for suffix in SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def test_the_dashboard_and_alerts_read_metrics_that_exist() -> None:
    known = _service_metrics()
    dashboard = json.loads((DEPLOY / "grafana-dashboard.json").read_text())
    expressions = [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]
    alerts = yaml.safe_load((DEPLOY / "prometheus-alerts.yml").read_text())
    expressions += [rule["expr"] for group in alerts["groups"] for rule in group["rules"]]
    used = {_base(name) for expression in expressions for name in NAME.findall(expression)}
    assert used, "no metric read"
    assert used <= {_base(name) for name in known}, used - {_base(name) for name in known}


def test_the_dashboard_and_alerts_take_the_database_counts_once_whatever_the_servers() -> None:
    # Every web server (and the stream server) reads the same counts from the database at its
    # scrape: summed over them they would count each match once per server, and an alert on
    # the bare series would fire once per server.
    source = Path(batak_api.scrape.__file__).read_text()
    read_at_scrape = set(re.findall(r'GaugeMetricFamily\(\s*"(batak_[a-z_]+)"', source))
    dashboard = json.loads((DEPLOY / "grafana-dashboard.json").read_text())
    alerts = yaml.safe_load((DEPLOY / "prometheus-alerts.yml").read_text())
    expressions = [(panel["title"], target["expr"])
                   for panel in dashboard["panels"] for target in panel["targets"]]
    expressions += [(rule["alert"], rule["expr"])
                    for group in alerts["groups"] for rule in group["rules"]]
    for title, expression in expressions:
        for name in read_at_scrape & set(NAME.findall(expression)):
            assert re.search(rf"max(\s+by\s*\([^)]*\))?\s*\(\s*{name}\b", expression), (
                title, expression)
