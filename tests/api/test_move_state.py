"""A move's state and its answer.

- The snapshot a committed move leaves in the process (games/snapshots.py) is, after every
  action of whole matches under random rules (people's moves and computer players' alike),
  exactly what reading and replaying the log gives.
- A move that is refused or rolled back leaves no snapshot behind.
- The view a move answers is exactly what the schema's `SeatViewSerializer` renders, so the
  move endpoint can answer it as built.
"""

from __future__ import annotations

import json
import random
import uuid
from typing import Any

import pytest
from django.contrib.auth import get_user_model
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


def check_snapshot_is_the_replay(match: Match) -> None:
    match.refresh_from_db()
    snapshot = snapshots.take(match.id, match.version)
    if match.status != MatchStatus.ACTIVE:
        assert snapshot is None, "an ended match has nothing left to move"
        return
    assert snapshot is not None, "a committed move leaves its snapshot"
    snapshots.give_back(match.id, snapshot)
    fresh = selectors.latest_deals(match)
    assert deal_rows(snapshot.deals) == deal_rows(fresh)
    assert same_state(snapshot.state, selectors.replay_deal(match, fresh[0]))


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
    check_snapshot_is_the_replay(match)  # as the start left it
    while match.status == MatchStatus.ACTIVE:
        deal = selectors.replay_deal(match, selectors.current_deal(match))
        seat = deal.to_act
        assert seat is not None and seat < people, "the computer players have moved"
        action = rng.choice(deal.legal_actions(seat))
        result = services.submit_action(
            match_id=match.id, seat=seat, action=action, user=users[seat]
        )
        assert rendered(SeatViewSerializer(result.view).data) == rendered(result.view)
        check_snapshot_is_the_replay(match)
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
