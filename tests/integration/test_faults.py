"""Faults of the scaled-out form: a worker dying in the middle of a bot's move, a burst of
copies of one move, Redis going away while a person plays."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from games.models import Action
from tests import sse
from tests.integration.conftest import (
    Table,
    assert_log_matches_replay,
    count_rows,
    database_url,
    pause_between_moves,
    stack_env,
)
from tests.integration.harness import client
from tests.integration.harness.stack import Stack, wait_until

pytestmark = [pytest.mark.integration, pytest.mark.django_db]


# A Hard player's search is a worker's: its table's turns all go to the workers.
WORKERS_TABLE = ("easy", "easy", "hard")


def new_table(web: str, seed: int, levels: tuple[str, ...] = ("easy",) * 3) -> Table:
    api = client.guest(web)
    return Table(api, client.match_against_bots(api, levels=levels), random.Random(seed))


def hand_over_to_a_bot(table: Table) -> None:
    """From the person's turn, play their moves until one hands the turn to a bot."""
    while table.view["deal"]["to_act"] == 0:
        table.move()


@contextlib.contextmanager
def match_row_locked(match_id: str) -> Iterator[None]:
    """Hold the match's row lock, as a move in progress does, until the block ends."""
    with psycopg.connect(database_url()) as holder:
        holder.execute("SELECT 1 FROM games_match WHERE id = %s FOR UPDATE", [uuid.UUID(match_id)])
        yield


def a_move_waits_for_the_lock() -> bool:
    return count_rows(
        "SELECT count(*) FROM pg_stat_activity"
        " WHERE datname = current_database() AND wait_event_type = 'Lock'"
    ) > 0


def pool_processes(pid: int) -> list[int]:
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


@pytest.mark.parametrize("victim", ["pool process", "whole worker"])
def test_a_worker_killed_in_the_middle_of_a_bots_move(stack: Stack, web: str, victim: str) -> None:
    # Its turns go to the workers (quick players play in the person's request's thread).
    table = new_table(web, seed=7, levels=WORKERS_TABLE)
    table.wait_for_turn()
    pause_between_moves(stack)
    try:
        hand_over_to_a_bot(table)
        handed_over = table.view["version"]
        with match_row_locked(table.match_id):
            stack.resume("worker")
            # The bot's task has chosen its move and waits, in its transaction, for the match.
            wait_until(a_move_waits_for_the_lock, 20, "a bot's move waiting for the match")
            if victim == "pool process":
                # Celery replaces the process and, the task being acked late, runs it again.
                for pid in pool_processes(stack.processes["worker"].pid):
                    os.kill(pid, signal.SIGKILL)
            else:
                stack.kill("worker")
    finally:
        if stack.processes["worker"].poll() is None:
            stack.resume("worker")
    if victim == "whole worker":
        time.sleep(1)
        # The dead worker's move was rolled back with its connection.
        assert client.view(table.api, table.match_id)["version"] == handed_over
        # A new worker, as a supervisor would start; beat's sweeper sends it the lost turn.
        stack.start_worker()

    table.play_to_the_end()
    assert_log_matches_replay(table.match_id, table.moves, table.feed)


EXPECTED = {
    # Every copy is answered with the first one's result.
    "same Idempotency-Key": {200},
    # The first applies; the others find the version moved on.
    "same expected_version": {200, 409},
    # The first applies; the others find it no longer their turn (or the card gone).
    "no precondition": {200, 409, 422},
}


@pytest.mark.parametrize("precondition", list(EXPECTED))
def test_fifty_concurrent_copies_of_one_card_apply_once(web: str, precondition: str) -> None:
    table = new_table(web, seed=11)
    table.wait_for_turn()
    while table.view["deal"]["phase"] != "play" or not client.my_turn(table.view):
        if client.my_turn(table.view):
            table.move()
        table.wait_for_turn()
    version = table.view["version"]
    card = client.random_action(table.view, table.rng)
    extra: dict[str, Any] = {
        "same Idempotency-Key": {"idempotency_key": f"card-{uuid.uuid4()}"},
        "same expected_version": {"expected_version": version},
        "no precondition": {},
    }[precondition]

    copies = 50
    start = threading.Barrier(copies)
    answers: list[client.Response] = []

    def send() -> None:
        api = client.Api(web, table.api.token)
        client.expect(api.get(f"{client.API}/me"), 200, "warm-up")
        start.wait()
        answers.append(client.act(api, table.match_id, card, **dict(extra)))
        api.close()

    threads = [threading.Thread(target=send) for _ in range(copies)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    statuses = [answer.status for answer in answers]
    assert len(answers) == copies
    assert set(statuses) <= EXPECTED[precondition], statuses
    if precondition == "same Idempotency-Key":
        assert {answer.body["version"] for answer in answers} == {version + 1}
        replayed = [a for a in answers if a.headers.get("Idempotent-Replayed") == "true"]
        assert len(replayed) == copies - 1
    else:
        assert statuses.count(200) == 1, statuses
    applied = Action.objects.filter(match_id=table.match_id, seat=0, kind="play",
                                    payload__card=card["card"])
    assert [row.version for row in applied] == [version + 1]

    table.moves.append((version + 1, card))
    table.play_to_the_end()
    assert_log_matches_replay(table.match_id, table.moves, table.feed)


def test_a_person_plays_on_while_redis_is_down(stack: Stack, tmp_path: Path) -> None:
    # The person's app also follows the live stream: it misses no move made while the stream
    # process had no Redis to hear announcements on (its heartbeat looks at the database).
    # A Redis of the test's own, which it can kill without disturbing anyone else's, and
    # processes of its own on it. The session's worker and beat share the database: they would
    # find this test's waiting bots and play them, so they pause meanwhile.
    outage = Stack(stack_env(""), tmp_path)
    stack.pause("beat")
    stack.pause("worker")
    try:
        outage.env["REDIS_URL"] = redis_url = outage.start_redis()
        web = outage.start_web()
        outage.start_worker()
        outage.start_beat()
        stream = outage.start_stream(STREAM_HEARTBEAT_SECONDS="1")
        # A Hard player's table: its turns go through the broker (quick players would play
        # in the person's request's thread, Redis or not).
        table = new_table(web, seed=3, levels=WORKERS_TABLE)
        listening = sse.Listening(stream, table.match_id, table.api.token or "", timeout=30)
        table.wait_for_turn()
        hand_over_to_a_bot(table)
        table.wait_for_turn()

        outage.kill("redis")
        while table.view["deal"] is not None and table.view["deal"]["to_act"] == 0:
            # Accepted (Table.move checks 200 and one version more), bots' turn not sent.
            assert table.move().seconds < 5
        handed_over = table.view["version"]
        assert client.view(table.api, table.match_id)["version"] == handed_over
        ready = client.Api(web).get("/readyz")
        assert ready.status == 503
        assert ready.body["checks"] == {"database": "ok", "broker": "unreachable",
                                        "migrations": "ok"}
        time.sleep(2)
        assert client.view(table.api, table.match_id)["version"] == handed_over

        # Redis comes back empty, as after a restart: the sweeper finds the turn and sends it.
        outage.start_redis(port=int(redis_url.rsplit(":", 1)[1].split("/")[0]))
        table.play_to_the_end()
        assert_log_matches_replay(table.match_id, table.moves, table.feed)
        listening.join(30)
        assert listening.ended() and listening.actions() == table.feed
    finally:
        outage.stop_all()
        stack.resume("worker")
        stack.resume("beat")


def test_the_workers_run_below_the_webs_cpu_priority(stack: Stack, web: str) -> None:
    """When the cores are short, a person's move (and the quick computer players' round in its
    request) comes before the workers' searches, deliveries and sweeps (WORKER_NICENESS)."""
    worker = stack.processes["worker"].pid
    web_priority = os.getpriority(os.PRIO_PROCESS, stack.processes["web"].pid)
    for pid in [worker, *pool_processes(worker)]:
        assert os.getpriority(os.PRIO_PROCESS, pid) == min(19, web_priority + 10)
