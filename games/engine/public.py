"""What every seat sees of a deal alike: its phase and its tricks.

Both the deal's state machine (deal.py) and a seat's view of it (observation.py) are built from
these, so neither needs the other's module to describe them.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

from .cards import Card


class Phase(enum.StrEnum):
    AUCTION = "auction"
    TRUMP = "trump"  # the declarer names trumps
    ANNOUNCEMENTS = "announcements"  # Koz Maça with announcements
    PLAY = "play"
    FINISHED = "finished"  # 13 tricks played and scored
    REDEALT = "redealt"  # thrown in: all passed under `all_pass=redeal`, or a weak-hand request



@dataclasses.dataclass(frozen=True, slots=True)
class Trick:
    """A trick as everyone saw it: cards in play order with the seat that played each."""

    leader: int
    plays: tuple[tuple[int, Card], ...]
    winner: int | None = None  # None while the trick is being played

    def to_dict(self) -> dict[str, Any]:
        return {
            "leader": self.leader,
            "cards": [{"seat": seat, "card": str(card)} for seat, card in self.plays],
            "winner": self.winner,
        }
