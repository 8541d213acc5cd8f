"""The scaled-out form against the real services of this machine: PostgreSQL, Redis, gunicorn
and Celery worker and beat processes, all started here and pointed at pytest-django's test
database.

scripts/test runs these in a second pytest run with DATABASE_URL on PostgreSQL and REDIS_URL on
the local Redis. Without them the tests skip, saying why, except under CI=true, where they fail:
CI must never pass without having run them.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
import redis
from django.conf import settings
from django.db import OperationalError, connection

from games.models import Action, DealStatus, Match, MatchStatus
from tests.integration.harness import audit, client
from tests.integration.harness.stack import Stack, production_env, redis_answers

# Short enough that a lost turn is found within seconds, as the fault tests need.
FAST_SWEEPER = {"BOT_STALE_AFTER_SECONDS": "2", "BOT_SWEEP_INTERVAL_SECONDS": "1"}
# The people scenario (tests/people) needs a person away for seconds to show as gone.
SHORT_PRESENCE = {"PRESENCE_SECONDS": "3"}
# A webhook receiver that is down for seconds is retried within seconds (tests/platforms).
QUICK_WEBHOOK_RETRIES = {"WEBHOOK_RETRY_SECONDS": "1,1,2,2,3,3,5,5,5,5",
                         "WEBHOOK_ALLOW_PRIVATE_ADDRESSES": "true"}
# Every test signs up guests from 127.0.0.1; the production rates (30 requests a minute, 20 new
# guests an hour) are for people.
# The races (tests/abuse/races.py) send an account's twenty requests at once: all in flight.
# The tests play flat out, tables of computer players alone among them: server time is charged
# as in production, against budgets no test reaches (tests/integration/test_server_time.py).
TEST_RATES = {"THROTTLE_ANON_RATE": "10000/minute", "THROTTLE_USER_RATE": "10000/minute",
              "GUEST_CREATION_RATE": "10000/minute", "API_MAX_IN_FLIGHT_PER_ACCOUNT": "100",
              "SERVER_TIME_PER_ACCOUNT": "600", "SERVER_TIME_PER_PLATFORM": "6000"}


# The test process and a stack's processes (each pools at most DATABASE_POOL_MAX_SIZE, and most
# hold one or two): what a run asks of PostgreSQL at most.
CONNECTIONS_NEEDED = 30


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: integration tests must run)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session", autouse=True)
def _real_services() -> None:
    database = settings.DATABASES["default"]
    if not database["ENGINE"].endswith("postgresql"):
        _unavailable(
            "integration tests need PostgreSQL and Redis: run them with scripts/test, "
            "which sets DATABASE_URL and REDIS_URL"
        )
    try:
        with psycopg.connect(
            host=database["HOST"], port=database["PORT"] or 5432, user=database["USER"],
            password=database["PASSWORD"], dbname=database["NAME"], connect_timeout=3,
        ) as probe:
            row = probe.execute(
                "SELECT current_setting('max_connections')::int, count(*) FROM pg_stat_activity"
            ).fetchone()
    except psycopg.Error as error:
        _unavailable(f"PostgreSQL at {database['HOST']}:{database['PORT']} unreachable: {error}")
    assert row is not None
    most, used = row
    if most - used < CONNECTIONS_NEEDED:
        # Said once, in one line, rather than as dozens of tests answered 500 by a stack
        # that PostgreSQL refuses connections.
        reason = (f"PostgreSQL has {most - used} of its {most} connections free; the "
                  f"integration tests need {CONNECTIONS_NEEDED}: stop what holds the rest")
        if os.environ.get("CI") == "true":
            pytest.exit(reason, returncode=1)
        pytest.skip(reason)
    if not settings.REDIS_URL or not redis_answers(settings.REDIS_URL):
        _unavailable(f"Redis at {settings.REDIS_URL or '(REDIS_URL unset)'} unreachable")


@pytest.fixture(scope="session", autouse=True)
def _flush_past_deadlocks() -> Iterator[None]:
    """Empty the test database after each transactional test even while a worker still plays a
    match the test left running: TRUNCATE locks the tables one by one, a worker's transaction
    that holds one and wants another is a deadlock PostgreSQL ends by cancelling one side, and
    when that is the emptying, it is tried again once the worker's transaction is over."""
    operations = type(connection.ops)
    flush = operations.execute_sql_flush

    def flush_retrying(self: Any, sql_list: list[str]) -> None:
        for attempt in range(5):
            try:
                flush(self, sql_list)
                return
            except OperationalError as error:
                if "deadlock detected" not in str(error) or attempt == 4:
                    raise
                time.sleep(0.2 * (attempt + 1))

    operations.execute_sql_flush = flush_retrying  # type: ignore[method-assign]
    try:
        yield
    finally:
        operations.execute_sql_flush = flush  # type: ignore[method-assign]


def database_url() -> str:
    """The URL of the test database (pytest-django's, once created), for the subprocesses."""
    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def stack_env(redis_url: str) -> dict[str, str]:
    return production_env(database_url(), redis_url, **FAST_SWEEPER, **SHORT_PRESENCE,
                          **QUICK_WEBHOOK_RETRIES, **TEST_RATES)


@pytest.fixture(scope="session")
def stack(django_db_setup: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """gunicorn, a Celery worker and beat on the test database and the local Redis."""
    processes = Stack(stack_env(settings.REDIS_URL), tmp_path_factory.mktemp("stack-logs"))
    try:
        processes.start_web()
        processes.start_worker()
        processes.start_webhook_worker()
        processes.start_analysis_worker()
        processes.start_beat()
        yield processes
    finally:
        processes.stop_all()
        for queue in (processes.env["CELERY_QUEUE"], processes.env["WEBHOOK_QUEUE"],
                      processes.env["ANALYSIS_QUEUE"]):
            _forget_queue(settings.REDIS_URL, queue)


def _forget_queue(redis_url: str, queue: str) -> None:
    """Remove this run's queue from the shared Redis: its messages, its binding, and the
    unacknowledged messages of the workers the tests killed, which a later worker would
    otherwise put back into a queue nobody reads."""
    with redis.Redis.from_url(redis_url) as server:
        server.delete(queue, f"_kombu.binding.{queue}")
        for tag, raw in server.hgetall("unacked").items():
            _message, _exchange, routing_key = json.loads(raw)
            if routing_key == queue:
                server.hdel("unacked", tag)
                server.zrem("unacked_index", tag)


@pytest.fixture(scope="session")
def web(stack: Stack) -> str:
    return stack.urls["web"]


@pytest.fixture(scope="session")
def stream(stack: Stack) -> str:
    """The base URL of the ASGI process that serves the live streams."""
    return stack.urls.get("stream") or stack.start_stream()


class Table:
    """A person playing a match against three bots over HTTP, reading the event feed as it goes."""

    def __init__(self, api: client.Api, match_id: str, rng: random.Random) -> None:
        self.api = api
        self.match_id = match_id
        self.rng = rng
        self.view = client.view(api, match_id)
        self.feed: list[dict[str, Any]] = []
        # (version, action) of every move of the person the service accepted.
        self.moves: list[tuple[int, dict[str, Any]]] = []

    @property
    def active(self) -> bool:
        return self.view["status"] == MatchStatus.ACTIVE

    def move(self) -> client.Response:
        """Play a random legal action; the seat must be to act."""
        action = client.random_action(self.view, self.rng)
        response = client.act(self.api, self.match_id, action,
                              expected_version=self.view["version"])
        client.expect(response, 200, f"{action} at version {self.view['version']}")
        # The bots answer in the background: the reply shows the person's move and no more.
        assert response.body["version"] == self.view["version"] + 1, response.body["version"]
        self.moves.append((response.body["version"], action))
        self.view = response.body
        return response

    def wait_for_turn(self, seconds: float = 30) -> None:
        """Follow the event feed until the person is to act or the match is over."""
        deadline = time.monotonic() + seconds
        self.view = client.view(self.api, self.match_id)
        while self.active and not client.my_turn(self.view):
            assert time.monotonic() < deadline, f"no turn for the person: {self.view['version']}"
            self.read_feed(wait=5)
            self.view = client.view(self.api, self.match_id)

    def read_feed(self, wait: int) -> int:
        """Read the next page of the feed; each event must be the next version."""
        page = client.events(self.api, self.match_id, after=len(self.feed), wait=wait)
        for event in page["events"]:
            assert event["version"] == len(self.feed) + 1, (event, len(self.feed))
            self.feed.append(event)
        return len(page["events"])

    def play_to_the_end(self, seconds: float = 120) -> None:
        deadline = time.monotonic() + seconds
        while True:
            self.wait_for_turn(max(1.0, deadline - time.monotonic()))
            if not self.active:
                break
            self.move()
        while self.read_feed(wait=0):
            pass
        assert self.view["status"] == MatchStatus.FINISHED, self.view["status"]
        assert len(self.feed) == self.view["version"], "the feed lost or repeated a move"


def assert_log_matches_replay(
    match_id: str,
    moves: list[tuple[int, dict[str, Any]]],
    feed: list[dict[str, Any]] | None = None,
) -> None:
    """The match finished, its log is every version once, in order, a legal game the engine
    replays to the stored results, and holds each accepted move of the person exactly where it
    was accepted; the event feed, when given, showed exactly that log."""
    assert audit.log_problems(match_id, [(version, 0, action) for version, action in moves]) == []
    match = Match.objects.get(pk=match_id)
    assert match.status == MatchStatus.FINISHED
    scores = match.deals.filter(status=DealStatus.FINISHED).values_list("scores", flat=True)
    assert match.totals == [sum(seat) for seat in zip(*scores, strict=True)]
    if feed is not None:
        rows = Action.objects.filter(match=match).order_by("version")
        logged = [
            (row.version, row.seat, {"kind": row.kind, "origin": row.origin, **row.payload})
            for row in rows
        ]
        shown = [
            (event["version"], event["submitted_by"],
             {k: v for k, v in event.items() if k not in ("version", "seat", "submitted_by",
                                                          "deal_number", "deal_sequence",
                                                          "created_at")})
            for event in feed
        ]
        assert shown == logged


def count_rows(query: str) -> int:
    """The count a ``SELECT count(*)`` gives on a connection of its own, outside any test
    transaction."""
    with psycopg.connect(database_url(), autocommit=True) as probe:
        row = probe.execute(query).fetchone()
    return row[0] if row is not None else 0


def a_match_row_is_locked() -> bool:
    """Some transaction holds a match row (`SELECT … FOR UPDATE` takes RowShareLock)."""
    return count_rows(
        "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation"
        " WHERE c.relname = 'games_match' AND l.mode = 'RowShareLock' AND l.granted"
    ) > 0


def pause_between_moves(stack: Stack) -> None:
    """Stop the worker, but never inside a transaction: a worker frozen while holding a match
    would block the person's next move, which is not the fault under test."""
    for _ in range(100):
        stack.pause("worker")
        if not a_match_row_is_locked():
            return
        stack.resume("worker")
        time.sleep(0.05)
    raise AssertionError("the worker never paused outside a transaction")
