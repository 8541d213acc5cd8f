"""The fair queue of computer players' turns (bots/turn_queue.py) and its tokens
(`bots.tasks.play_next_turn`), against a real Redis: TEST_REDIS_URL, by default db 7 of this
machine's. Without one these tests skip (under CI=true they fail): the embedded default, which
every other unit test runs on, has no Redis and no fair queue."""

from __future__ import annotations

import os
import secrets
import threading
import uuid
from collections import Counter
from collections.abc import Iterator

import pytest
import redis
from opentelemetry import trace

from bots import tasks, turn_queue
from games.models import Action, Match
from tests.api.conftest import Player
from tests.bots.test_bot_turns import bot_to_act_in, bot_to_move
from tests.platforms.conftest import new_platform

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/7")
# What a turn of the accounts below costs their worker, in seconds.
CHEAP, DEAR = 0.01, 0.5


@pytest.fixture(autouse=True)
def fair_queue(settings) -> Iterator[None]:
    """A queue of this test's own on the test Redis, removed afterwards."""
    server = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=0.5)
    try:
        server.ping()
    except redis.RedisError as error:
        if os.environ.get("CI") == "true":
            pytest.fail(f"Redis at {REDIS_URL} unreachable: {error}")
        pytest.skip(f"Redis at {REDIS_URL} unreachable: {error}")
    settings.REDIS_URL = REDIS_URL
    settings.CELERY_TASK_DEFAULT_QUEUE = f"fair-test-{secrets.token_hex(4)}"
    yield
    keys = list(server.scan_iter(f"batak:turns:{settings.CELERY_TASK_DEFAULT_QUEUE}:*"))
    if keys:
        server.delete(*keys)
    server.close()


def serve(count: int, costs: dict[int, float]) -> list[int]:
    """Take and play ``count`` turns one after the other, each costing its account's cost;
    returns whose they were."""
    served = []
    for _ in range(count):
        token = uuid.uuid4().hex
        turn = turn_queue.take(token)
        assert turn is not None
        turn_queue.done(token, turn, costs[turn.account])
        served.append(turn.account)
    return served


def test_another_accounts_turn_goes_before_a_backlog() -> None:
    serve_backlog = 50
    for version in range(serve_backlog):
        turn_queue.push(1, "flood", version)
    serve(3, {1: DEAR})
    turn_queue.push(2, "person", 7)

    served = serve(2, {1: DEAR, 2: CHEAP})

    assert 2 in served


def test_turns_are_shared_by_worker_time_not_by_count() -> None:
    for version in range(40):
        turn_queue.push(1, "dear", version)
        turn_queue.push(2, "cheap", version)

    served = Counter(serve(33, {1: DEAR, 2: CHEAP}))

    # 0.5 s against 0.01 s a turn: the cheap account is served many turns for one dear one.
    assert served[1] <= 3
    assert served[2] >= 30


def test_a_pause_earns_no_credit() -> None:
    for version in range(30):
        turn_queue.push(1, "busy", version)
    serve(20, {1: CHEAP})
    # Account 3 used nothing all that time; it does not get the next 20 turns in a row.
    for version in range(20):
        turn_queue.push(3, "back", version)

    served = serve(10, {1: CHEAP, 3: CHEAP})

    assert 3 <= served.count(1) <= 7


def test_a_redelivered_token_plays_the_same_turn() -> None:
    turn_queue.push(1, "first", 1)
    turn_queue.push(2, "second", 1)

    taken = turn_queue.take("token")
    again = turn_queue.take("token")
    assert again == taken
    assert turn_queue.take("another token") != taken

    assert taken is not None
    turn_queue.done("token", taken, CHEAP)
    assert turn_queue.take("token") is None


def test_a_turn_is_played_in_the_trace_of_the_move_that_queued_it() -> None:
    """The turn keeps its move's traceparent through Redis; a turn queued with no trace (tracing
    off, or queued before traces were) has none."""
    move = trace.SpanContext(trace_id=0x4BF92F3577B34DA6A3CE929D0E0E4736,
                             span_id=0x00F067AA0BA902B7, is_remote=False,
                             trace_flags=trace.TraceFlags(trace.TraceFlags.SAMPLED))
    with trace.use_span(trace.NonRecordingSpan(move)):
        turn_queue.push(1, "traced", 4)
    turn_queue.push(2, "untraced", 4)

    taken = {turn.match_id: turn for turn in
             (turn_queue.take("token-1"), turn_queue.take("token-2")) if turn is not None}
    assert taken["traced"].traceparent == (
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
    assert (taken["traced"].version, taken["traced"].account) == (4, 1)
    assert taken["untraced"].traceparent == ""
    assert (taken["untraced"].version, taken["untraced"].account) == (4, 2)


def test_tokens_taking_at_once_take_every_turn_once() -> None:
    pushed = {(account, f"match-{account}-{n}", 0) for account in range(1, 6) for n in range(40)}
    for account, match_id, version in pushed:
        turn_queue.push(account, match_id, version)
    taken: list[tuple[int, str, int]] = []

    def worker() -> None:
        while (turn := turn_queue.take(uuid.uuid4().hex)) is not None:
            taken.append((turn.account, turn.match_id, turn.version))

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(taken) == sorted(pushed)
    assert not turn_queue.waiting()


@pytest.mark.django_db(transaction=True)
def test_sending_a_turn_queues_it_for_the_matchs_account(player, settings, monkeypatch) -> None:
    settings.COMPUTER_PLAYERS = "tests.bots.idle_players"
    owner = player("Owner")
    # Hard: a quick player's round at a person's table is played in the request, not queued.
    match_id, version = bot_to_move(owner, "hard")
    tokens: list[tuple[object, ...]] = []
    monkeypatch.setattr(tasks.play_next_turn, "apply_async",
                        lambda *args, **options: tokens.append(args))
    settings.CELERY_TASK_ALWAYS_EAGER = False

    from bots import interface

    interface.send_turns(match_id, version)

    assert tokens == [()]
    turn = turn_queue.take("token")
    assert turn is not None
    assert (turn.account, turn.match_id, turn.version) == (
        Match.objects.get(pk=match_id).created_by_id, match_id, version)


@pytest.mark.django_db(transaction=True)
def test_a_platform_players_own_match_queues_for_the_platform(settings, monkeypatch) -> None:
    """A platform makes players at will: their matches share the platform's one account."""
    settings.COMPUTER_PLAYERS = "tests.bots.idle_players"
    platform = new_platform("Many Players")
    app = platform.player("p1")
    owner = Player(app, user_id=0, name="p1")
    match_id, version = bot_to_move(owner, "hard")
    monkeypatch.setattr(tasks.play_next_turn, "apply_async", lambda *args, **options: None)
    settings.CELERY_TASK_ALWAYS_EAGER = False

    from bots import interface

    interface.send_turns(match_id, version)

    turn = turn_queue.take("token")
    assert turn is not None
    assert turn.account == platform.platform.user_id
    assert turn.account != Match.objects.get(pk=match_id).created_by_id


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("others_wait", [False, True])
def test_a_token_plays_on_until_another_account_waits(
    player, settings, monkeypatch, others_wait: bool
) -> None:
    settings.COMPUTER_PLAYERS = "tests.bots.idle_players"
    owner = player("Owner")
    # Two computer players to act in a row: after the first move, the rest is handed on.
    match_id, version = bot_to_move(owner, "hard", in_a_row=2)
    account = Match.objects.get(pk=match_id).created_by_id
    tokens: list[tuple[object, ...]] = []
    monkeypatch.setattr(tasks.play_next_turn, "apply_async",
                        lambda *args, **options: tokens.append(args))
    turn_queue.push(account, match_id, version)
    monkeypatch.setattr(turn_queue, "SLICE_SECONDS", 0.0)
    if others_wait:
        # Another account's turns (of no match: each one a no-op for the token that takes it).
        for _ in range(2):
            turn_queue.push(account + 1000, str(uuid.uuid4()), 0)

    # The eager result's value, not `.get()`: Celery refuses that once any test of the run
    # has set its "inside a task" flag.
    settings.CELERY_TASK_ALWAYS_EAGER = False  # as on a worker: what it hands on is queued
    result = tasks.play_next_turn.apply(task_id="token")
    assert result.successful(), result.traceback
    played = result.result

    moves = Action.objects.filter(match_id=match_id).count()
    assert played == moves
    if others_wait:
        # One move, then the rest of the turn queues again behind the other account's.
        assert moves == 1
        assert tokens == [()]
        left = [turn_queue.take(f"t{n}") for n in range(3)]
        assert (match_id, 1) in {(turn.match_id, turn.version) for turn in left if turn}
    else:
        # Every computer player's move up to the person's turn, in one token.
        assert moves >= 1
        assert not bot_to_act_in(match_id)
        assert tokens == []
        assert not turn_queue.waiting()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("previous_cost", [CHEAP, DEAR])
def test_a_heavy_accounts_token_hands_on_after_each_move(
    player, settings, monkeypatch, previous_cost: float
) -> None:
    """With the slice as deployed, an account whose previous turn was heavy (a slice of Hard
    searches) plays one move while another account waits; a light one plays its turn on."""
    settings.COMPUTER_PLAYERS = "tests.bots.idle_players"
    owner = player("Owner")
    match_id, version = bot_to_move(owner)
    account = Match.objects.get(pk=match_id).created_by_id
    monkeypatch.setattr(tasks.play_next_turn, "apply_async", lambda *args, **options: None)
    other = account + 1000
    # Each account's previous turn; the other account's dearer, so that this one goes first.
    for whose, cost in ((account, previous_cost), (other, 2 * DEAR)):
        turn_queue.push(whose, str(uuid.uuid4()), 0)
        previous = turn_queue.take(f"previous {whose}")
        assert previous is not None
        turn_queue.done(f"previous {whose}", previous, cost)
    turn_queue.push(account, match_id, version)
    turn_queue.push(other, str(uuid.uuid4()), 0)  # waits while the token plays

    settings.CELERY_TASK_ALWAYS_EAGER = False  # as on a worker: what it hands on is queued
    result = tasks.play_next_turn.apply(task_id="token")
    assert result.successful(), result.traceback

    moves = Action.objects.filter(match_id=match_id).count()
    if previous_cost >= turn_queue.HEAVY_TURN_SECONDS:
        assert moves == 1
    else:
        assert moves >= 1
        assert not bot_to_act_in(match_id)


def test_an_account_at_its_limit_is_passed_over_until_one_of_its_items_is_done(
    settings,
) -> None:
    """With a limit per account (the webhook workers': a platform's attempts at once), a token
    passes over an account with that many items under way, and the token that finishes one
    is told to send another for the items passed over."""
    from runtime import fair_queue

    settings.WEBHOOK_PLATFORM_CONCURRENCY = 2
    under_way = 300.0
    queue = fair_queue.FairQueue("limited", "CELERY_TASK_DEFAULT_QUEUE",
                                 per_account_setting="WEBHOOK_PLATFORM_CONCURRENCY",
                                 under_way_seconds=lambda: under_way)
    for n in range(4):
        queue.push(1, f"storm-{n}")
    first, second = queue.take("t1"), queue.take("t2")
    assert first is not None and second is not None
    assert (first.item, second.item) == ("storm-0", "storm-1")
    assert queue.take("t3") is None  # two under way: the rest wait, at no worker's cost
    queue.push(2, "calm")
    calm = queue.take("t4")
    assert calm is not None and calm.item == "calm"
    assert queue.done("t4", 2, calm.charged, CHEAP) is False  # nothing of account 2 waits
    assert queue.done("t1", 1, first.charged, CHEAP) is True  # storm-2 and storm-3 wait
    third = queue.take("t5")
    assert third is not None and third.item == "storm-2"
    assert queue.take("t6") is None
    # A token that never comes back (its worker killed) gives its place back in time.
    under_way = 1.0
    assert queue.done("t5", 1, third.charged, CHEAP) is True
    lost = queue.take("t7")
    assert lost is not None and lost.item == "storm-3"
    assert queue.take("t8") is None  # t2 and t7 under way
    queue.push(1, "storm-4")
    threading.Event().wait(1.2)
    assert queue.take("t9") is not None  # t7's place came back (t2's was set for longer)
