"""What follows a match's change (games/follow_ups.py, the table batak_api/follow_ups.py): each
handler runs after the change commits, on its own — one that fails leaves the move applied and
the others run — and a kept handler's events wait in their rows until it has taken them, once,
in order, however it was stopped."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from batak_api.follow_ups import FOLLOW_UPS
from games import follow_ups
from games.models import Action, FollowUp, Match

from .conftest import play_random_turn, table_of_four

# The handlers that run after the change commits (those within it are part of it).
NAMES = [handler.name for handler in FOLLOW_UPS if not handler.within]
KEPT = {handler.name for handler in FOLLOW_UPS if handler.kept}
WITHIN = {handler.name for handler in FOLLOW_UPS if handler.within}


@pytest.fixture
def ran() -> Iterator[list[tuple[str, Any]]]:
    """What each handler of the table ran, by its name, once every handler takes every event
    (`table`); the real table again afterwards."""
    record: list[tuple[str, Any]] = []
    yield record
    follow_ups.install(FOLLOW_UPS)


def table(ran: list[tuple[str, Any]], failing: str = "") -> None:
    def recorder(name: str) -> Callable[[Any], None]:
        def run(event: Any) -> None:
            if name == failing:
                raise RuntimeError(f"{name} is down")
            ran.append((name, event))
        return run

    follow_ups.install([dataclasses.replace(handler, run=recorder(handler.name),
                                            wants=lambda event: True)
                        for handler in FOLLOW_UPS])


def one_move(player) -> tuple[str, int]:
    """A started match between four people, and the version of its first move."""
    match_id, players = table_of_four(player)
    return match_id, play_random_turn(players, match_id, random.Random(1))["version"]


@pytest.mark.django_db(transaction=True)  # as served: each change commits
@pytest.mark.parametrize("failing", NAMES)
def test_a_failing_handler_leaves_the_move_applied_and_the_others_run(
    player, ran, failing: str
) -> None:
    table(ran, failing)
    match_id, version = one_move(player)
    assert Match.objects.get(pk=match_id).version == version == 1
    assert Action.objects.filter(match_id=match_id, version=version).exists()
    moved = {name for name, event in ran if event.version == version}
    assert moved == (set(NAMES) | WITHIN) - {failing}
    # The failing handler's events wait for it, due again later; nobody else's wait.
    waiting = FollowUp.objects.filter(match_id=match_id)
    assert set(waiting.values_list("handler", flat=True)) == ({failing} & KEPT)
    assert all(row.attempts >= 1 and row.due_at > timezone.now() for row in waiting)
    if failing in KEPT:
        # Mended, it takes them at the sweep: the start's and the move's, in order, once.
        table(ran)
        waiting.update(due_at=timezone.now())
        assert follow_ups.resume() == 1
        versions = [event.version for name, event in ran if name == failing]
        assert versions == sorted(versions) and versions[-1] == version
        assert not waiting.exists()
        assert follow_ups.resume() == 0


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("failing", sorted(WITHIN))
def test_a_handler_within_the_change_is_part_of_it(player, ran, failing: str) -> None:
    """What it writes is there exactly when the change is: if it fails, the change is not
    made (and the request says so), as with any other row of the change."""
    match_id, players = table_of_four(player)
    view = players[0].view(match_id)
    seat = view["deal"]["to_act"]
    mine = players[seat].view(match_id)
    table(ran, failing)
    answer = players[seat].post(f"/matches/{match_id}/actions", {
        **mine["deal"]["legal_actions"][0], "expected_version": mine["version"]})
    assert answer.status_code == 500
    assert Match.objects.get(pk=match_id).version == mine["version"]
    assert not FollowUp.objects.filter(match_id=match_id).exists()
    assert ran == []


@pytest.mark.django_db(transaction=True)
def test_a_process_stopped_after_the_commit_leaves_its_kept_events_to_the_sweep(
    player, ran, monkeypatch
) -> None:
    table(ran)
    monkeypatch.setattr(follow_ups, "_run", lambda events, rows_of: None)  # stopped
    match_id, version = one_move(player)
    assert {name for name, _ in ran} == WITHIN  # written with the change itself
    ran.clear()
    assert set(FollowUp.objects.filter(match_id=match_id).values_list(
        "handler", flat=True)) == KEPT
    assert follow_ups.resume() == 0  # not due yet: the process might still be at them
    FollowUp.objects.update(due_at=timezone.now() - timedelta(seconds=1))
    assert follow_ups.resume() == len(KEPT)
    for name in KEPT:
        versions = [event.version for handler, event in ran if handler == name]
        assert versions == sorted(versions) and version in versions
    taken = len(ran)
    assert follow_ups.resume() == 0 and len(ran) == taken  # once


@pytest.mark.django_db(transaction=True)
def test_the_events_kept_are_what_the_handlers_would_have_been_told(player, ran) -> None:
    table(ran)
    match_id, version = one_move(player)
    told = [event for name, event in ran if name == "metrics"]
    kept = [event for name, event in ran
            if name == "webhooks" and isinstance(event, follow_ups.MatchProgressed)]
    assert kept == told and kept[-1].version == version
