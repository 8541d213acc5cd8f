"""The one seam through which `games` uses the computer players.

`games` never imports `bots` (the dependency runs one way, bots → games): the module that plays
the computer seats is named by the COMPUTER_PLAYERS setting (bots/interface.py) and looked up
when it is first needed. It provides what a match asks of its computer players: to take their
turns, the hand estimate a person may ask for before bidding, and the values behind a hint.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from importlib import import_module
from typing import Protocol, cast

from django.conf import settings

from games import engine
from games.models import Seat
from runtime import work


class ChoiceValue(Protocol):
    """One legal choice and what the seat expects from it (`bots.advice.ChoiceValue`)."""

    @property
    def action(self) -> engine.Action: ...

    @property
    def points(self) -> float: ...

    @property
    def tricks(self) -> float | None: ...


class ComputerPlayers(Protocol):
    def send_turns(self, match_id: str, version: int,
                   seat_levels: Sequence[str] | None = None) -> None:
        """Have the computer players' turns of ``match_id`` from ``version`` on played (by a
        worker, or in-process with the embedded default); ``seat_levels``, when the caller
        knows them, are the table's seats' `bot_level`s ("" for a person's)."""

    def choose(self, observation: engine.Observation, seat: Seat) -> engine.Action:
        """The move a computer player makes at ``seat``, now (a computer seat, or a person's
        seat whose clock ran out, on autopilot or left)."""

    def send_timeout(self, match_id: str, version: int, at: datetime) -> None:
        """Have the stand-in move for the turn at ``version`` once its clock runs out ``at``
        (`games.sweeper.time_out`), on a worker."""

    def send_analysis(self, deal_id: int) -> None:
        """Have the ended deal ``deal_id`` analysed (`services.record_deal_analysis` records
        it), by a worker of its own queue or, in-process, on a low-priority lane."""

    def bid_estimate(
        self, hand: int, rules: engine.TableRules, seat: int, leader: int
    ) -> dict[str, float]:
        """Expected tricks of ``hand`` (a card mask) for each trump choice."""

    def choice_values(self, observation: engine.Observation) -> Sequence[ChoiceValue]:
        """Every legal choice of the seat to act, valued from ``observation`` alone, best
        first (the same view always gets the same values)."""

    def warm_up(self) -> None:
        """Load (compiling it if need be) the computer players' compiled search now, so that
        no move waits for it."""


def computer_players() -> ComputerPlayers:
    return cast(ComputerPlayers, import_module(settings.COMPUTER_PLAYERS))


def warm_up_if_in_process() -> None:
    """On the embedded default the serving process plays the computer players itself: it
    loads their search at start, before its first request (scaled out, the workers do)."""
    work.when_in_process(computer_players().warm_up)
