"""Long polls of the event feed on the embedded default: a waiting request is woken by the
move's announcement in the process, costs no query while it sleeps, and ends on time."""

from __future__ import annotations

import random
import threading
import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from .conftest import play_random_turn, table_of_four


@pytest.mark.django_db(transaction=True)
def test_a_waiting_poll_is_woken_by_the_move(player) -> None:
    match_id, players = table_of_four(player)
    answer = {}

    def wait_for_the_move() -> None:
        started = time.monotonic()
        page = players[1].get(f"/matches/{match_id}/events?after=0&wait=20").json()
        answer.update(page=page, seconds=time.monotonic() - started)
        connection.close()

    waiter = threading.Thread(target=wait_for_the_move)
    waiter.start()
    time.sleep(0.3)
    play_random_turn(players, match_id, random.Random(2))
    waiter.join(25)
    assert [event["version"] for event in answer["page"]["events"]] == [1]
    # Woken by the announcement, long before the wait ran out (20 s) or a recheck (2 s) came.
    assert answer["seconds"] < 1.9


@pytest.mark.django_db(transaction=True)
def test_a_waiting_poll_costs_no_query_while_it_sleeps_and_ends_on_time(player) -> None:
    match_id, players = table_of_four(player)
    with CaptureQueriesContext(connection) as queries:
        started = time.monotonic()
        page = players[1].get(f"/matches/{match_id}/events?after=0&wait=3").json()
        seconds = time.monotonic() - started
    assert page["events"] == [] and 3 <= seconds < 4
    # Authentication and the match, then one look at the database per 2 s recheck, and the page.
    assert len(queries) <= 10, [query["sql"] for query in queries]
