"""Two matches of one person finishing at once on PostgreSQL both count in their statistics:
the second waits on the first's lock of the person's record (or of its new row), then adds
on top; a recount meanwhile neither loses nor doubles a match."""

from __future__ import annotations

import threading

import pytest
from django.db import close_old_connections, connection, transaction

from games.models import Match
from games.services import SeatSpec
from ratings import statistics
from ratings.models import GameRecord, PlayedMatch
from tests.admin.helpers import person, play_match

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def go_on() -> threading.Event:
    """An event already set: a transaction that need not be held open."""
    event = threading.Event()
    event.set()
    return event


def in_thread(work, started: threading.Event, hold: threading.Event) -> threading.Thread:
    """``work`` in a transaction of its own, held open until ``hold`` is set."""
    def run() -> None:
        try:
            with transaction.atomic():
                work()
                started.set()
                hold.wait(10)
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def people_only_match(someone, seed: int) -> Match:
    """A finished match of ``someone`` and three other people: no computer player's turn goes
    to the stack's workers, which would play on beside the test."""
    others = [SeatSpec("person", user=person(f"p{seed}-{index}-{someone.pk}"))
              for index in range(3)]
    return play_match(someone, deal_count=1, seed=seed, seats=[SeatSpec("me"), *others])


@pytest.mark.parametrize("record_exists", [True, False])
def test_two_matches_finishing_at_once_both_count(record_exists: bool) -> None:
    ayse = person("ayse")
    first, second = (people_only_match(ayse, seed) for seed in range(2))
    expected = GameRecord.objects.get(user=ayse)
    GameRecord.objects.all().delete()
    PlayedMatch.objects.all().delete()
    if record_exists:
        GameRecord.objects.create(user=ayse, game="auction")

    def count(match: Match):
        return lambda: statistics.count_match(
            Match.objects.prefetch_related("seats").get(pk=match.pk))

    started, hold, done = threading.Event(), threading.Event(), threading.Event()
    one = in_thread(count(first), started, hold)
    assert started.wait(10)
    # It commits at once: held open 10 s, it could still be open when the joins gave up.
    two = in_thread(count(second), done, go_on())
    # The second waits for the first's lock.
    assert not done.wait(0.5)
    hold.set()
    one.join(10)
    two.join(10)
    close_old_connections()
    row = GameRecord.objects.get(user=ayse)
    assert (row.matches, row.deals, row.points) == (
        expected.matches, expected.deals, expected.points) == (2, 2, expected.points)


def test_a_match_finishing_during_a_recount_counts_once() -> None:
    ayse = person("ayse")
    first, second = (people_only_match(ayse, seed) for seed in range(2))
    expected = GameRecord.objects.get(user=ayse)
    GameRecord.objects.all().delete()
    PlayedMatch.objects.filter(match=second).delete()
    Match.objects.filter(pk=second.pk).update(status="active")  # not yet finished

    def finish_second() -> None:
        Match.objects.filter(pk=second.pk).update(status="finished")
        statistics.count_match(Match.objects.prefetch_related("seats").get(pk=second.pk))

    started, hold, done = threading.Event(), threading.Event(), threading.Event()
    recounting = in_thread(statistics.recount, started, hold)
    assert started.wait(10)
    finishing = in_thread(finish_second, done, go_on())
    assert not done.wait(0.5)  # waits for the recount's lock of the table
    hold.set()
    recounting.join(10)
    finishing.join(10)
    close_old_connections()
    row = GameRecord.objects.get(user=ayse)
    assert (row.matches, row.points) == (expected.matches, expected.points)
