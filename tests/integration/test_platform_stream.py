"""A platform's stream on PostgreSQL: a cursor never passes an event whose transaction had not
committed yet, whatever order transactions commit in (platforms/stream.py: the reader stops at
the oldest transaction still running)."""

from __future__ import annotations

import threading
import uuid

import pytest
from django.db import connection, transaction

from games import event_log
from platforms import events as platform_events
from platforms import services, stream

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_an_event_committed_late_is_not_passed_by_the_cursor() -> None:
    platform = services.register_platform(name=f"Late Commits {uuid.uuid4().hex[:6]}")
    early, late = uuid.uuid4(), uuid.uuid4()
    written, go_on = threading.Event(), threading.Event()

    def slow_writer() -> None:
        try:
            with transaction.atomic():
                platform_events.emit(platform.pk, [("turn.started", {"match_id": str(early)})])
                written.set()
                go_on.wait(10)
        finally:
            connection.close()

    writer = threading.Thread(target=slow_writer)
    writer.start()
    assert written.wait(10)
    # A later transaction writes and commits while the first is still running.
    with transaction.atomic():
        platform_events.emit(platform.pk, [("turn.started", {"match_id": str(late)})])
    everything = event_log.Filter()
    start = event_log.Cursor(0, 0)
    seen, after = stream.LOG.read_after(platform.pk, start, everything)
    assert seen == []  # behind the transaction still running: nothing is readable yet
    go_on.set()
    writer.join(10)
    seen, after = stream.LOG.read_after(platform.pk, after, everything)
    assert [body["data"]["match_id"] for _, _, body in seen] == [str(early), str(late)]
    assert [cursor for cursor, _, _ in seen] == sorted(cursor for cursor, _, _ in seen)
    assert stream.LOG.read_after(platform.pk, after, everything)[0] == []
    assert stream.LOG.latest(platform.pk) == seen[-1][0]
