"""A COMPUTER_PLAYERS module whose computer players never take their turn by themselves: tests
play those turns one at a time through `computer_moves.play_bot_turns`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from bots.interface import bid_estimate, choose


def send_turns(match_id: str, version: int, seat_levels: Sequence[str] | None = None) -> None:
    """Nothing is sent."""


def send_timeout(match_id: str, version: int, at: datetime) -> None:
    """Nothing is sent."""


__all__ = ["bid_estimate", "choose", "send_timeout", "send_turns"]
