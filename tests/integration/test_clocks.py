"""Turn clocks scaled out: beat runs them on a worker. A clock fires once for its turn, never
after the move, and a worker killed (SIGKILL) before or in the middle of a timeout loses no
timeout and makes none twice."""

from __future__ import annotations

import os
import signal
import time

import pytest

from games.models import Action
from tests.integration.harness import client
from tests.integration.harness.stack import Stack, wait_until
from tests.integration.test_faults import (
    a_move_waits_for_the_lock,
    match_row_locked,
    pool_processes,
)

pytestmark = [pytest.mark.integration, pytest.mark.django_db]

CLOCK = {"bid": 5, "card": 5}


def table_of_people(web: str) -> tuple[str, list[client.Api]]:
    people = [client.guest(web, f"P{seat}") for seat in range(4)]
    seats = [{"kind": "me"}] + [{"kind": "open"}] * 3
    match = client.expect(people[0].post(f"{client.API}/matches", {
        "deals": 1, "seats": seats, "visibility": "public", "clock": CLOCK,
    }), 201, "create")
    for seat, api in enumerate(people[1:], start=1):
        client.expect(api.post(f"{client.API}/matches/{match['id']}/join", {"seat": seat}), 200,
                      "join")
    return match["id"], people


def timeouts_at_version_one(match_id: str) -> list[str]:
    return list(Action.objects.filter(match_id=match_id, version=1).values_list("origin",
                                                                                 flat=True))


def test_a_clock_fires_once_and_never_after_the_move(web: str) -> None:
    match_id, people = table_of_people(web)
    # Seat to act answers in time: its clock never fires for that turn.
    view = client.view(people[0], match_id)
    seat = view["deal"]["to_act"]
    mine = client.view(people[seat], match_id)
    client.expect(client.act(people[seat], match_id, mine["deal"]["legal_actions"][0]), 200,
                  "move")
    # The next seat never answers: one timeout, then the following seat is on the clock.
    wait_until(lambda: Action.objects.filter(match_id=match_id).count() >= 2, 15,
               "the next seat's timeout")
    time.sleep(2)  # beat runs every second: a second firing would show by now
    rows = list(Action.objects.filter(match_id=match_id).order_by("version")
                .values_list("version", "origin"))
    assert rows[:2] == [(1, "player"), (2, "timeout")]
    assert len(rows) == 2 or rows[2] == (3, "timeout")


def test_a_killed_worker_loses_no_timeout(stack: Stack, web: str) -> None:
    match_id, _people = table_of_people(web)
    stack.kill("worker")
    try:
        time.sleep(7)  # past the deadline, with nobody to run the clock
        assert timeouts_at_version_one(match_id) == []
    finally:
        stack.start_worker()
    wait_until(lambda: timeouts_at_version_one(match_id) == ["timeout"], 15,
               "the overdue timeout after the restart")


def test_a_worker_killed_in_the_middle_of_a_timeout_makes_it_once(stack: Stack, web: str) -> None:
    match_id, _people = table_of_people(web)
    with match_row_locked(match_id):
        # The clock is due within 5 s: the worker's timeout waits, in its transaction, for the
        # match; then every pool process is killed mid-move and Celery replaces them.
        wait_until(a_move_waits_for_the_lock, 20, "a timeout waiting for the match")
        for pid in pool_processes(stack.processes["worker"].pid):
            os.kill(pid, signal.SIGKILL)
    wait_until(lambda: timeouts_at_version_one(match_id) == ["timeout"], 20,
               "the timeout after the pool processes were replaced")
    time.sleep(2)
    assert Action.objects.filter(match_id=match_id, version=1).count() == 1
    assert Action.objects.filter(match_id=match_id, origin="timeout").count() <= 2
