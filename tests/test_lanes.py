"""The embedded default's lanes (runtime/lanes.py): work runs in order, a failure stops nothing
after it, a lane's thread ends when idle and comes back with new work, and one lane's slow
work never holds up another's."""

from __future__ import annotations

import threading
import time

import pytest

from batak_api.celery import app
from runtime import lanes

# What the tasks below record, by test; reset for each.
done: list[str] = []
release = threading.Event()


def record(item: str) -> None:
    done.append(item)


def fail(item: str) -> None:
    raise RuntimeError(item)


def wait_for_release(item: str) -> None:
    release.wait(10)
    done.append(item)


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    done.clear()
    release.clear()
    monkeypatch.setattr(lanes, "LANE_IDLE_SECONDS", 0.1)


def wait_until(check, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_work_runs_in_the_order_it_was_sent_and_a_failure_stops_nothing_after_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    lane = lanes.Lane("test-order")
    lane.send(record, "a")
    lane.send(fail, "b")
    lane.send(record, "c")
    wait_until(lambda: len(done) == 2)
    assert done == ["a", "c"]
    assert any(record.message == "background work failed" for record in caplog.records)


def test_an_idle_lane_ends_its_thread_and_starts_one_for_new_work() -> None:
    lane = lanes.Lane("test-idle")
    lane.send(record, "first")
    wait_until(lambda: done == ["first"])
    wait_until(lambda: not any(t.name == "test-idle" for t in threading.enumerate()))
    lane.send(record, "second")
    wait_until(lambda: done == ["first", "second"])


def test_slow_work_on_one_lane_does_not_hold_up_another() -> None:
    slow, quick = lanes.Lane("test-slow"), lanes.Lane("test-quick")
    slow.send(wait_for_release, "slow")
    quick.send(record, "quick")
    wait_until(lambda: done == ["quick"])
    release.set()
    wait_until(lambda: done == ["quick", "slow"])


def test_webhooks_and_analyses_never_hold_up_the_computer_players() -> None:
    from bots.tasks import ANALYSES, TURNS
    from platforms.webhooks import DELIVERIES

    for kind in (DELIVERIES, ANALYSES):
        lane = kind.name
        done.clear()
        release.clear()
        kind.lane.send(wait_for_release, lane)
        TURNS.lane.send(record, "turn")
        wait_until(lambda: done == ["turn"])
        release.set()
        wait_until(lambda: done == ["turn", lane])  # noqa: B023 (waited for here)


def test_scaled_out_the_analysis_has_a_queue_of_its_own(settings) -> None:
    route = app.amqp.router.route({}, "bots.tasks.analyse_next_deal")
    assert route["queue"].name == settings.ANALYSIS_QUEUE != settings.CELERY_TASK_DEFAULT_QUEUE
    assert app.amqp.router.route({}, "bots.tasks.play_next_turn")["queue"].name == (
        settings.CELERY_TASK_DEFAULT_QUEUE)


@pytest.mark.django_db
def test_one_account_s_flood_of_analyses_holds_all_but_one_of_the_lane_s_threads(
    settings, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks,
) -> None:
    """On the embedded default the analysis lane serves accounts in turn (the same rule as the
    workers' fair queue scaled out), and one account's deals hold all but one of its threads:
    after one account ended deal after deal, another account's ended deal is analysed at once,
    beside the flood's deal under way, not after it nor after the whole flood."""
    from bots import interface, tasks
    from games.models import Deal
    from tests.api.conftest import create_match, new_player

    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.ANALYSIS_PROCESSES = 2

    def deal_of(account) -> int:
        bot = {"kind": "bot", "bot_level": "easy"}
        match = create_match(account, seats=[{"kind": "me"}, bot, bot, bot])
        return Deal.objects.get(match_id=match["id"], sequence=1).pk

    flooding, other = new_player("Flood"), new_player("Other")
    flood = [deal_of(flooding) for _ in range(4)]
    alone = deal_of(other)
    under_way: list[int] = []

    def analyse_deal(deal_id: int) -> None:
        under_way.append(deal_id)
        if deal_id in flood:
            assert len([d for d in under_way if d in flood]) == 1
            release.wait(10)
        under_way.remove(deal_id)
        done.append(str(deal_id))

    monkeypatch.setattr(tasks.analyse_deal, "run", analyse_deal)
    with django_capture_on_commit_callbacks(execute=True):
        for deal_id in flood:
            interface.send_analysis(deal_id)
        interface.send_analysis(alone)
    wait_until(lambda: done == [str(alone)])
    release.set()
    wait_until(lambda: len(done) == 5)
    assert done == [str(deal_id) for deal_id in [alone, *flood]]


def test_an_account_has_at_most_its_share_of_a_lane_s_threads(settings) -> None:
    settings.WEBHOOK_WORKER_THREADS = 3
    settings.WEBHOOK_PLATFORM_CONCURRENCY = 2
    lane = lanes.Lane("test-share", threads_setting="WEBHOOK_WORKER_THREADS",
                      per_account_setting="WEBHOOK_PLATFORM_CONCURRENCY")
    for item in ("a1", "a2", "a3"):
        lane.send(wait_for_release, item, account="a")
    lane.send(record, "b", account="b")
    wait_until(lambda: done == ["b"])
    time.sleep(0.1)
    assert done == ["b"]  # a3 waits for a1 or a2, though a thread is free
    release.set()
    wait_until(lambda: sorted(done) == ["a1", "a2", "a3", "b"])
