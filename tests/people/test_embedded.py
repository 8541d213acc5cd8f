"""The people-at-a-table scenario (scenario.py) on the embedded default: SQLite, computer
players in-process and the clocks run by the periodic jobs' runner of the live server's
process."""

from __future__ import annotations

import pytest

from tests.people import leaving, scenario


@pytest.fixture
def clocks_running(settings):
    settings.IN_PROCESS_JOBS = True
    settings.CLOCK_SWEEP_INTERVAL_SECONDS = 0.2
    settings.PRESENCE_SECONDS = 3
    yield
    settings.IN_PROCESS_JOBS = False  # the runner stops at its next look


def test_people_play_through_a_dropout(live_server, clocks_running) -> None:
    scenario.people_play_through_a_dropout(live_server.url)


def test_a_leaver_reads_nothing_and_a_late_move_is_refused(live_server) -> None:
    # No clock sweep runs: the late move itself makes the time-out it finds due.
    leaving.a_leaver_reads_nothing_and_a_late_move_is_refused(live_server.url)
