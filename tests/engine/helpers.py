"""Building deals with chosen hands for rule tests."""

from __future__ import annotations

from typing import Any

from games.engine import (
    Bid,
    Card,
    ChooseTrump,
    Deal,
    DealStart,
    Pass,
    Play,
    Suit,
    TableRules,
    parse_cards,
)


def fill_hands(partial: dict[int, str], voids: dict[int, str] | None = None) -> list[list[Card]]:
    """Four 13-card hands: the given cards, then the rest of the deck dealt to seats with room,
    never into a suit listed as that seat's void."""
    hands = {seat: parse_cards(partial.get(seat, "")) for seat in range(4)}
    used = {card for hand in hands.values() for card in hand}
    assert len(used) == sum(len(hand) for hand in hands.values()), "a card is given twice"
    voids = voids or {}
    def void_count(card: Card) -> int:
        return sum(card.suit.letter in suits for suits in voids.values())

    # Suits some seats are void in go first, while the other seats still have room.
    for card in sorted((Card(i) for i in range(52)), key=void_count, reverse=True):
        if card in used:
            continue
        for seat in sorted(range(4), key=lambda s: len(hands[s])):
            if len(hands[seat]) < 13 and card.suit.letter not in voids.get(seat, ""):
                hands[seat].append(card)
                break
        else:
            raise AssertionError(f"no seat can take {card}")
    return [hands[seat] for seat in range(4)]


def make_deal(
    partial: dict[int, str],
    *,
    voids: dict[int, str] | None = None,
    dealer: int = 0,
    game: str = "auction",
    **rules: Any,
) -> Deal:
    table = TableRules.create(game, **rules)
    return Deal(DealStart.from_cards(table, dealer, fill_hands(partial, voids)))


def to_play(deal: Deal, declarer: int, trump: str, bid: int | None = None) -> Deal:
    """Run the auction so that ``declarer`` wins at ``bid`` (default: the minimum), then name
    trumps."""
    bid = bid or deal.rules.min_bid
    while deal.declarer is None:
        seat = deal.to_act
        assert seat is not None
        deal.apply(seat, Bid(bid) if seat == declarer else Pass())
    deal.apply(declarer, ChooseTrump(Suit.parse(trump)))
    return deal


def play(deal: Deal, *cards: str) -> Deal:
    """Play ``cards`` in turn, each by the seat that must act."""
    for text in cards:
        seat = deal.to_act
        assert seat is not None
        deal.apply(seat, Play(Card.parse(text)))
    return deal


def legal(deal: Deal) -> set[str]:
    return {str(card) for card in deal.legal_cards()}
