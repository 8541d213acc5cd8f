"""Requests made up to grow the metrics: hundreds of invented methods and paths, sent to a
running server, then the metrics' series counted. Run on the embedded default
(tests/api/test_metrics.py: uvicorn in-process) and scaled out (tests/integration/test_metrics.py:
gunicorn and the stream server's uvicorn)."""

from __future__ import annotations

import http.client
import itertools
import string
import uuid
from collections.abc import Iterator

from prometheus_client.parser import text_string_to_metric_families

from batak_api.metrics import METHODS, STATUSES
from games.metrics import OTHER
from tests.abuse.bodies import _address

# Each invented method, path and header is new: before closed label sets each made a series.
INVENTED = 300


def invented_methods(count: int) -> Iterator[str]:
    """Letters only, as nginx and gunicorn let through (`AAAB`, `AAAC`, …)."""
    words = itertools.product(string.ascii_uppercase, repeat=4)
    return ("".join(letters) for letters in itertools.islice(words, 1, count + 1))


def invented_paths(count: int) -> Iterator[str]:
    for number in range(count):
        yield from (f"/api/v1/matches/{uuid.uuid4()}/x{number}", f"/made-up/{number}",
                    f"/api/v1/x{number}?q={number}")


def send(base_url: str, count: int = INVENTED) -> None:
    """``count`` invented methods on a real path, and ``3 * count`` invented paths."""
    connection = http.client.HTTPConnection(*_address(base_url), timeout=30)
    try:
        requests = itertools.chain(
            ((method, "/healthz") for method in invented_methods(count)),
            (("GET", path) for path in invented_paths(count)),
        )
        for number, (method, path) in enumerate(requests):
            connection.request(method, path, headers={"X-Request-ID": f"made-up-{number}",
                                                      "User-Agent": f"agent-{number}"})
            answer = connection.getresponse()
            answer.read()
            assert answer.status < 500, (method, path, answer.status)
            if answer.getheader("Connection", "").lower() == "close":
                connection.close()
    finally:
        connection.close()


Series = set[tuple[str, tuple[tuple[str, str], ...]]]


def series(text: str) -> Series:
    """Each metric's series: its name and labels (a histogram's buckets are one series)."""
    return {
        (family.name, tuple(sorted((k, v) for k, v in sample.labels.items() if k != "le")))
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if not sample.name.endswith("_created")  # when the series began: not one of its own
    }


def check_growth(before: str, after: str) -> None:
    """The flood added a few series at most (its methods as `other`, its paths under the
    not-found routes), and every request label is of its closed set."""
    grown = series(after) - series(before)
    assert len(grown) <= 12, sorted(grown)
    for name, labels in series(after):
        if name.startswith("batak_http_request"):
            values = dict(labels)
            assert values["method"] in (*METHODS, OTHER), values
            assert values.get("status", "200") in (*STATUSES, OTHER), values
            assert "made-up" not in values["route"] and "x1" not in values["route"], values
