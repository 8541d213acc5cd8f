"""The abuse scenarios (scenarios.py) on the embedded default: SQLite, computer players
in-process, a live threaded server. The scaled-out form runs the same ones in
tests/integration/test_abuse.py."""

from __future__ import annotations

import pytest

from tests.abuse import scenarios


@pytest.mark.parametrize("scenario", scenarios.SCENARIOS, ids=lambda s: s.__name__)
def test_on_the_embedded_default(scenario, live_server) -> None:
    scenario(live_server.url)
