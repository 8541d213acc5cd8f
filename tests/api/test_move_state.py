"""A move's state and its answer.

- The snapshot a committed move leaves in the process (games/snapshots.py) is, after every
  action of whole matches under random rules (people's moves and computer players' alike),
  exactly what reading and replaying the log gives, also when the move started from an older
  snapshot, as a process does that did not make the moves since.
- A move that is refused or rolled back leaves no snapshot behind.
- The view a move answers is exactly what the schema's `SeatViewSerializer` renders, so the
  move endpoint can answer it as built.
"""

from __future__ import annotations

import copy
import json
import random
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import engine, selectors, services, snapshots
from games.api.serializers import SeatViewSerializer
from games.errors import ActionRefused
from games.models import Deal, Match, MatchStatus
from tests.engine.test_properties import table_rules


def deal_rows(deals: list[Deal]) -> list[tuple[Any, ...]]:
    return [
        (d.pk, d.sequence, d.status, d.declarer, d.bid, d.trump, d.announcements, d.tricks,
         d.scores, d.outcomes, d.finished_at, d.commitment, d.hands, d.deck)
        for d in deals
    ]


def same_state(kept: engine.Deal, replayed: engine.Deal) -> bool:
    return kept.log == replayed.log and all(
        kept.observation(seat) == replayed.observation(seat) for seat in range(4)
    )


def check_snapshot_is_the_replay(match: Match) -> snapshots.Snapshot | None:
    """Check the snapshot in the store; returns a copy of it."""
    match.refresh_from_db()
    snapshot = snapshots.take(match.id, match.version)
    if match.status != MatchStatus.ACTIVE:
        assert snapshot is None, "an ended match has nothing left to move"
        return None
    assert snapshot is not None, "a committed move leaves its snapshot"
    assert snapshot.version == match.version
    snapshots.give_back(snapshot)
    fresh = selectors.latest_deals(match)
    assert deal_rows(snapshot.deals) == deal_rows(fresh)
    assert same_state(snapshot.state, selectors.replay_deal(match, fresh[0]))
    return copy.deepcopy(snapshot)


def as_if_another_process_moved_since(match: Match, older: snapshots.Snapshot) -> None:
    """Put back an older snapshot, as a process that last moved the match at its version
    holds it: the next move here must bring it up to date (or replay)."""
    match.refresh_from_db()
    assert snapshots.take(match.id, match.version) is not None
    snapshots.give_back(older)


def rendered(view: dict[str, Any]) -> Any:
    return json.loads(json.dumps(view))


def new_match(rules: engine.TableRules, people: int) -> tuple[Match, list[Any]]:
    users = [get_user_model().objects.create_user(f"p{uuid.uuid4().hex[:12]}")
             for _ in range(people)]
    overrides = {k: v for k, v in rules.to_dict().items() if k != "game"}
    seats = [services.SeatSpec(kind="me")]
    seats += [services.SeatSpec(kind="person", user=user) for user in users[1:]]
    seats += [services.SeatSpec(kind="bot", bot_level="easy")] * (4 - people)
    match = services.create_match(
        user=users[0], game=rules.game.value, rules=overrides, deal_count=2, seats=seats,
        clock_seconds=None,
    )
    return match, users


@pytest.mark.django_db(transaction=True)
@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rules=table_rules(), people=st.sampled_from([2, 4]), seed=st.integers(0, 2**32))
def test_the_snapshot_after_every_action_is_the_replay_of_the_log(
    rules: engine.TableRules, people: int, seed: int
) -> None:
    rng = random.Random(seed)
    match, users = new_match(rules, people)
    older = check_snapshot_is_the_replay(match)  # as the start left it
    while match.status == MatchStatus.ACTIVE:
        if older is not None and rng.random() < 0.3:
            as_if_another_process_moved_since(match, older)
        deal = selectors.replay_deal(match, selectors.current_deal(match))
        seat = deal.to_act
        assert seat is not None and seat < people, "the computer players have moved"
        action = rng.choice(deal.legal_actions(seat))
        result = services.submit_action(
            match_id=match.id, seat=seat, action=action, user=users[seat]
        )
        assert rendered(SeatViewSerializer(result.view).data) == rendered(result.view)
        latest = check_snapshot_is_the_replay(match)
        if older is None or rng.random() < 0.5:
            older = latest
    assert match.status == MatchStatus.FINISHED


@pytest.mark.django_db(transaction=True)
def test_a_refused_move_leaves_no_snapshot_and_the_next_move_replays() -> None:
    match, users = new_match(engine.TableRules.create("auction"), 4)
    deal = selectors.replay_deal(match, selectors.current_deal(match))
    seat = deal.to_act
    assert seat is not None
    with pytest.raises(ActionRefused):
        services.submit_action(
            match_id=match.id, seat=seat, action=engine.Bid(1), user=users[seat]
        )
    assert snapshots.take(match.id, match.version) is None
    action = deal.legal_actions(seat)[0]
    services.submit_action(match_id=match.id, seat=seat, action=action, user=users[seat])
    check_snapshot_is_the_replay(match)


@pytest.mark.django_db(transaction=True)
def test_an_older_snapshot_is_brought_up_to_date_with_one_read() -> None:
    match, users = new_match(engine.TableRules.create("auction"), 4)

    def next_move() -> Callable[[], object]:
        deal = selectors.replay_deal(match, selectors.current_deal(match))
        seat = deal.to_act
        assert seat is not None
        action = next(a for a in deal.legal_actions(seat) if a.kind != engine.ActionKind.REDEAL)
        return lambda: services.submit_action(match_id=match.id, action=action, user=users[seat])

    next_move()()
    older = check_snapshot_is_the_replay(match)
    assert older is not None
    next_move()()
    next_move()()
    as_if_another_process_moved_since(match, older)
    move = next_move()
    with CaptureQueriesContext(connection) as queries:
        move()
    reads = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("SELECT")]
    assert not [sql for sql in reads if 'FROM "games_deal"' in sql]
    assert len([sql for sql in reads if 'FROM "games_action"' in sql]) == 1
    check_snapshot_is_the_replay(match)
