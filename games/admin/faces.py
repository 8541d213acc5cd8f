"""How a referee reads a card, a suit, a seat and an outcome on the review pages."""

from __future__ import annotations

import dataclasses
from typing import Any

from games import engine
from games.models import Match

RED_SUITS = frozenset({engine.Suit.HEARTS, engine.Suit.DIAMONDS})


OUTCOME_LABELS = {
    engine.Outcome.MADE: "made",
    engine.Outcome.DOWN: "down",
    engine.Outcome.SCORED: "",
    engine.Outcome.BATAK: "batak",
}


@dataclasses.dataclass(frozen=True)
class CardFace:
    """A card as a person reads it (``10♥``); the page keeps its wire code (``TH``) beside it."""

    code: str
    rank: str
    label: str
    red: bool
    trick: int | None = None  # the trick (from 1) the card was played in, if it was


def card_face(card: engine.Card, trick: int | None = None) -> CardFace:
    rank = "10" if card.rank == engine.Rank.TEN else card.rank.letter
    return CardFace(str(card), rank, rank + card.suit.symbol, card.suit in RED_SUITS, trick)


def seat_names(match: Match) -> list[str]:
    names = {seat.index: seat.display_name for seat in match.seats.all()}
    return [names.get(index) or f"Seat {index}" for index in range(4)]


def suit_face(letter: str) -> dict[str, Any] | None:
    if not letter:
        return None
    try:
        suit = engine.Suit.parse(letter)
    except engine.CardParseError:  # a broken stored record is shown as it is
        return {"symbol": letter, "red": False}
    return {"symbol": suit.symbol, "red": suit in RED_SUITS}
