"""A change on PostgreSQL: the match and its seats read by `lock`'s own statement exactly as the
ORM reads them, and a move's rows (its action, the next person's turn in their own stream, the
deal's progress, the match row) written in one statement (games/writes.py)."""

from __future__ import annotations

import random
import re
import threading
import time
import uuid
from typing import Any

import pytest
from django.db import connection, transaction
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import snapshots, writes
from games.errors import MatchNotFound
from games.match_unit import lock
from games.models import AccountStreamEvent, Action, Deal, Match, Seat
from tests.api.conftest import new_player, submit, table_of_four

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _fields(row: object) -> dict[str, object]:
    return {field.attname: getattr(row, field.attname)
            for field in type(row)._meta.concrete_fields}  # type: ignore[attr-defined]


def test_the_lock_reads_the_match_and_its_seats_as_the_orm_does() -> None:
    match_id, players = table_of_four(lambda name: new_player(name), deals=2)
    submit(players[1], match_id, {"kind": "pass"},
           expected_version=players[1].view(match_id)["version"])
    with transaction.atomic():
        locked = lock(match_id)
        seats = list(locked.seats.all())
    assert _fields(locked) == _fields(Match.objects.get(pk=match_id))
    assert [_fields(seat) for seat in seats] == [
        _fields(seat) for seat in Seat.objects.filter(match_id=match_id).order_by("index")]
    assert all(seat.match is locked for seat in seats)


def test_a_move_writes_its_rows_in_one_statement() -> None:
    match_id, players = table_of_four(lambda name: new_player(name), deals=2)
    rng = random.Random(3)
    tricks_written, snapshots_seen = False, 0
    while (view := players[0].view(match_id))["deal"]["number"] == 1:
        seat = view["deal"]["to_act"]
        mine = players[seat].view(match_id)
        action = rng.choice([a for a in mine["deal"]["legal_actions"] if a["kind"] != "redeal"])
        with CaptureQueriesContext(connection) as queries:
            answer = submit(players[seat], match_id, action, expected_version=mine["version"])
        assert answer.status_code == 200, answer.content
        # What the change writes (a person's presence is noted apart, now and then).
        writes = [q["sql"] for q in queries.captured_queries
                  if q["sql"].startswith(("INSERT", "UPDATE", "WITH", "DELETE"))
                  and not q["sql"].startswith('UPDATE "games_seat"')]
        version = answer.json()["version"]
        if answer.json()["deal"]["number"] == 1:  # a deal's end writes its row whole, and more
            assert len(writes) == 1 and writes[0].startswith("WITH"), writes
            for part in ('INTO "games_action"', 'INTO "games_accountstreamevent"',
                         'UPDATE "games_match"'):
                assert part in writes[0], part
            tricks_written |= 'UPDATE "games_deal"' in writes[0]
        row = Action.objects.get(match_id=match_id, version=version)
        assert (row.kind, row.seat) == (action["kind"], seat)
        stored = Match.objects.get(pk=match_id)
        assert stored.version == version
        kept = snapshots._store.get(stored.pk)
        if kept is not None:
            snapshots_seen += 1
            assert (kept.version, kept.match.updated_at) == (version, stored.updated_at), \
                "the state kept is the row as written"
        turn = AccountStreamEvent.objects.filter(match_id=match_id, type="turn.started").last()
        assert turn is not None and turn.payload["data"]["version"] == version
        assert turn.txid > 0, "the transaction's id, written by the INSERT itself"
    first = Deal.objects.get(match_id=match_id, sequence=1)
    assert tricks_written and first.status == "finished" and sum(first.tricks) == 13
    assert snapshots_seen > 40


def test_a_lock_outside_a_transaction_or_of_no_match_is_refused() -> None:
    match_id, _ = table_of_four(lambda name: new_player(name))
    with pytest.raises(TransactionManagementError):
        lock(match_id)
    with transaction.atomic():
        for missing in (uuid.uuid4(), "not-a-match"):
            with pytest.raises(MatchNotFound):
                lock(missing)


def _next_move(players: list[Any], match_id: str) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    seat = players[0].view(match_id)["deal"]["to_act"]
    mine = players[seat].view(match_id)
    action = next(a for a in mine["deal"]["legal_actions"] if a["kind"] != "redeal")
    return players[seat], mine, action


def test_a_move_on_the_kept_state_is_one_statement_with_its_guard_and_seats() -> None:
    match_id, players = table_of_four(lambda name: new_player(name), deals=2)
    first, mine, action = _next_move(players, match_id)  # made here: its state is kept
    assert submit(first, match_id, action, expected_version=mine["version"]).status_code == 200
    mover, mine, action = _next_move(players, match_id)
    with CaptureQueriesContext(connection) as queries:
        answer = submit(mover, match_id, action, expected_version=mine["version"])
    assert answer.status_code == 200, answer.content
    statements = [q["sql"] for q in queries.captured_queries if not q["sql"].startswith(
        ('SELECT "knox_authtoken"', 'UPDATE "games_seat"', "BEGIN", "COMMIT"))]
    assert len(statements) == 1, statements  # no lock before it
    assert "FOR UPDATE" not in statements[0] and 'FROM "games_seat"' in statements[0]
    # The guard first, and an update of the deal's row only once it has changed its row: the
    # match row is locked before any other, as by the lock.
    assert statements[0].startswith('WITH w0 AS (UPDATE "games_match"'), statements[0][:80]
    for part in re.findall(r'UPDATE "games_deal" .*?\)(?:, w\d| SELECT)', statements[0]):
        assert "AND EXISTS (SELECT FROM w0)" in part, part
    assert re.search(r'"version" = \d+ AND "updated_at" = ', statements[0]), statements[0]


def test_the_guarded_write_waits_for_a_change_under_way_and_then_hands_over_to_the_lock() -> None:
    """Real concurrency: a change holds the match's lock while a move on the kept state
    writes; the guarded UPDATE waits, finds the row moved on once that change commits, and the
    move is made under the lock, exactly once."""
    match_id, players = table_of_four(lambda name: new_player(name), deals=2)
    first, mine, action = _next_move(players, match_id)  # made here: its state is kept
    assert submit(first, match_id, action, expected_version=mine["version"]).status_code == 200
    mover, mine, action = _next_move(players, match_id)
    locked, release = threading.Event(), threading.Event()

    def another_change() -> None:
        try:
            with transaction.atomic():
                lock(match_id)
                locked.set()
                release.wait(10)
                Match.objects.filter(pk=match_id).update(updated_at=timezone.now())
        finally:
            connection.close()

    holder = threading.Thread(target=another_change)
    holder.start()
    assert locked.wait(10)
    answers: list[Any] = []
    mover_thread = threading.Thread(target=lambda: (answers.append(
        submit(mover, match_id, action, expected_version=mine["version"])),
        connection.close()))
    mover_thread.start()
    waiting = _waits_for_a_lock(match_id)
    release.set()
    holder.join(10)
    mover_thread.join(10)
    assert waiting, "the move's guarded write waited for the change under way"
    assert answers and answers[0].status_code == 200, answers and answers[0].content
    versions = list(Action.objects.filter(match_id=match_id).values_list("version", flat=True))
    assert len(versions) == len(set(versions))
    assert Match.objects.get(pk=match_id).version == answers[0].json()["version"] == max(versions)


def _waits_for_a_lock(match_id: str) -> bool:
    """Whether another session's statement waits on a lock, within a few seconds."""
    for _ in range(100):
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                           " AND datname = current_database()")
            if cursor.fetchone()[0]:
                return True
        time.sleep(0.05)
    return False


def test_a_guarded_write_that_finds_its_row_changed_is_stale_and_rolled_back() -> None:
    owner = new_player("Writer")
    match = Match.objects.get(pk=table_of_four(lambda name: new_player(name))[0])
    seen = match.updated_at
    Match.objects.filter(pk=match.pk).update(updated_at=timezone.now())
    match.version += 1
    write = writes.Write()
    write.insert([AccountStreamEvent(user_id=owner.user_id, type="turn.started", payload={})])
    write.update(match, ["version", "updated_at"],
                 where={"version": match.version - 1, "updated_at": seen})
    with pytest.raises(writes.Stale), transaction.atomic():
        write.execute(read=("SELECT 1", []))
    assert not AccountStreamEvent.objects.filter(user_id=owner.user_id).exists()
    assert Match.objects.get(pk=match.pk).version == match.version - 1
