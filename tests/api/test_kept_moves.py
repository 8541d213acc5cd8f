"""A person's move made on the state this process kept of its match, with no lock
(`match_unit.changing_kept`), and every way that can fail handed to the lock: the match changed
since (in another process), a seat changed without the match row, a refusal of a state that
may be behind, a deal's end. Each move exactly once. (PostgreSQL's one statement:
tests/integration/test_change_writes.py.)"""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import snapshots
from games.models import Action, Match, Seat
from tests.api.conftest import Player, new_player, submit, table_of_four

pytestmark = pytest.mark.django_db(transaction=True)


def _table() -> tuple[str, list[Player]]:
    return table_of_four(lambda name: new_player(name), deals=2)


def _turn(players: list[Player], match_id: str) -> tuple[Player, dict[str, Any], dict[str, Any]]:
    """Who is to act, their view, and an action of theirs (no redeal)."""
    seat = players[0].view(match_id)["deal"]["to_act"]
    mine = players[seat].view(match_id)
    action = next(a for a in mine["deal"]["legal_actions"] if a["kind"] != "redeal")
    return players[seat], mine, action


def _move(players: list[Player], match_id: str) -> tuple[list[str], dict[str, Any]]:
    """The next move, its statements and its answer."""
    mover, mine, action = _turn(players, match_id)
    with CaptureQueriesContext(connection) as queries:
        answer = submit(mover, match_id, action, expected_version=mine["version"])
    assert answer.status_code == 200, answer.content
    return [q["sql"] for q in queries.captured_queries], answer.json()


def _locked(statements: list[str]) -> bool:
    return any(sql.startswith('SELECT "games_match"') for sql in statements)


def _exactly_once(match_id: str) -> None:
    match = Match.objects.get(pk=match_id)
    versions = list(Action.objects.filter(match_id=match_id).values_list("version", flat=True))
    assert len(versions) == len(set(versions)) and max(versions) == match.version


def test_a_move_after_one_made_here_takes_no_lock() -> None:
    match_id, players = _table()
    _move(players, match_id)  # the start was made here too; this one keeps its state
    statements, answer = _move(players, match_id)
    assert not _locked(statements), statements
    stored = Match.objects.get(pk=match_id)
    assert answer["version"] == stored.version
    kept = snapshots._store[uuid.UUID(match_id)]
    assert (kept.version, kept.match.updated_at) == (stored.version, stored.updated_at)
    _exactly_once(match_id)


def test_a_match_changed_since_it_was_kept_is_moved_under_the_lock_once() -> None:
    match_id, players = _table()
    _move(players, match_id)
    # Another process changed the match without a new version (a seat's player): this
    # process's kept row is behind.
    Match.objects.filter(pk=match_id).update(updated_at=timezone.now())
    statements, answer = _move(players, match_id)
    assert _locked(statements), "the kept write failed and the lock made the move"
    assert Match.objects.get(pk=match_id).version == answer["version"]
    _exactly_once(match_id)


def test_a_kept_state_a_version_behind_is_moved_under_the_lock_once() -> None:
    match_id, players = _table()
    _move(players, match_id)
    behind = snapshots._store[uuid.UUID(match_id)]
    _move(players, match_id)
    snapshots._store[behind.match.pk] = behind  # as if another process made the last move
    # The move expects the match's version, which the kept state is not at: the lock makes it,
    # with nothing tried on the kept state first.
    statements, answer = _move(players, match_id)
    assert _locked(statements)
    first_lock = next(i for i, sql in enumerate(statements)
                      if sql.startswith('SELECT "games_match"'))
    assert not [sql for sql in statements[:first_lock] if sql.startswith("INSERT")], statements
    _exactly_once(match_id)
    assert answer["version"] == Match.objects.get(pk=match_id).version


def test_a_seat_renamed_without_the_match_row_is_answered_as_it_is_now() -> None:
    match_id, players = _table()
    _move(players, match_id)
    Seat.objects.filter(match_id=match_id, index=2).update(display_name="Former player")
    statements, answer = _move(players, match_id)
    assert _locked(statements), "the seats read back differ from the kept ones"
    assert answer["seats"][2]["display_name"] == "Former player"
    _exactly_once(match_id)


def test_when_a_person_was_last_seen_is_taken_from_the_seats_read_back() -> None:
    match_id, players = _table()
    _move(players, match_id)
    mover, mine, action = _turn(players, match_id)
    other = (mine["seat"] + 1) % 4
    seen = timezone.now() + timedelta(seconds=1)
    Seat.objects.filter(match_id=match_id, index=other).update(last_seen=seen)
    with CaptureQueriesContext(connection) as queries:
        answer = submit(mover, match_id, action, expected_version=mine["version"])
    assert not _locked([q["sql"] for q in queries.captured_queries])
    assert answer.json()["seats"][other]["last_seen"] == seen.isoformat()


def test_a_refused_move_is_refused_by_the_lock_and_the_kept_state_stays() -> None:
    match_id, players = _table()
    _move(players, match_id)
    mover, mine, action = _turn(players, match_id)
    with CaptureQueriesContext(connection) as queries:
        stale = submit(mover, match_id, action, expected_version=mine["version"] - 1)
    assert stale.status_code == 409, stale.content
    assert _locked([q["sql"] for q in queries.captured_queries])
    _exactly_once(match_id)
    # The lock's refusal rolled back; the move after it is made under the lock again, once.
    statements, answer = _move(players, match_id)
    assert answer["version"] == mine["version"] + 1
    _exactly_once(match_id)


def test_a_whole_deal_is_played_on_kept_states_and_its_end_under_the_lock() -> None:
    match_id, players = _table()
    kept_moves = locked_moves = 0
    while players[0].view(match_id)["deal"]["number"] == 1:
        statements, answer = _move(players, match_id)
        if _locked(statements):
            locked_moves += 1
        else:
            kept_moves += 1
        if answer["deal"]["number"] == 2:
            assert _locked(statements), "a deal's end writes its rows in the lock's order"
    _exactly_once(match_id)
    assert kept_moves > 40 and locked_moves <= 3, (kept_moves, locked_moves)


def _against_easy_players(monkeypatch: pytest.MonkeyPatch) -> tuple[Player, str, list[Any]]:
    """A person against three Easy players whose turns are sent and never played (each test
    plays them), and the turns sent."""
    from bots import interface

    sent: list[Any] = []
    monkeypatch.setattr(interface, "send_turns",
                        lambda match_id, version, seat_levels=None: sent.append(version))
    person = new_player("P")
    response = person.post("/matches", {
        "game": "auction", "deals": 2,
        "seats": [{"kind": "me"}] + [{"kind": "bot", "bot_level": "easy"}] * 3})
    assert response.status_code == 201, response.content
    return person, response.json()["id"], sent


def _round(match_id: str, version: int) -> Any:
    from bots.tasks import choose
    from games import computer_moves

    with CaptureQueriesContext(connection) as queries:
        run = computer_moves.play_bot_turns(match_id=uuid.UUID(match_id), version=version,
                                            choose=choose)
    return run, [q["sql"] for q in queries.captured_queries]


def _to_the_computer_players(person: Player, match_id: str, sent: list[Any]) -> int:
    """The person moves until the computer players are to act; the version they act at."""
    while not sent:
        view = person.view(match_id)
        if view["deal"]["to_act"] != view["seat"]:
            return view["version"]
        action = next(a for a in view["deal"]["legal_actions"] if a["kind"] != "redeal")
        assert submit(person, match_id, action,
                      expected_version=view["version"]).status_code == 200
    return sent[-1]


def test_a_computer_players_round_is_played_on_the_state_the_move_kept(monkeypatch) -> None:
    person, match_id, sent = _against_easy_players(monkeypatch)
    version = _to_the_computer_players(person, match_id, sent)
    run, statements = _round(match_id, version)
    assert run is not None and run.version > version
    if Match.objects.get(pk=match_id).deals.count() == 1:  # no deal's end: no lock
        assert not _locked(statements), statements
    _exactly_once(match_id)


def test_a_round_whose_match_changed_since_it_was_kept_is_played_under_the_lock(
    monkeypatch,
) -> None:
    person, match_id, sent = _against_easy_players(monkeypatch)
    version = _to_the_computer_players(person, match_id, sent)
    Match.objects.filter(pk=match_id).update(updated_at=timezone.now())
    run, statements = _round(match_id, version)
    assert run is not None and run.version == Match.objects.get(pk=match_id).version
    assert _locked(statements), statements
    _exactly_once(match_id)
    again, _ = _round(match_id, version)
    assert again is None, "a round is played once"
