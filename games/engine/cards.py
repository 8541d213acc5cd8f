"""Cards, suits and ranks as small value types, and 52-bit hand masks.

A card is an index 0..51 (``suit * 13 + rank``, rank 0 = two, 12 = ace); a set of cards is an int
whose bit ``i`` is card ``i``. Masks keep the hot paths (legal cards, trick winner) to a few integer
operations; `Card`, `Suit` and `Rank` are the readable faces the rest of the service uses.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

CARD_FORMAT = "expected rank then suit, e.g. AS, TH, 10h"
SUIT_BITS = 0x1FFF  # 13 bits: one suit's ranks
FULL_DECK = (1 << 52) - 1


class CardParseError(ValueError):
    """A string is not a card, suit or rank in the wire notation."""


class Suit(enum.IntEnum):
    SPADES = 0
    HEARTS = 1
    DIAMONDS = 2
    CLUBS = 3

    @property
    def letter(self) -> str:
        return "SHDC"[self]

    @property
    def symbol(self) -> str:
        return "♠♥♦♣"[self]

    @property
    def mask(self) -> int:
        return SUIT_MASKS[self]

    @classmethod
    def parse(cls, text: str) -> Suit:
        letter = text.strip().upper()
        if len(letter) != 1 or letter not in "SHDC":
            raise CardParseError(f"not a suit: {text!r} (expected one of S, H, D, C)")
        return cls("SHDC".index(letter))

    def __str__(self) -> str:
        return self.letter


class Rank(enum.IntEnum):
    TWO = 0
    THREE = 1
    FOUR = 2
    FIVE = 3
    SIX = 4
    SEVEN = 5
    EIGHT = 6
    NINE = 7
    TEN = 8
    JACK = 9
    QUEEN = 10
    KING = 11
    ACE = 12

    @property
    def letter(self) -> str:
        return RANK_LETTERS[self]

    @classmethod
    def parse(cls, text: str) -> Rank:
        letter = text.strip().upper()
        if letter == "10":
            letter = "T"
        if len(letter) != 1 or letter not in RANK_LETTERS:
            raise CardParseError(f"not a rank: {text!r} (expected one of A K Q J T 9 … 2)")
        return cls(RANK_LETTERS.index(letter))

    def __str__(self) -> str:
        return self.letter


RANK_LETTERS = "23456789TJQKA"
SUIT_MASKS: tuple[int, ...] = tuple(SUIT_BITS << (13 * suit) for suit in range(4))


class Card:
    """One of the 52 cards; there is exactly one instance per card, so ``is`` and ``==`` agree."""

    __slots__ = ("index", "rank", "suit")
    index: int
    suit: Suit
    rank: Rank

    def __new__(cls, index: int) -> Card:
        return ALL_CARDS[index]

    @classmethod
    def _make(cls, index: int) -> Card:
        card = object.__new__(cls)
        object.__setattr__(card, "index", index)
        object.__setattr__(card, "suit", Suit(index // 13))
        object.__setattr__(card, "rank", Rank(index % 13))
        return card

    @classmethod
    def of(cls, rank: Rank, suit: Suit) -> Card:
        return ALL_CARDS[suit * 13 + rank]

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``AS``, ``th``, ``10H`` (any case, ``10`` or ``T`` for the ten)."""
        if not isinstance(text, str):
            raise CardParseError(f"not a card: {text!r}")
        stripped = text.strip()
        if len(stripped) < 2:
            raise CardParseError(f"not a card: {text!r} ({CARD_FORMAT})")
        try:
            return cls.of(Rank.parse(stripped[:-1]), Suit.parse(stripped[-1]))
        except CardParseError:
            raise CardParseError(f"not a card: {text!r} ({CARD_FORMAT})") from None

    @property
    def bit(self) -> int:
        return 1 << self.index

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    def __reduce__(self) -> tuple[type[Card], tuple[int]]:
        return (Card, (self.index,))

    def __str__(self) -> str:
        return RANK_LETTERS[self.rank] + "SHDC"[self.suit]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __hash__(self) -> int:
        return self.index


ALL_CARDS: tuple[Card, ...] = tuple(Card._make(index) for index in range(52))

# For each 13-bit suit pattern, the card indices it holds (lowest first); turning a mask into
# cards is then one lookup per suit instead of 52 bit tests.
_INDICES_BY_PATTERN: tuple[tuple[int, ...], ...] = tuple(
    tuple(rank for rank in range(13) if pattern >> rank & 1) for pattern in range(1 << 13)
)
SUIT_INDICES: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(13 * suit + rank for rank in ranks) for ranks in _INDICES_BY_PATTERN)
    for suit in range(4)
)


def indices_of(mask: int) -> tuple[int, ...]:
    """Card indices in ``mask``: suits S H D C, low to high within a suit."""
    return (
        SUIT_INDICES[0][mask & SUIT_BITS]
        + SUIT_INDICES[1][mask >> 13 & SUIT_BITS]
        + SUIT_INDICES[2][mask >> 26 & SUIT_BITS]
        + SUIT_INDICES[3][mask >> 39 & SUIT_BITS]
    )


_DISPLAY_INDICES: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(indices[::-1] for indices in suit_table) for suit_table in SUIT_INDICES
)


def cards_of(mask: int) -> list[Card]:
    """The cards of ``mask`` in display order: suits S H D C, high rank first."""
    order = (
        _DISPLAY_INDICES[0][mask & SUIT_BITS]
        + _DISPLAY_INDICES[1][mask >> 13 & SUIT_BITS]
        + _DISPLAY_INDICES[2][mask >> 26 & SUIT_BITS]
        + _DISPLAY_INDICES[3][mask >> 39 & SUIT_BITS]
    )
    return [ALL_CARDS[index] for index in order]


def mask_of(cards: Iterable[Card]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card.index
    return mask


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse ``"AS KH 10d"`` or an iterable of card strings."""
    parts = text.split() if isinstance(text, str) else list(text)
    return [Card.parse(part) for part in parts]


def format_cards(cards: Iterable[Card]) -> str:
    return " ".join(str(card) for card in cards)
