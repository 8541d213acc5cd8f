"""What a move costs the database: the round trips of one move through the API, and reads of a
match's rows that never join another table just to order them."""

from __future__ import annotations

from unittest import mock

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.models import Action, Deal, Match, Seat
from platforms.models import PlatformPlayer, WebhookSubscription
from tests.api.conftest import submit, table_of_four


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
def test_on_postgresql_a_moves_action_and_match_are_one_statement(player) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("SQLite writes them one after the other")
    match_id, players = table_of_four(player)
    seat_view = players[players[0].view(match_id)["deal"]["to_act"]].view(match_id)
    mover = players[seat_view["seat"]]
    action = next(a for a in seat_view["deal"]["legal_actions"] if a["kind"] != "redeal")
    with CaptureQueriesContext(connection) as queries:
        answer = submit(mover, match_id, action, expected_version=seat_view["version"])
    assert answer.status_code == 200, answer.content
    writes = [q["sql"] for q in queries.captured_queries
              if 'INTO "games_action"' in q["sql"] or q["sql"].startswith('UPDATE "games_match"')]
    assert len(writes) == 1 and writes[0].startswith("WITH"), writes
    version = answer.json()["version"]
    row = Action.objects.get(match_id=match_id, version=version)
    assert (row.kind, row.seat) == (action["kind"], seat_view["seat"])
    assert Match.objects.get(pk=match_id).version == version


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
