"""What a match asks of its computer players, as `games.computer_players.ComputerPlayers`
(named by the COMPUTER_PLAYERS setting): `games` reaches the bots only through this module."""

from __future__ import annotations

from bots import tasks
from bots.evaluation import bid_estimate


def send_turns(match_id: str, version: int) -> None:
    tasks.play_bot_turns.delay(match_id, version)


__all__ = ["bid_estimate", "send_turns"]
