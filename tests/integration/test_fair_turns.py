"""The workers share the computer players' work fairly between accounts: one account with a
deep backlog of turns (tables of Hard computer players alone, each playing on without a pause)
leaves another account's computer players answering its person promptly.

First come, first served, the person's turn waited behind every table of the flood, each
holding a worker for its task's budget of seconds."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from knox.models import AuthToken

from games.models import Match, MatchStatus
from tests.integration.conftest import Table, assert_log_matches_replay
from tests.integration.harness import client

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

FLOOD_TABLES = 10
# Generous for a loaded 2-core machine: fairly served, a turnaround is two Easy moves and a
# Hard one, each after at most one move of the flood; first come, first served, it waited for
# the flood.
TURNAROUND_BOUND_SECONDS = 4.0


def flooding_account(web: str, django_user_model: Any) -> client.Api:
    user = django_user_model.objects.create_user("flood")
    user.user_permissions.add(Permission.objects.get(codename="play_bot_only_matches"))
    _, token = AuthToken.objects.create(user)
    return client.Api(web, token)


def test_a_deep_backlog_of_one_account_does_not_delay_another(
    web: str, django_user_model: Any
) -> None:
    flood = flooding_account(web, django_user_model)
    hard = {"kind": "bot", "bot_level": "hard"}
    flooded = [
        client.expect(flood.post(f"{client.API}/matches", {"deals": 3, "seats": [hard] * 4}),
                      201, "a table of computer players")["id"]
        for _ in range(FLOOD_TABLES)
    ]
    try:
        person = client.guest(web)
        # A Hard player at the table: its turns go to the workers' fair queue (quick players
        # would play in the person's request's thread).
        table = Table(person, client.match_against_bots(person, levels=["easy", "easy", "hard"]),
                      random.Random(3))
        turnarounds = []
        table.wait_for_turn()
        while table.active and len(turnarounds) < 8:
            table.move()
            answered = time.monotonic()
            table.wait_for_turn()
            if table.view["deal"] is not None and client.my_turn(table.view):
                turnarounds.append(time.monotonic() - answered)
        still_playing = Match.objects.filter(pk__in=flooded, status=MatchStatus.ACTIVE).count()
    finally:
        Match.objects.filter(pk__in=flooded).update(status=MatchStatus.ABANDONED)

    # The backlog was still deep when the person's last turn came.
    assert still_playing == FLOOD_TABLES, turnarounds
    assert len(turnarounds) >= 5, turnarounds
    assert max(turnarounds) < TURNAROUND_BOUND_SECONDS, turnarounds
    table.play_to_the_end()
    assert_log_matches_replay(table.match_id, table.moves, table.feed)
