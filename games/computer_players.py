"""The one seam through which `games` uses the computer players.

`games` never imports `bots` (the dependency runs one way, bots → games): the module that plays
the computer seats is named by the COMPUTER_PLAYERS setting (bots/interface.py) and looked up
when it is first needed. It provides what a match asks of its computer players: to take their
turns, and the hand estimate a person may ask for before bidding.
"""

from __future__ import annotations

from importlib import import_module
from typing import Protocol, cast

from django.conf import settings

from games import engine


class ComputerPlayers(Protocol):
    def send_turns(self, match_id: str, version: int) -> None:
        """Have the computer players' turns of ``match_id`` from ``version`` on played (by a
        worker, or in-process with the embedded default)."""

    def bid_estimate(
        self, hand: int, rules: engine.TableRules, seat: int, leader: int
    ) -> dict[str, float]:
        """Expected tricks of ``hand`` (a card mask) for each trump choice."""


def computer_players() -> ComputerPlayers:
    return cast(ComputerPlayers, import_module(settings.COMPUTER_PLAYERS))
