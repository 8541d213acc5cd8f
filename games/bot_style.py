"""How a computer player leans within its level: the one piece of the computer players'
vocabulary that a match's seats (a story character, `Seat.character`) and the bots share.

It lives here, below both `bots` and `tour`, so that the tour's characters can be described
without importing the bots. Plain data without Django: `bots.players` imports it in processes
that never set Django up (the arena, `bots.compile`).
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Style:
    """How a player leans, within its level: characters of the story mode differ by these.

    ``boldness`` adds tricks to the player's own estimate when bidding (negative is timid);
    ``margin`` is the safety the estimate must exceed a bid by.
    """

    boldness: float = 0.0
    margin: float = 0.5
