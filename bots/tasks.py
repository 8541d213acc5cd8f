"""Celery tasks: computer players take their turns through the service layer."""

from __future__ import annotations

import random
import time
import uuid

from celery import shared_task

from bots.players import choose_action
from games import selectors, services
from games.errors import MatchNotActive, StaleVersion
from games.models import Match, MatchStatus

# One task plays consecutive bot moves for this long, then hands on to a fresh task, so a
# table of computer players never holds a worker (or, in-process, the stack) for long.
TASK_BUDGET_SECONDS = 5.0
_rng = random.SystemRandom()


@shared_task(acks_late=True, max_retries=3, default_retry_delay=1)
def play_bot_turns(match_id: str, version: int) -> int:
    """Play the computer players' moves from ``version`` on; returns how many were played.

    A task for an older version, or one whose move someone else already made, does nothing:
    every move is submitted with ``expected_version``, so a duplicate or late task can never
    move twice.
    """
    deadline = time.monotonic() + TASK_BUDGET_SECONDS
    played = 0
    while True:
        match = Match.objects.filter(pk=match_id).first()
        if match is None or match.status != MatchStatus.ACTIVE or match.version != version:
            return played
        seat = selectors.bot_to_act(match)
        if seat is None:
            return played
        if time.monotonic() > deadline:
            play_bot_turns.delay(match_id, version)
            return played
        level = match.seats.get(index=seat).bot_level
        observation = selectors.replay_deal(match, selectors.current_deal(match)).observation(seat)
        action = choose_action(observation, level, _rng)
        try:
            services.submit_action(
                match_id=uuid.UUID(match_id), seat=seat, action=action, expected_version=version
            )
        except (StaleVersion, MatchNotActive):
            return played
        version += 1
        played += 1
