"""Metrics on the scaled-out form (batak_api/metrics.py): gunicorn's two processes summed in one
scrape of the web, a Celery worker's pool summed on its own port, after a match of one person
against three computer players played over HTTP."""

from __future__ import annotations

import random
import urllib.error
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.abuse import metrics as flood
from tests.integration.harness import client
from tests.integration.harness.stack import METRICS_TOKEN, Stack

pytestmark = [pytest.mark.integration, pytest.mark.django_db]

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(url: str, token: str | None = None) -> Samples:
    request = urllib.request.Request(url)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=10) as answer:
        text = answer.read().decode()
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def total(samples: Samples, name: str, **labels: str) -> float:
    """The sum of ``name``'s samples with these labels (and any others)."""
    return sum(value for (sample, sample_labels), value in samples.items()
               if sample == name and set(labels.items()) <= set(sample_labels))


def test_a_match_is_counted_across_processes(stack: Stack, web: str) -> None:
    worker = stack.metrics_urls["worker"] + "/metrics"
    before_web, before_worker = scrape(f"{web}/metrics", METRICS_TOKEN), scrape(worker)
    api = client.guest(web, "Counted")
    match_id = client.match_against_bots(api, levels=("easy",) * 3, game="spades")
    moves = sum(1 for _ in client.moves_to_the_end({0: api}, match_id, random.Random(5)))
    after_web, after_worker = scrape(f"{web}/metrics", METRICS_TOKEN), scrape(worker)

    def grew(before: Samples, after: Samples, name: str, **labels: str) -> float:
        return total(after, name, **labels) - total(before, name, **labels)

    # Whichever of gunicorn's two processes answered a move (or a scrape), each is counted once.
    route = "api/v1/matches/<uuid:match_id>/actions"
    assert grew(before_web, after_web, "batak_http_requests_total", route=route) == moves == 13
    # The computer players' moves are counted where they are made: Easy players in the
    # person's request's thread, once its answer is sent (the workers make a Hard player's).
    assert grew(before_web, after_web, "batak_moves_total", game="spades",
                origin="player") == 13 + 39
    assert grew(before_web, after_web, "batak_computer_decision_seconds_count",
                level="easy") >= 39
    assert grew(before_worker, after_worker, "batak_moves_total", game="spades") == 0


def test_metrics_need_their_token(web: str) -> None:
    with pytest.raises(urllib.error.HTTPError) as refused:
        scrape(f"{web}/metrics", "wrong")
    assert refused.value.code == 401


@pytest.mark.parametrize("server", ["web", "stream"])
def test_invented_methods_and_paths_make_no_series(server: str, request) -> None:
    """On gunicorn 10,000 made-up methods made 160,032 series (15.5 MB a scrape), and as many on
    the stream server."""
    base = request.getfixturevalue(server)

    def text() -> str:
        get = urllib.request.Request(f"{base}/metrics",
                                     headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
        with urllib.request.urlopen(get, timeout=10) as answer:
            return answer.read().decode()

    before = text()
    flood.send(base)
    flood.check_growth(before, text())
