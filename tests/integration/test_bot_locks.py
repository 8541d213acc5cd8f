"""On PostgreSQL a computer player thinks without holding its match's row lock: the lock is
taken only to apply the move it decided on."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection

from bots import tasks
from games import computer_moves
from games.models import Action
from tests.api.conftest import new_player
from tests.bots.test_bot_turns import bot_to_move
from tests.integration.conftest import count_rows

pytestmark = [pytest.mark.integration, pytest.mark.django_db]


def test_no_row_lock_is_held_while_a_computer_player_decides(settings) -> None:
    settings.COMPUTER_PLAYERS = "tests.bots.idle_players"
    match_id, version = bot_to_move(new_player("Owner"))
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (backend,) = cursor.fetchone()
    seen = []

    def holds_a_match_lock() -> bool:
        return count_rows(
            "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation"
            f" WHERE c.relname = 'games_match' AND l.mode = 'RowShareLock' AND l.pid = {backend}"
        ) > 0

    def watched_choose(observation, seat):
        seen.append(holds_a_match_lock())
        return tasks.choose(observation, seat)

    run = computer_moves.play_bot_turns(
        match_id=uuid.UUID(match_id), version=version, choose=watched_choose
    )
    assert run is not None
    played_to = run.version
    assert played_to > version
    assert seen == [False] * (played_to - version)
    assert Action.objects.filter(match_id=match_id).count() == played_to - version
