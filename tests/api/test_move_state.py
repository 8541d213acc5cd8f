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
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import engine, match_unit, presenters, selectors, services, snapshots
from games.api.serializers.play import SeatViewSerializer
from games.errors import ActionRefused
from games.models import Action, Deal, Match, MatchStatus
from tests.api.conftest import new_player, submit
from tests.api.processes import Process
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
        user=users[0],
        table=services.NewTable(
            game=rules.game.value,
            rules=overrides,
            deal_count=2,
            seats=seats,
            clock_seconds=None,
        ),
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
            match_id=match.id, action=action, user=users[seat]
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
            match_id=match.id, action=engine.Bid(1), user=users[seat]
        )
    assert snapshots.take(match.id, match.version) is None
    action = deal.legal_actions(seat)[0]
    services.submit_action(match_id=match.id, action=action, user=users[seat])
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


def person_to_act_after_the_worker(owner: Any, web: Process) -> dict[str, Any]:
    """A match against three computer players whose first turns are theirs, created through
    ``web``: the worker moves the moment it commits."""
    while True:
        with web.running():
            created = owner.post("/matches", {"deals": 1})
        assert created.status_code == 201, created.content
        if created.json()["version"] > 0:  # the computer players moved first
            return created.json()


@pytest.mark.django_db(transaction=True)
def test_a_move_right_after_the_worker_moved_a_new_match_is_accepted(player, settings) -> None:
    """The web process that made a match keeps its state at version 0, while the worker plays
    the computer players' first calls before the answer is even built: the person's move on
    the version their view shows is theirs to make, wherever it lands."""
    settings.COMPUTER_PLAYERS = "tests.api.processes"
    owner, web = player("Owner"), Process("web")
    created = person_to_act_after_the_worker(owner, web)
    with web.running():
        view = owner.view(created["id"])
        assert view["deal"]["to_act"] == view["seat"] == 0
        action = view["deal"]["legal_actions"][0]
        answer = owner.post(f"/matches/{created['id']}/actions",
                            {**action, "expected_version": view["version"]})
    assert answer.status_code == 200, answer.content


def replay_at(match_id: str, version: int) -> tuple[Match, Deal | None, engine.Deal | None]:
    """The match's current deal at ``version`` replayed from the log alone."""
    match = Match.objects.get(pk=match_id)
    actions = Action.objects.filter(match_id=match_id, version__lte=version)
    last = actions.order_by("-version").select_related("deal").first()
    deal_row = (
        last.deal if last is not None else Deal.objects.filter(match=match, sequence=1).first()
    )
    if deal_row is None:
        return match, None, None
    log = [
        (seat, engine.action_from_dict({"kind": kind, **payload}))
        for seat, kind, payload in actions.filter(deal=deal_row)
        .order_by("sequence").values_list("seat", "kind", "payload")
    ]
    replayed = engine.Deal.replay(selectors.deal_start(match, deal_row), log)
    if replayed.is_over:  # its last action ended it: the version's deal is the next one
        deal_row = Deal.objects.filter(match=match, sequence=deal_row.sequence + 1).first()
        if deal_row is None:
            return match, None, None
        replayed = engine.Deal(selectors.deal_start(match, deal_row))
    return match, deal_row, replayed


@pytest.mark.django_db(transaction=True)
@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rules=table_rules(), two=st.booleans(), seed=st.integers(0, 2**32))
def test_moves_spread_over_two_web_processes_and_a_worker_start_from_the_replay(
    rules: engine.TableRules, two: bool, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One or two people's moves land on either of two web processes at random, the worker
    plays the computer players the moment a move commits: every unit of work (a person's move,
    a run of computer players' moves) starts from exactly the replay of the log at its
    version, and every
    view a person reads is the replay at the version it names."""
    rng = random.Random(seed)
    processes = [Process("web 1"), Process("web 2")]
    apply = match_unit.MatchUnit.apply

    def checked_apply(unit: match_unit.MatchUnit, *args: Any, **kwargs: Any) -> None:
        # A unit's first move (computer players' runs apply more, written as the unit closes).
        if not unit._actions:
            fresh = selectors.latest_deals(unit.match)
            assert unit.state is not None
            assert deal_rows(unit.deals) == deal_rows(fresh)
            assert same_state(unit.state, selectors.replay_deal(unit.match, fresh[0]))
        apply(unit, *args, **kwargs)

    monkeypatch.setattr(match_unit.MatchUnit, "apply", checked_apply)
    with override_settings(COMPUTER_PLAYERS="tests.api.processes"):
        people = [new_player("A"), new_player("B")]
        overrides = {k: v for k, v in rules.to_dict().items() if k != "game" and v is not None}
        with rng.choice(processes).running():
            created = people[0].post("/matches", {
                "game": rules.game.value, "rules": overrides, "deals": 2, "clock": None,
                "visibility": "public",
                "seats": [{"kind": "me"},
                          {"kind": "open"} if two else {"kind": "bot", "bot_level": "easy"},
                          {"kind": "bot", "bot_level": "easy"},
                          {"kind": "bot", "bot_level": "easy"}],
            })
            assert created.status_code == 201, created.content
            match_id = created.json()["id"]
        if two:  # it starts when the second person sits down, else at once
            with rng.choice(processes).running():
                joined = people[1].post(f"/matches/{match_id}/join", {"seat": 1})
                assert joined.status_code == 200
        while True:
            with rng.choice(processes).running():
                view = people[0].view(match_id)
            if view["status"] != MatchStatus.ACTIVE:
                break
            seat = view["deal"]["to_act"]
            assert seat in (0, 1)[: 1 + two], "the worker has played the computer players"
            with rng.choice(processes).running():
                mine = people[seat].view(match_id)
            match, deal_row, replayed = replay_at(match_id, mine["version"])
            assert deal_row is not None and replayed is not None
            assert mine["deal"] == presenters.deal_view(replayed.observation(seat), deal_row)
            legal = [a for a in mine["deal"]["legal_actions"] if a["kind"] != "redeal"]
            with rng.choice(processes).running():
                answer = submit(people[seat], match_id, rng.choice(legal),
                                expected_version=mine["version"])
            assert answer.status_code == 200, answer.content
    assert view["status"] == MatchStatus.FINISHED
