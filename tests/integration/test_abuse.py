"""The abuse scenarios (tests/abuse/scenarios.py) on the scaled-out form: gunicorn on
PostgreSQL with computer players in a Celery worker."""

from __future__ import annotations

import secrets
import threading
import time
from collections import Counter

import pytest
import redis

from games.api import slots
from games.errors import TooManyLongPolls
from tests import sse
from tests.abuse import scenarios
from tests.integration.conftest import count_rows
from tests.integration.harness import client
from tests.integration.harness.stack import wait_until

pytestmark = [pytest.mark.integration, pytest.mark.django_db]


@pytest.mark.parametrize("scenario", scenarios.SCENARIOS, ids=lambda s: s.__name__)
def test_on_the_scaled_out_form(scenario, web: str) -> None:
    scenario(web)


def test_one_accounts_long_polls_leave_a_small_servers_threads_to_others(stack) -> None:
    """The finding as it was seen: gunicorn with one process of few threads, all of which one
    account's long polls took while `/healthz` waited. Now half of them at most wait
    (LONG_POLL_MAX_PER_PROCESS, from GUNICORN_THREADS), and fewer for one account."""
    url = stack.start_web(name="few-threads", workers=1, threads=8)
    try:
        scenarios.a_flood_of_long_polls_is_capped_and_slows_nobody_else(url)
    finally:
        stack.stop("few-threads")


def test_an_accounts_waits_count_across_processes_and_lapse_with_a_dead_one(
    settings, monkeypatch
) -> None:
    """Scaled out the per-account count is in Redis: what other processes hold counts, and the
    slots of a process that died (never given back) lapse with their lease."""
    user_id = 10**9 + secrets.randbelow(10**9)  # no account of any test run
    settings.LONG_POLL_MAX_PER_ACCOUNT = 2
    monkeypatch.setattr(slots, "_held", Counter())  # one process's count in memory
    held = [slots.long_poll(user_id, wait=5) for _ in range(2)]
    # Another process: nothing of this account's held in its memory.
    monkeypatch.setattr(slots, "_held", Counter())
    with pytest.raises(TooManyLongPolls):
        slots.long_poll(user_id, wait=5)
    held[0].release()
    with slots.long_poll(user_id, wait=5):
        pass
    # A process dies holding both slots: they lapse with their lease.
    dead = [slots._Lease(slots.LONG_POLLS, user_id + 1, seconds=1) for _ in range(2)]
    assert all(lease.take(2) for lease in dead)
    assert not slots._Lease(slots.LONG_POLLS, user_id + 1, seconds=1).take(2)
    time.sleep(1.2)
    assert slots._Lease(slots.LONG_POLLS, user_id + 1, seconds=1).take(2)
    held[1].release()


def test_a_stream_on_the_stream_server_holds_its_slot_in_redis_until_it_ends(
    stream: str, settings
) -> None:
    me = client.guest(stream, "Me")
    user_id = client.expect(me.get(f"{client.API}/me"), 200, "me")["id"]
    match_id = client.match_against_bots(me, levels=("easy",) * 3)
    slots_of = slots._Lease(slots.STREAMS, user_id, seconds=1).key
    follower = sse.Follower(stream, match_id, str(me.token))
    assert follower.status == 200 and next(iter(follower)).event == "retry"
    with redis.Redis.from_url(settings.REDIS_URL) as server:
        assert server.zcard(slots_of) == 1
        follower.close()  # no goodbye: the server notices, and gives the slot back
        wait_until(lambda: server.zcard(slots_of) == 0, 5, "the slot given back")


def test_waiting_long_polls_hold_no_database_connection(web: str) -> None:
    """A long poll used to hold a PostgreSQL connection for all of its wait: 200 tables at a
    person's pace (python -m loadtest.scaling) ran the database out of connections ("too many
    clients already"). A wait now holds none between its looks at the match."""
    people = []
    for _ in range(6):
        api = client.guest(web)
        match_id = client.match_against_bots(api)
        wait_until(lambda api=api, match_id=match_id: client.my_turn(client.view(api, match_id)),
                   30, "the person's turn")
        people.append((api.token or "", match_id, client.view(api, match_id)["version"]))
    before = _connections()

    def wait_on(token: str, match_id: str, version: int) -> None:
        poll = client.Api(web, token)
        # Nothing moves: it is the person's turn, and the person is only waiting.
        answers.append(poll.get(f"{client.API}/matches/{match_id}/events?after={version}"
                                "&wait=6").status)
        poll.close()

    answers: list[int] = []
    polls = [threading.Thread(target=wait_on, args=person) for person in people * 2]
    for poll in polls:
        poll.start()
    time.sleep(2)
    assert all(poll.is_alive() for poll in polls), "the polls stopped waiting"
    during = _connections()
    for poll in polls:
        poll.join(15)
    assert answers == [200] * len(polls)
    # 12 requests waiting; what else connects meanwhile (a worker, beat's sweep) is slack.
    assert during <= before + 3, (before, during)


def _connections() -> int:
    return count_rows("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()")
