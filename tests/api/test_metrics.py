"""`GET /metrics` (batak_api/scrape.py): off without its token, and after a scripted match the
counts of what was played, on the embedded default (one process)."""

from __future__ import annotations

import importlib
import random

import pytest
from django.test import Client
from prometheus_client import REGISTRY, CollectorRegistry, Counter
from prometheus_client.metrics import MetricWrapperBase
from prometheus_client.parser import text_string_to_metric_families

from bots import players
from games.metrics import Closed
from tests.abuse import metrics as flood
from tests.api.conftest import submit

TOKEN = "scrape-me"


@pytest.fixture(autouse=True)
def quick_hard(monkeypatch):
    monkeypatch.setattr(players, "HARD", players.SearchSettings(worlds=6))


def scrape() -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.content.decode())
        for sample in family.samples
    }


def value(samples: dict, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


@pytest.mark.django_db
def test_without_its_token_there_is_no_page(settings) -> None:
    settings.METRICS_TOKEN = ""
    answer = Client().get("/metrics", HTTP_AUTHORIZATION="Bearer anything")
    assert (answer.status_code, answer.json()["code"]) == (404, "not_found")
    settings.METRICS_TOKEN = TOKEN
    for sent in ("", "Bearer wrong", f"Token {TOKEN}"):
        answer = Client().get("/metrics", HTTP_AUTHORIZATION=sent)
        assert (answer.status_code, answer.json()["code"]) == (401, "not_authenticated")
        assert answer["WWW-Authenticate"] == 'Bearer realm="metrics"'


@pytest.mark.django_db(transaction=True)
def test_a_scripted_match_is_counted(player, settings) -> None:
    settings.METRICS_TOKEN = TOKEN
    before = scrape()
    someone = player("Counted")
    seats = [{"kind": "me"}] + [{"kind": "bot", "bot_level": "easy"}] * 3
    match_id = someone.post("/matches", {"game": "spades", "deals": 1, "seats": seats}).json()["id"]
    rng = random.Random(3)
    moves = 0
    during = None
    while (view := someone.view(match_id))["status"] == "active":
        if during is None:
            during = scrape()
        legal = [a for a in view["deal"]["legal_actions"] if a["kind"] != "redeal"]
        assert submit(someone, match_id, rng.choice(legal)).status_code == 200
        moves += 1
    after = scrape()

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("batak_moves_total", game="spades", origin="player") == 52
    assert grew("batak_computer_decision_seconds_count", level="easy") == 39
    # A turn is each run of computer players' moves in a row, played in one go.
    seats = [event["submitted_by"] for event in someone.get(
        f"/matches/{match_id}/events?after=0&limit=100").json()["events"]]
    runs = sum(1 for index, seat in enumerate(seats)
               if seat != 0 and (index == 0 or seats[index - 1] == 0))
    assert grew("batak_computer_turn_wait_seconds_count") == runs
    assert grew("batak_http_requests_total", method="POST",
                route="api/v1/matches/<uuid:match_id>/actions", status="200") == moves
    assert grew("batak_http_requests_total", method="GET",
                route="api/v1/matches/<uuid:match_id>/view", status="200") == moves + 1
    assert grew("batak_http_request_duration_seconds_count", method="POST",
                route="api/v1/matches/<uuid:match_id>/actions") == moves
    assert during is not None
    assert value(during, "batak_matches", status="active", game="spades") == 1
    assert value(during, "batak_seated_people") == 1
    assert value(after, "batak_matches", status="active", game="spades") == 0
    assert value(after, "batak_webhook_pending_deliveries") == 0
    assert value(after, "batak_webhook_oldest_pending_delivery_age_seconds") == 0


@pytest.mark.django_db
def test_unknown_addresses_count_under_a_few_routes(settings) -> None:
    """Any path a client makes up is counted under one of a few routes (so they cannot make a
    series each): the API's own not-found, or `unmatched`."""
    settings.METRICS_TOKEN = TOKEN
    before = scrape()
    for made_up in ("/api/v1/nowhere", "/api/v1/x/y", "/nowhere", "/elsewhere"):
        assert Client().get(made_up).status_code == 404
    after = scrape()
    for route in ("api/v1/", "unmatched"):
        key = ("batak_http_requests_total",
               (("method", "GET"), ("route", route), ("status", "404")))
        assert after[key] - before.get(key, 0) == 2


def scrape_text() -> str:
    response = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200, response.content
    return response.content.decode()


def test_invented_methods_and_paths_make_no_series(asgi_server, settings) -> None:
    """Each made-up method was a series of its own, never freed: 10,000 requests made 160,032."""
    settings.METRICS_TOKEN = TOKEN
    before = scrape_text()
    flood.send(asgi_server)
    after = scrape_text()
    flood.check_growth(before, after)
    # The refusals are counted, under `other`.
    assert sum(sample.value for family in text_string_to_metric_families(after)
               for sample in family.samples
               if sample.name == "batak_http_requests_total"
               and sample.labels["method"] == "other") >= flood.INVENTED


def test_every_metric_with_labels_takes_them_from_closed_sets() -> None:
    """`games.metrics.closed` maps a value outside its label's set to `other`: a metric made
    without it could be grown by whoever chooses its values."""
    # Each of these defines metrics as it is imported.
    for module in ("batak_api.metrics", "bots.tasks", "games.metrics", "platforms.webhooks"):
        importlib.import_module(module)
    labelled = [collector for collector in REGISTRY._collector_to_names
                if isinstance(collector, MetricWrapperBase) and collector._labelnames]
    assert labelled
    assert [metric._name for metric in labelled if metric not in Closed.every] == []


def test_a_value_outside_its_set_is_other() -> None:
    from games.metrics import OTHER, closed

    counter = closed(Counter("test_closed_total", "A test's.", ["colour"],
                             registry=CollectorRegistry()), colour=("red", "blue"))
    counter.labels(colour="red").inc()
    for made_up in ("green", "RED", "red ", ""):
        counter.labels(colour=made_up).inc()
    assert counter.labels(colour=OTHER)._value.get() == 4
