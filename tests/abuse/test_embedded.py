"""The abuse scenarios (scenarios.py) on the embedded default as `scripts/serve` runs it:
SQLite, computer players in-process, uvicorn. The scaled-out form runs the same ones in
tests/integration/test_abuse.py (gunicorn, where a stream holds a thread)."""

from __future__ import annotations

import pytest

from tests.abuse import scenarios


@pytest.mark.parametrize("scenario", scenarios.SCENARIOS, ids=lambda s: s.__name__)
def test_on_the_embedded_default(scenario, asgi_server) -> None:
    scenario(asgi_server)
