"""The sweeper that sends lost bot turns again, in-process against the PostgreSQL test database.

No task runs here: `send_turns` only records what it was sent, and the test's
transaction never commits, so the turns `create_match` schedules on commit are never sent,
which is what a lost message looks like to the sweeper.
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import AbstractBaseUser, Permission
from django.utils import timezone

from bots import interface
from bots.players import choose_action
from games import computer_moves, selectors, services, sweeper
from games.models import Match

pytestmark = [pytest.mark.integration, pytest.mark.django_db]

BOTS = [services.SeatSpec(kind="bot", bot_level="easy")] * 3


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    calls: list[tuple[Any, ...]] = []
    monkeypatch.setattr(interface, "send_turns", lambda *args: calls.append(args))
    return calls


@pytest.fixture
def user(django_user_model: Any) -> AbstractBaseUser:
    # Its matches of computer players alone need the permission.
    created = django_user_model.objects.create_user("sweeper-test")
    created.user_permissions.add(Permission.objects.get(codename="play_bot_only_matches"))
    return django_user_model.objects.get(pk=created.pk)


def waiting_for_its_person(user: AbstractBaseUser, rng: random.Random) -> Match:
    """A match of ``user`` against three computer players, played up to the person's turn."""
    match = services.create_match(
        user=user,
        table=services.NewTable(game="auction", deal_count=1,
                                seats=[services.SeatSpec(kind="me"), *BOTS]),
    )
    version = match.version
    while (played := computer_moves.play_bot_turns(
        match_id=match.pk, version=version,
        choose=lambda observation, seat: choose_action(observation, seat.bot_level, rng),
    )) is not None:
        version = played
    return match


def idle_for_a_minute(match: Match) -> None:
    past = timezone.now() - timedelta(minutes=1)
    Match.objects.filter(pk=match.pk).update(updated_at=past)
    Match.objects.filter(pk=match.pk, computer_turn_since__isnull=False).update(
        computer_turn_since=past)


def test_a_stuck_bot_turn_is_sent_again_once(user: AbstractBaseUser, sent: list) -> None:
    match = services.create_match(
        user=user,
        table=services.NewTable(
            game="auction",
            deal_count=1,
            seats=[*BOTS, services.SeatSpec(kind="bot", bot_level="easy")],
        ),
    )
    idle_for_a_minute(match)

    assert sweeper.resend_stuck_bot_turns() == 1
    assert sent == [(str(match.pk), 0)]
    # The next sweeps leave the queue alone while that copy has time to run.
    assert sweeper.resend_stuck_bot_turns() == 0
    assert len(sent) == 1


def test_a_bot_turn_of_a_moving_match_is_left_alone(user: AbstractBaseUser, sent: list) -> None:
    services.create_match(
        user=user,
        table=services.NewTable(
            game="auction",
            deal_count=1,
            seats=[*BOTS, services.SeatSpec(kind="bot", bot_level="easy")],
        ),
    )

    assert sweeper.stuck_bot_turns() == []


def test_a_match_waiting_for_a_person_is_replayed_once_per_version(
    user: AbstractBaseUser, sent: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    match = waiting_for_its_person(user, random.Random(5))
    idle_for_a_minute(match)

    assert sweeper.stuck_bot_turns() == []

    def must_not_replay(match: Match) -> int | None:
        raise AssertionError("replayed a match already known to wait for a person")

    monkeypatch.setattr(selectors, "bot_to_act", must_not_replay)
    assert sweeper.stuck_bot_turns() == []
    assert sent == []


def test_a_match_marked_before_its_turn_was_known_is_cleared_once(
    user: AbstractBaseUser, sent: list
) -> None:
    """A row marked as a computer player's turn where a person is to act (as the migration
    marks every match in play) is read once by the sweep and cleared."""
    match = waiting_for_its_person(user, random.Random(6))
    assert Match.objects.get(pk=match.pk).computer_turn_since is None  # a person is to act
    Match.objects.filter(pk=match.pk).update(
        computer_turn_since=timezone.now() - timedelta(minutes=1))
    assert sweeper.stuck_bot_turns() == []
    assert Match.objects.get(pk=match.pk).computer_turn_since is None
    assert sent == []
