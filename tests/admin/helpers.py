"""Matches for the admin tests, played to the end through the service layer."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser

from games import computer_moves, engine, selectors, services
from games.models import Match, MatchStatus
from games.services import SeatSpec

# One person and three computer players, one of each level.
WITH_BOTS = (
    SeatSpec("me", display_name="Ayşe"),
    SeatSpec("bot", bot_level="easy"),
    SeatSpec("bot", bot_level="medium"),
    SeatSpec("bot", bot_level="hard"),
)


def person(username: str) -> AbstractBaseUser:
    return get_user_model().objects.create_user(username=username, password="x" * 12)


def play_match(
    user: AbstractBaseUser,
    *,
    game: str = "auction",
    deal_count: int = 1,
    rules: dict[str, Any] | None = None,
    seats: Sequence[SeatSpec] = WITH_BOTS,
    seed: int = 0,
    finish: bool = True,
    rated: bool = False,
    choose: Callable[[list[engine.Action], random.Random], engine.Action] = (
        lambda legal, rng: rng.choice(legal)
    ),
) -> Match:
    """Create a match with ``user`` in the "me" seat and play legal moves for every seat (the
    computer players' too, through the same service call their tasks make) until it ends, or,
    with ``finish=False``, until the first deal is half played. ``choose`` picks each move
    (by default at random); a request for a new deal is never offered to it."""
    rng = random.Random(seed)
    match = services.create_match(
        user=user,
        table=services.NewTable(
            game=game,
            rules=rules,
            deal_count=deal_count,
            seats=seats,
            rated=rated,
        ),
    )
    for _ in range(deal_count * 150):
        match.refresh_from_db()
        if match.status != MatchStatus.ACTIVE:
            break
        deal = selectors.replay_deal(match, selectors.current_deal(match))
        if not finish and len(deal.completed_tricks()) >= 6:
            break
        seat = deal.to_act
        assert seat is not None
        legal = [a for a in deal.legal_actions(seat) if a.kind != engine.ActionKind.REDEAL]
        acting = match.seats.get(index=seat)
        action = choose(legal, rng)
        if acting.user is None:
            run = computer_moves.play_bot_turns(
                match_id=match.id, version=match.version,
                choose=lambda *_, chosen=action: chosen, enough=lambda: True,
            )
            assert run is not None and run.version == match.version + 1
        else:
            services.submit_action(
                match_id=match.id, action=action, user=acting.user,
                expected_version=match.version,
            )
    match.refresh_from_db()
    assert match.status == (MatchStatus.FINISHED if finish else MatchStatus.ACTIVE)
    return match
