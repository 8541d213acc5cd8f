"""What a match asks of its computer players, as `games.computer_players.ComputerPlayers`
(named by the COMPUTER_PLAYERS setting): `games` reaches the bots only through this module."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings

from bots import tasks
from bots.evaluation import bid_estimate
from bots.players import warm_up
from games import lanes
from games.models import Seat


def send_turns(match_id: str, version: int) -> None:
    """To a worker; on the embedded default (tasks in-process) in the request that made the
    move, which then waits for one round of computer turns at most, since a person's seat
    stops them. A table of computer players alone has no such seat: it plays on in the
    background (the computer players' lane), so that no request waits for a whole match; its
    task hands on every few seconds, so such tables take turns."""
    if settings.CELERY_TASK_ALWAYS_EAGER and not _has_person(match_id):
        lanes.run_soon("computer-players", "bots.tasks.play_bot_turns", match_id, version)
        return
    tasks.play_bot_turns.delay(match_id, version)


def _has_person(match_id: str) -> bool:
    return Seat.objects.filter(match_id=match_id, bot_level="").exists()


def send_timeout(match_id: str, version: int, at: datetime) -> None:
    tasks.time_out_turn.apply_async((match_id, version), eta=at)


choose = tasks.choose

__all__ = ["bid_estimate", "choose", "send_timeout", "send_turns", "warm_up"]
