"""Fixtures shared by all test packages; pytest-django already supplies client, db and settings."""

import os

import pytest
from hypothesis import settings as hypothesis_settings

# CI runs the same examples every time (a red run must be reproducible); a developer's run
# explores new ones, and failures are kept in .hypothesis/ for the next run.
hypothesis_settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
hypothesis_settings.register_profile("dev", deadline=None)
hypothesis_settings.load_profile("ci" if os.environ.get("CI") == "true" else "dev")


@pytest.fixture(autouse=True)
def _no_clock_timer(settings):
    """The embedded default's clock and webhook threads would outlive each test's database:
    tests run the clocks themselves (`sweeper.run_clocks`), and the tests that need a thread
    switch it on; switched off again, it stops at its next look."""
    settings.CLOCK_TIMER = False
    settings.WEBHOOK_THREAD = False
