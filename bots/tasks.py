"""Celery tasks: computer players take their turns through the service layer."""

from __future__ import annotations

import random
import time
import uuid

from celery import shared_task
from django.db import InterfaceError, OperationalError

from bots.players import choose_action
from games import computer_moves, engine, sweeper
from games.computer_players import computer_players
from games.log_context import log_context
from games.models import Seat
from tour.content import style_for

# One task plays consecutive bot moves for this long, then hands on to a fresh task, so a
# table of computer players never holds a worker (or, in-process, its lane) for long.
TASK_BUDGET_SECONDS = 5.0
_rng = random.SystemRandom()


def choose(observation: engine.Observation, seat: Seat) -> engine.Action:
    """The computer player's move at ``seat``: its own level at a computer seat, the stand-in
    level at a person's seat (a timeout, autopilot, a person who left). A story-mode character
    plays its own style; other computer seats their level's default."""
    level = seat.bot_level or computer_moves.STAND_IN_LEVEL
    return choose_action(observation, level, _rng, style_for(seat.character))


@shared_task(
    # Redelivered when its worker dies mid-move (acks_late + reject_on_worker_lost): safe, since
    # every move is checked against the version the task was sent for.
    acks_late=True,
    # A database that drops out for a moment (restart, failover) is retried a few times; after
    # that the sweeper sends the turn again.
    autoretry_for=(OperationalError, InterfaceError),
    max_retries=3,
    retry_backoff=1,
    retry_backoff_max=8,
    # Well above TASK_BUDGET_SECONDS plus one slow move; a stuck task is stopped, its open
    # transaction rolls back and the sweeper sends the turn again.
    soft_time_limit=20,
    time_limit=30,
)
def play_bot_turns(match_id: str, version: int) -> int:
    """Play the computer players' moves from ``version`` on; returns how many were played.

    A task for an older version, or one whose move someone else already made, does nothing:
    every move is made for the version the task holds, so a duplicate or late task can never
    move twice.
    """
    deadline = time.monotonic() + TASK_BUDGET_SECONDS
    played = 0
    with log_context(match_id=match_id):
        while time.monotonic() <= deadline:
            new_version = computer_moves.play_bot_turn(
                match_id=uuid.UUID(match_id), version=version, choose=choose
            )
            if new_version is None:
                return played
            version = new_version
            played += 1
    computer_players().send_turns(match_id, version)
    return played


@shared_task
def sweep_bot_turns() -> int:
    """Send stuck computer-player turns to a worker again (run by beat); returns how many."""
    return sweeper.resend_stuck_bot_turns()


@shared_task(acks_late=True, autoretry_for=(OperationalError, InterfaceError), max_retries=3,
             retry_backoff=1)
def time_out_turn(match_id: str, version: int) -> bool:
    """The stand-in's move for a turn whose clock has just run out (sent for its deadline by
    `run_clocks`); a no-op once the turn was played or timed out."""
    return sweeper.time_out(match_id, version, choose)


@shared_task
def run_clocks() -> int:
    """Make the moves of people whose turn clock ran out and fill quick-match tables whose wait
    is over (run by beat every CLOCK_SWEEP_INTERVAL_SECONDS); returns how many."""
    return sweeper.run_clocks()
