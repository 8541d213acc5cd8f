"""A seat's view of a deal: exactly what that seat may see, and never another hidden hand.

Both the API and the computer players are built on this one type, so a bot can only ever know
what a person in its seat would know.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .actions import Action
from .cards import Card, Suit
from .errors import Reason
from .public import Phase, Trick
from .rules import TableRules
from .scoring import DealScore


@dataclasses.dataclass(frozen=True, slots=True)
class Observation:
    seat: int
    rules: TableRules
    number: int
    dealer: int
    phase: Phase
    turn: int | None  # the seat whose card or call is next
    to_act: int | None  # the seat that must submit it (the declarer plays for a dummy)
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, int, int, int]
    dummy: int | None
    dummy_hand: tuple[Card, ...] | None
    auction: tuple[tuple[int, int | None], ...]
    high_bid: int | None
    declarer: int | None
    bid: int | None
    trump: Suit | None
    announcements: tuple[int | None, ...]
    trump_broken: bool
    tricks: tuple[Trick, ...]  # completed tricks, in order
    current_trick: Trick | None
    tricks_won: tuple[int, int, int, int]
    legal_actions: tuple[Action, ...]
    refusals: tuple[tuple[Card, Reason], ...]  # for each unplayable card in hand, why
    redeal_requested_by: int | None
    score: DealScore | None

    @property
    def last_trick(self) -> Trick | None:
        return self.tricks[-1] if self.tricks else None

    @property
    def visible_cards(self) -> frozenset[Card]:
        """Every card this view shows in a hand (not counting cards already played)."""
        return frozenset(self.hand) | frozenset(self.dummy_hand or ())

    def to_dict(self) -> dict[str, Any]:
        def trick(value: Trick | None) -> dict[str, Any] | None:
            return None if value is None else value.to_dict()

        return {
            "seat": self.seat,
            "number": self.number,
            "dealer": self.dealer,
            "phase": self.phase.value,
            "turn": self.turn,
            "to_act": self.to_act,
            "hand": [str(card) for card in self.hand],
            "hand_sizes": list(self.hand_sizes),
            "dummy": self.dummy,
            "dummy_hand": None if self.dummy_hand is None else [str(c) for c in self.dummy_hand],
            "auction": [{"seat": seat, "bid": bid} for seat, bid in self.auction],
            "high_bid": self.high_bid,
            "declarer": self.declarer,
            "bid": self.bid,
            "trump": None if self.trump is None else self.trump.letter,
            "announcements": list(self.announcements),
            "trump_broken": self.trump_broken,
            "tricks": [trick(t) for t in self.tricks],
            "current_trick": trick(self.current_trick),
            "last_trick": trick(self.last_trick),
            "tricks_won": list(self.tricks_won),
            "legal_actions": [str(action) for action in self.legal_actions],
            "refusals": [
                {"card": str(card), "reason": reason.value} for card, reason in self.refusals
            ],
            "redeal_requested_by": self.redeal_requested_by,
            "score": None
            if self.score is None
            else {
                "points": list(self.score.points),
                "outcomes": [outcome.value for outcome in self.score.outcomes],
            },
        }
