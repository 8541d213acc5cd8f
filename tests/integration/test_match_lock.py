"""The match lock and its seats in one statement, on PostgreSQL under READ COMMITTED: a change
that waited for the lock reads the seats as the previous holder left them, not as they were
when its statement began."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, transaction

from games.match_unit import lock
from games.models import Seat
from tests.api.conftest import new_player
from tests.bots.test_bot_turns import bot_to_move

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_a_change_that_waited_for_the_lock_reads_the_seats_its_holder_left(settings) -> None:
    settings.COMPUTER_PLAYERS = "tests.bots.idle_players"
    match_id, _ = bot_to_move(new_player("Owner"))
    held, release = threading.Event(), threading.Event()
    seen: dict[str, object] = {}

    def holder() -> None:
        try:
            with transaction.atomic():
                match = lock(match_id)
                person = next(seat for seat in match.seats.all() if seat.user_id is not None)
                Seat.objects.filter(pk=person.pk).update(autopilot=True, display_name="Changed")
                held.set()
                assert release.wait(10)
        finally:
            connection.close()

    def waiter() -> None:
        try:
            with transaction.atomic():
                seen["seats"] = [(seat.autopilot, seat.display_name)
                                 for seat in lock(match_id).seats.all() if seat.user_id]
        finally:
            connection.close()

    first = threading.Thread(target=holder)
    first.start()
    assert held.wait(10)
    second = threading.Thread(target=waiter)
    second.start()
    second.join(0.5)
    assert second.is_alive(), "the second change waits for the lock"
    release.set()
    first.join(10)
    second.join(10)
    assert seen["seats"] == [(True, "Changed")]
