"""A change on PostgreSQL: the match and its seats read by `lock`'s own statement exactly as the
ORM reads them, and a move's rows (its action, the next person's turn in their own stream, the
deal's progress, the match row) written in one statement (games/writes.py)."""

from __future__ import annotations

import random
import uuid

import pytest
from django.db import connection, transaction
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext

from games import snapshots
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
