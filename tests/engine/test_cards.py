import pickle

import pytest

from games.engine import Card, CardParseError, Rank, Suit, cards_of, mask_of, parse_cards
from games.engine.cards import ALL_CARDS, format_cards


class TestCard:
    def test_canonical_round_trip_for_every_card(self) -> None:
        for card in ALL_CARDS:
            assert Card.parse(str(card)) is card

    @pytest.mark.parametrize(
        ("text", "canonical"),
        [("AS", "AS"), ("th", "TH"), ("10h", "TH"), ("10H", "TH"), (" 2c ", "2C"), ("qD", "QD")],
    )
    def test_accepts_lowercase_and_ten(self, text: str, canonical: str) -> None:
        assert str(Card.parse(text)) == canonical

    @pytest.mark.parametrize("text", ["", "A", "1S", "AX", "11H", "ASS", "S A", "JOKER"])
    def test_rejects_non_cards(self, text: str) -> None:
        with pytest.raises(CardParseError):
            Card.parse(text)

    def test_rank_order_ace_high(self) -> None:
        order = [card.rank for card in parse_cards("AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S")]
        assert order == sorted(order, reverse=True)
        assert Rank.ACE > Rank.KING > Rank.TEN > Rank.TWO

    def test_value_type_behaviour(self) -> None:
        card = Card.of(Rank.QUEEN, Suit.HEARTS)
        assert card == Card.parse("QH") and hash(card) == hash(Card.parse("qh"))
        assert pickle.loads(pickle.dumps(card)) is card
        with pytest.raises(AttributeError):
            card.index = 3  # type: ignore[misc]
        assert card.suit.symbol == "♥" and repr(card) == "Card.parse('QH')"


class TestMasks:
    def test_mask_round_trip_and_display_order(self) -> None:
        cards = parse_cards("2C AS TH KS 3D")
        assert format_cards(cards_of(mask_of(cards))) == "AS KS TH 3D 2C"

    def test_suit_parse(self) -> None:
        assert Suit.parse("h") is Suit.HEARTS
        with pytest.raises(CardParseError):
            Suit.parse("X")
