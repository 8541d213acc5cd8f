"""The abuse scenarios (tests/abuse/scenarios.py) on the scaled-out form: gunicorn on
PostgreSQL with computer players in a Celery worker."""

from __future__ import annotations

import secrets
import time
from collections import Counter

import pytest
import redis

from games.api import slots
from games.errors import TooManyLongPolls
from tests import sse
from tests.abuse import scenarios
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
    monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scaled out the per-account count is in Redis: what other processes hold counts, and the
    slots of a process that died (never given back) lapse with their lease."""
    user_id = 10**9 + secrets.randbelow(10**9)  # no account of any test run
    monkeypatch.setattr(slots, "_held", Counter())  # one process's count in memory
    held = [slots.long_poll(user_id, wait=5, per_account=2) for _ in range(2)]
    # Another process: nothing of this account's held in its memory.
    monkeypatch.setattr(slots, "_held", Counter())
    with pytest.raises(TooManyLongPolls):
        slots.long_poll(user_id, wait=5, per_account=2)
    held[0].release()
    with slots.long_poll(user_id, wait=5, per_account=2):
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
