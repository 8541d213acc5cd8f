"""A change's rows written by games/writes.py as `Model.save` would write them (here on SQLite,
one statement after the other; tests/integration/test_change_writes.py has PostgreSQL's one
statement)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from games import writes
from games.event_log import CurrentTransaction
from games.models import AccountStreamEvent, Match
from tests.api.conftest import create_match, new_player

pytestmark = pytest.mark.django_db


def _event(user_id: int, kind: str = "turn.started", **payload: object) -> AccountStreamEvent:
    return AccountStreamEvent(user_id=user_id, type=kind, payload={"type": kind, **payload})


def test_rows_are_inserted_and_fields_updated_as_save_would() -> None:
    owner = new_player("Writer")
    user = get_user_model().objects.get(pk=owner.user_id)
    match = Match.objects.get(pk=create_match(owner, game="auction", deals=1)["id"])
    AccountStreamEvent.objects.all().delete()  # what the match's start told
    before = match.updated_at
    told_at = timezone.now() - timedelta(seconds=5)
    first = _event(user.pk, data={"seat": 0})
    first.created_at = told_at  # told of before it is written: the time it says is kept
    second = _event(user.pk, "seat.taken")
    second.txid = CurrentTransaction()  # type: ignore[assignment]
    match.version = 7
    write = writes.Write()
    with transaction.atomic():
        write.insert([first, second])
        write.update(match, ["version", "updated_at"])
        write.execute()
    rows = list(AccountStreamEvent.objects.order_by("id"))
    assert [(row.type, row.payload, row.txid) for row in rows] == [
        ("turn.started", {"type": "turn.started", "data": {"seat": 0}}, 0),
        ("seat.taken", {"type": "seat.taken"}, 0),  # no transaction ids on SQLite
    ]
    assert rows[0].created_at == told_at and rows[1].created_at > told_at
    stored = Match.objects.get(pk=match.pk)
    assert stored.version == 7 and stored.updated_at == match.updated_at > before


def test_inserts_within_a_change_join_its_write_and_are_written_at_once_elsewhere() -> None:
    user = get_user_model().objects.create_user("gatherer")
    write = writes.Write()
    with write.gathering():
        writes.insert([_event(user.pk)])
    assert not AccountStreamEvent.objects.exists()
    writes.insert([_event(user.pk, "seat.left")])  # no change gathers it
    assert AccountStreamEvent.objects.get().type == "seat.left"
    write.execute()
    assert AccountStreamEvent.objects.count() == 2


def test_what_it_cannot_write_as_save_would_is_refused() -> None:
    owner = new_player("Refused")
    user = get_user_model().objects.get(pk=owner.user_id)
    match = Match.objects.get(pk=create_match(owner, game="auction", deals=1)["id"])
    write = writes.Write()
    with pytest.raises(ValueError, match="not fields"):
        write.update(match, ["version", "no_such_field"])
    with pytest.raises(ValueError, match="not fields"):
        write.update(match, [])
    existing = AccountStreamEvent.objects.create(user=user, type="seat.left", payload={})
    with pytest.raises(TypeError):
        write.insert([existing])  # its primary key is the database's to give


def test_a_guarded_update_that_finds_its_row_changed_is_stale() -> None:
    owner = new_player("Guarded")
    match = Match.objects.get(pk=create_match(owner, game="auction", deals=1)["id"])
    seen = {"version": match.version, "updated_at": match.updated_at}
    Match.objects.filter(pk=match.pk).update(version=match.version + 1)
    match.version += 5
    write = writes.Write()
    write.insert([_event(owner.user_id)])
    write.update(match, ["version", "updated_at"], where=seen)
    assert write.guarded
    with pytest.raises(writes.Stale), transaction.atomic():
        write.execute()
    assert Match.objects.get(pk=match.pk).version == seen["version"] + 1


def test_a_guarded_write_reads_after_it() -> None:
    owner = new_player("Reader")
    match = Match.objects.get(pk=create_match(owner, game="auction", deals=1)["id"])
    write = writes.Write()
    write.update(match, ["updated_at"],
                 where={"version": match.version, "updated_at": match.updated_at})
    with transaction.atomic():
        rows = write.execute(read=("SELECT id FROM games_match WHERE id = %s",
                                   [match.pk.hex]))
    assert rows == [(match.pk.hex,)]
    assert not writes.Write() and writes.Write().execute() == []
