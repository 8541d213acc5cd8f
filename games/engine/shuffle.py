"""Shuffling: a uniformly random order of the 52 cards.

Production draws from `secrets` (the operating system's CSPRNG). Tests and benchmarks may pass a
`random.Random` to make a deal reproducible; nothing in the service does.
"""

from __future__ import annotations

import hashlib
import math
import random
import secrets
from collections.abc import Sequence

DECK_ORDERS = math.factorial(52)


def shuffled_deck(rng: random.Random | None = None) -> list[int]:
    """A permutation of card indices 0..51, every order equally likely.

    One draw below 52! is decoded as a Lehmer code: one call into the CSPRNG per deck instead of
    one per card, and no modulo bias.
    """
    code = secrets.randbelow(DECK_ORDERS) if rng is None else rng.randrange(DECK_ORDERS)
    remaining = list(range(52))
    deck = []
    for size in range(52, 0, -1):
        code, position = divmod(code, size)
        deck.append(remaining.pop(position))
    return deck


def secure_choice(count: int, rng: random.Random | None = None) -> int:
    """A uniform integer below ``count`` (e.g. the first dealer), from `secrets` unless seeded."""
    return secrets.randbelow(count) if rng is None else rng.randrange(count)


def hands_from_deck(deck: list[int], dealer: int, next_seat: tuple[int, ...]) -> list[int]:
    """Deal one card at a time, starting with the seat after the dealer: 13 cards each."""
    hands = [0, 0, 0, 0]
    seat = dealer
    for card in deck:
        seat = next_seat[seat]
        hands[seat] |= 1 << card
    return hands


def deck_from_hands(hands: Sequence[int], dealer: int, next_seat: tuple[int, ...]) -> list[int]:
    """A deck order that `hands_from_deck` deals into ``hands`` (masks) from ``dealer``: the
    order cards were dealt in when the hands were chosen rather than shuffled (an imported
    deal), so that its commitment can be made and checked like any other. Each seat's cards go
    lowest index first."""
    remaining = list(hands)
    deck = []
    seat = dealer
    for _ in range(52):
        seat = next_seat[seat]
        lowest = remaining[seat] & -remaining[seat]
        remaining[seat] ^= lowest
        deck.append(lowest.bit_length() - 1)
    return deck


def new_salt() -> str:
    """32 hex digits from `secrets`: makes a deal's commitment impossible to brute-force."""
    return secrets.token_hex(16)


def deck_commitment(deck_text: str, salt: str) -> str:
    """SHA-256 (hex) of ``"<deck order as card strings joined by spaces>:<salt>"``.

    Shown when a deal starts; the deck order and salt are revealed when it ends, so anyone can
    recompute this and see that the cards were fixed before the first call.
    """
    return hashlib.sha256(f"{deck_text}:{salt}".encode("ascii")).hexdigest()
