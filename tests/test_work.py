"""The seam through which the service defers work (runtime/work.py): after commit, once per
intent, on the kind's lane in-process (later, when delayed), and not at all for a kind that runs
only with the periodic jobs while they are off."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from django.db import transaction

from bots import tasks
from bots.turn_queue import TURNS
from platforms import webhooks
from runtime import work

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def sent(settings, monkeypatch) -> list[tuple[Any, ...]]:
    """What reaches the computer players' lane, by its arguments (the embedded default)."""
    settings.CELERY_TASK_ALWAYS_EAGER = True
    reached: list[tuple[Any, ...]] = []
    monkeypatch.setattr(TURNS.lane, "send",
                        lambda function, *args, account: reached.append((*args, account)))
    return reached


@pytest.mark.django_db(transaction=True)
def test_work_is_sent_once_its_transaction_commits_and_once_per_intent(sent) -> None:
    with transaction.atomic():
        work.later(tasks.play_bot_turns, "m", 1, account=7)
        work.later(tasks.play_bot_turns, "m", 1, account=7)  # the same intent again
        work.later(tasks.play_bot_turns, "m", 2, account=7)
        assert sent == []
    assert sent == [("m", 1, 7), ("m", 2, 7)]


@pytest.mark.django_db(transaction=True)
def test_work_of_a_rolled_back_transaction_is_never_sent(sent) -> None:
    with pytest.raises(RuntimeError), transaction.atomic():
        work.later(tasks.play_bot_turns, "m", 1, account=7)
        raise RuntimeError("rolled back")
    assert sent == []
    work.later(tasks.play_bot_turns, "m", 1, account=7)  # outside a transaction: at once
    assert sent == [("m", 1, 7)]


@pytest.mark.django_db(transaction=True)
def test_delayed_work_reaches_its_lane_when_it_is_due(sent) -> None:
    started = time.monotonic()
    work.later(tasks.play_bot_turns, "m", 1, account=7, delay=0.2)
    assert sent == []
    deadline = started + 10
    while not sent and time.monotonic() < deadline:
        time.sleep(0.01)
    assert sent == [("m", 1, 7)]
    assert time.monotonic() - started >= 0.2


@pytest.mark.django_db(transaction=True)
def test_a_kind_that_runs_with_the_periodic_jobs_waits_for_them(settings, monkeypatch) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = True
    reached = threading.Event()
    monkeypatch.setattr(webhooks.DELIVERIES.lane, "send",
                        lambda function, *args, account: reached.set())
    settings.IN_PROCESS_JOBS = False
    work.later(webhooks.attempt, 1, account=3)
    assert not reached.is_set()
    settings.IN_PROCESS_JOBS = True
    work.later(webhooks.attempt, 1, account=3)
    assert reached.is_set()


@pytest.mark.django_db(transaction=True)
def test_wait_here_runs_the_task_in_this_thread_on_the_embedded_default(
    sent, monkeypatch
) -> None:
    ran: list[tuple[Any, ...]] = []
    monkeypatch.setattr(tasks.play_bot_turns, "run", lambda *args: ran.append(args))
    work.later(tasks.play_bot_turns, "m", 1, account=7, wait_here=lambda: True)
    work.later(tasks.play_bot_turns, "m", 2, account=7, wait_here=lambda: False)
    assert ran == [("m", 1)]
    assert sent == [("m", 2, 7)]


def test_every_process_declares_every_task_from_its_start() -> None:
    """A web process that never imports a task module itself (platforms/tasks.py declares
    the deliveries' token) still sends their work through the fair queue, and beat has every
    periodic job: the task modules are imported as Django starts."""
    program = (
        "import django; django.setup()\n"
        "from platforms.webhooks import DELIVERIES\n"
        "from runtime.work import JOBS\n"
        "print(DELIVERIES.token is not None, len(JOBS))\n"
    )
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "batak_api.settings"}
    answer = subprocess.run([sys.executable, "-c", program], env=environment, check=True,
                            capture_output=True, text=True, cwd=ROOT)
    assert answer.stdout.split() == ["True", str(len(work.JOBS))]


@pytest.mark.django_db(transaction=True)
def test_work_that_fails_in_the_thread_that_plays_it_goes_to_its_workers(sent,
                                                                         monkeypatch) -> None:
    def fail(*args: Any) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(tasks.play_bot_turns, "run", fail)
    work.later(tasks.play_bot_turns, "m", 1, account=7, wait_here=lambda: True)
    assert sent == [("m", 1, 7)]
