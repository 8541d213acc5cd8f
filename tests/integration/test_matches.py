"""Matches of a person against three bots over HTTP: quick bots in the thread of the person's
request once it has answered, a table with a Hard bot in a Celery worker."""

from __future__ import annotations

import random
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.integration.conftest import Table, assert_log_matches_replay, pause_between_moves
from tests.integration.harness import client
from tests.integration.harness.stack import Stack

pytestmark = [pytest.mark.integration, pytest.mark.django_db]

# A Hard player's search is a worker's: its table's turns all go to the workers.
WORKERS_TABLE = ["easy", "easy", "hard"]


def test_quick_bots_play_in_the_persons_request_after_its_answer(stack: Stack,
                                                                  web: str) -> None:
    api = client.guest(web)
    table = Table(api, client.match_against_bots(api, levels=["medium"] * 3), random.Random(2))
    table.wait_for_turn()
    # With the workers stopped, the match plays on: its request's thread plays the computer
    # players' round once it has answered (the answer is the person's move alone: Table.move).
    pause_between_moves(stack)
    try:
        for _ in range(12):
            if not table.active:
                break
            table.move()
            table.wait_for_turn(seconds=10)
    finally:
        stack.resume("worker")
    table.play_to_the_end()
    while table.read_feed(wait=0):
        pass
    assert_log_matches_replay(table.match_id, table.moves, table.feed)


def test_the_person_is_answered_before_the_bots_move_in_the_worker(stack: Stack, web: str) -> None:
    api = client.guest(web, "Ayşe")
    table = Table(api, client.match_against_bots(api, levels=WORKERS_TABLE), random.Random(1))
    table.wait_for_turn()
    pause_between_moves(stack)
    try:
        # Until a move hands the turn to a bot (winning a trick leads again).
        while table.view["deal"]["to_act"] == 0:
            table.move()
        handed_over = table.view["version"]
        time.sleep(1)
        assert client.view(api, table.match_id)["version"] == handed_over
    finally:
        stack.resume("worker")
    table.wait_for_turn()
    assert table.view["version"] > handed_over


def test_matches_against_bots_are_played_to_the_end(web: str) -> None:
    tables = []
    for number, levels in enumerate([["easy"] * 3, ["medium"] * 3, ["easy", "medium", "hard"]]):
        api = client.guest(web, f"P{number}")
        deals = 1 if "hard" in levels else 2
        match_id = client.match_against_bots(api, levels=levels, deals=deals)
        tables.append(Table(api, match_id, random.Random(number)))

    with ThreadPoolExecutor(len(tables)) as pool:
        list(pool.map(lambda table: table.play_to_the_end(), tables))

    for table in tables:
        assert_log_matches_replay(table.match_id, table.moves, table.feed)
