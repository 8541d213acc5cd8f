"""One account's requests in flight at once, per process (games/api/in_flight.py): past
API_MAX_IN_FLIGHT_PER_ACCOUNT the account's next request is refused at once (429 `throttled`,
Retry-After), another account's is served, and every place comes back with its answer."""

from __future__ import annotations

import random

import pytest

from games.api import in_flight
from tests.api.conftest import play_random_turn, table_of_four

from .test_waits import Poll, assert_refused, wait_until, waiting_on

pytestmark = pytest.mark.django_db(transaction=True)


def test_one_accounts_requests_in_flight_are_bounded(player, settings) -> None:
    settings.API_MAX_IN_FLIGHT_PER_ACCOUNT = 2
    match_id, players = table_of_four(player)
    # Busy is neither the seat to act (its turn is played below while busy's places are all
    # taken) nor the seats 0 and 2 the test reads the match with.
    to_act = players[0].view(match_id)["deal"]["to_act"]
    busy = players[3] if to_act == 1 else players[1]
    polls = [Poll(busy, match_id, wait=20) for _ in range(2)]
    wait_until(lambda: waiting_on(match_id) == 2, "the two polls never waited")
    assert in_flight.in_flight(busy.user_id) == 2
    assert_refused(busy.get(f"/matches/{match_id}"), "throttled")
    # Everyone else is served meanwhile.
    assert players[2].view(match_id)["status"] == "active"
    play_random_turn(players, match_id, random.Random(3))
    for poll in polls:
        poll.join(10)
        assert poll.status == 200
    # Every place came back with its answer, the refused request's included.
    assert in_flight.in_flight(busy.user_id) == 0
    assert busy.get(f"/matches/{match_id}/events?after=0&wait=0").status_code == 200


def test_a_place_comes_back_however_the_request_ends(player, settings) -> None:
    match_id, players = table_of_four(player)
    someone = players[1]
    for path in (f"/matches/{match_id}", "/matches/not-a-match", f"/matches/{match_id}/actions"):
        someone.get(path)
        someone.post(path, {"expected_version": "x"})
    assert in_flight.in_flight(someone.user_id) == 0
