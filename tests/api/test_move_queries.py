"""What a move costs the database: the round trips of one move through the API, and reads of a
match's rows that never join another table just to order them."""

from __future__ import annotations

import json
from unittest import mock

import pytest
from django.core.handlers.wsgi import WSGIHandler
from django.db import connection
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext

from games import server_time
from games.models import Action, Deal, Seat
from platforms.models import PlatformPlayer, WebhookSubscription
from runtime import work
from tests.api.conftest import API, create_match, submit, table_of_four


@pytest.mark.parametrize("model", [Seat, Deal, Action, PlatformPlayer, WebhookSubscription])
def test_a_models_default_order_needs_no_join(model) -> None:
    assert "JOIN" not in str(model.objects.filter(pk=1).query)


# Transactional, so that commits happen: the move then finds the state its match's last write
# left (games/snapshots.py), as a server does.
@pytest.mark.django_db(transaction=True)
def test_a_move_is_a_few_round_trips(player) -> None:
    match_id, players = table_of_four(player)
    view = players[0].view(match_id)
    to_act = view["deal"]["to_act"]
    seat_view = players[to_act].view(match_id)
    action = next(a for a in seat_view["deal"]["legal_actions"] if a["kind"] != "redeal")
    with CaptureQueriesContext(connection) as queries:
        answer = submit(players[to_act], match_id, action,
                        expected_version=seat_view["version"])
    assert answer.status_code == 200, answer.content
    statements = [q["sql"].split()[0] for q in queries.captured_queries
                  if not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT", "BEGIN", "COMMIT"))]
    # The token (2), the match locked, its seats, the action inserted, the match updated, and
    # the deal's row when the auction's state changed: no read of the deals or of the log.
    assert len(statements) <= 7, "\n".join(q["sql"][:70] for q in queries.captured_queries)
    assert not [q for q in queries.captured_queries
                if q["sql"].startswith(('SELECT "games_deal"', 'SELECT "games_action"'))]


@pytest.mark.django_db(transaction=True)
def test_a_move_is_announced_as_the_feed_lists_it(player) -> None:
    match_id, players = table_of_four(player)
    seat_view = players[players[0].view(match_id)["deal"]["to_act"]].view(match_id)
    mover = players[seat_view["seat"]]
    action = next(a for a in seat_view["deal"]["legal_actions"] if a["kind"] != "redeal")
    with mock.patch("games.notify.announce") as announce:
        answer = submit(mover, match_id, action, expected_version=seat_view["version"])
    assert answer.status_code == 200, answer.content
    version = answer.json()["version"]
    listed = mover.get(f"/matches/{match_id}/events?after={version - 1}&wait=0").json()
    assert announce.call_args.kwargs["event"] == listed["events"][0]


@pytest.mark.django_db(transaction=True)
def test_a_move_and_the_quick_computer_players_round_after_it_read_nothing_more(player) -> None:
    """A person's move against Easy players, as a server serves it (the round once the answer
    is sent): the token, then the move writes on the state the last round kept and the round
    on the state the move kept, neither locking; the round is known to be over from its own
    change, and who plays at the table from the move's, with no read of either."""
    person = player("P")
    match_id = create_match(person, deals=1, seats=[{"kind": "me"}]
                            + [{"kind": "bot", "bot_level": "easy"}] * 3)["id"]
    # Who pays for the match's turns, which each process looks up once (games/server_time.py).
    server_time.share_account(match_id)
    server_time.payers(person.user_id)
    rounds = 0
    for _ in range(6):
        view = person.view(match_id)
        action = next(a for a in view["deal"]["legal_actions"] if a["kind"] != "redeal")
        statements: list[str] = []

        def record(execute, sql, params, many, context, statements=statements):
            if not sql.startswith(("SAVEPOINT", "RELEASE SAVEPOINT", "BEGIN", "COMMIT")):
                statements.append(sql)
            return execute(sql, params, many, context)

        environ = RequestFactory().post(
            f"{API}/matches/{match_id}/actions",
            json.dumps({**action, "expected_version": view["version"]}),
            content_type="application/json",
            HTTP_AUTHORIZATION=person.client._credentials["HTTP_AUTHORIZATION"],
        ).environ
        with connection.execute_wrapper(record):
            body = work.AfterAnswer(WSGIHandler())(environ, lambda *args: None)
            assert json.loads(b"".join(body))["version"] == view["version"] + 1
            body.close()
        if person.view(match_id)["version"] == view["version"] + 1:
            continue  # the person's turn again (the declarer names trumps)
        rounds += 1
        listing = "\n".join(sql[:80] for sql in statements)
        assert not [sql for sql in statements
                    if sql.startswith(('SELECT "games_deal"', 'SELECT "games_action"'))], listing
        # The move is made on the state the round before it left in this process, and the
        # round on the state the move left, neither with a lock: each write ends with a read
        # of the seats (on PostgreSQL in its one statement). Each change may also update its
        # deal's row.
        postgresql = connection.vendor == "postgresql"
        assert not [sql for sql in statements if sql.startswith('SELECT "games_match"')], listing
        seats_read = [sql for sql in statements if sql.startswith('SELECT "games_seat"')]
        assert len(seats_read) == (0 if postgresql else 2), listing
        # And the round that leaves the person to act writes their `turn.started` to their
        # own stream (games/account_stream.py), in its transaction.
        own = [sql for sql in statements
               if sql.startswith('INSERT INTO "games_accountstreamevent"')]
        assert len(own) <= 1, listing
        assert len(statements) - len(own) <= (5 if postgresql else 11), listing
    assert rounds >= 3
