"""How many tricks a hand should take: a quick count for bidding, and a Monte Carlo estimate
(greedy play-outs over random layouts of the other cards) for the Hard player and for the
bid estimate people see."""

from __future__ import annotations

import random
import statistics
from collections.abc import Sequence

from games.engine import Game, Rank, Suit, TableRules
from games.engine.play import PlayState

from .solver import rollout

ACE, KING, QUEEN = Rank.ACE, Rank.KING, Rank.QUEEN


def _suit_terms(holding: int, trump_suit: bool) -> tuple[float, float, float]:
    """A suit's quick tricks from its honours and length, in the order they are added up."""
    length = holding.bit_count()
    ace, king, queen = (bool(holding >> rank & 1) for rank in (ACE, KING, QUEEN))
    if trump_suit:
        return (ace + (1.0 if ace else 0.6 if length >= 2 else 0.2) * king,
                (0.8 if ace and king else 0.4 if length >= 3 else 0.1) * queen,
                max(0, length - 3) * 0.95)
    return ((0.95 if length <= 6 else 0.7) * ace,
            ((0.8 if ace else 0.5) if length >= 2 else 0.15) * king,
            (0.4 if (ace or king) else 0.15) * queen * (length >= 3))


# Every 13-card suit holding's terms, as a side suit and as trumps: hands are valued tens of
# thousands of times a call (each sampled layout weighed by the auction).
_SIDE_TERMS = [_suit_terms(holding, False) for holding in range(1 << 13)]
_TRUMP_TERMS = [_suit_terms(holding, True) for holding in range(1 << 13)]
_RUFF_VALUE = {0: 1.2, 1: 0.7, 2: 0.3}


def quick_tricks(hand: int, trump: int | None) -> float:
    """Sure and likely tricks of ``hand`` with ``trump`` (None: as a defender who does not know
    trumps yet): honours, trump length and, with three trumps or more, short side suits."""
    trump_length = (hand >> (13 * trump) & 0x1FFF).bit_count() if trump is not None else 0
    total = 0.0
    for suit in range(4):
        holding = hand >> (13 * suit) & 0x1FFF
        first, second, third = (_TRUMP_TERMS if suit == trump else _SIDE_TERMS)[holding]
        total += first
        total += second
        total += third
        if trump_length >= 3 and suit != trump:
            total += min(_RUFF_VALUE.get(holding.bit_count(), 0.0), (trump_length - 2) * 0.6)
    return total


def best_trump(hand: int) -> tuple[int, float]:
    """(suit, quick tricks) of the suit this hand would name as trumps."""
    return max(((suit, quick_tricks(hand, suit)) for suit in range(4)), key=lambda x: x[1])


def sample_others(hand: int, rng: random.Random, seat: int) -> list[int]:
    """The other 39 cards dealt at random to the other three seats (13 each)."""
    rest = [index for index in range(52) if not hand >> index & 1]
    rng.shuffle(rest)
    hands = [0, 0, 0, 0]
    hands[seat] = hand
    others = [s for s in range(4) if s != seat]
    for position, card in enumerate(rest):
        hands[others[position // 13]] |= 1 << card
    return hands


def simulated_tricks(
    hand: int,
    seat: int,
    rules: TableRules,
    *,
    leader: int,
    worlds: int,
    rng: random.Random,
    trumps: Sequence[int] = (0, 1, 2, 3),
) -> dict[int, list[int]]:
    """For each trump suit, the tricks ``seat`` (its team, in the partnership game) takes in
    greedy play-outs of ``worlds`` random layouts, ``leader`` leading the first trick."""
    partnership = rules.game == Game.PARTNERSHIP
    results: dict[int, list[int]] = {trump: [] for trump in trumps}
    for _ in range(worlds):
        hands = sample_others(hand, rng, seat)
        for trump in trumps:
            tricks = rollout(PlayState(hands, trump, leader, rules), partnership)
            own = tricks[seat] + (tricks[(seat + 2) % 4] if partnership else 0)
            results[trump].append(own)
    return results


def bid_estimate(hand: int, rules: TableRules, seat: int, leader: int) -> dict[str, float]:
    """Expected tricks of ``hand`` (its team's, in the partnership game) for each trump it could
    name (spades only in Koz Maça), ``leader`` leading the first trick, as shown to people.
    Seeded by the hand, so the same hand always shows the same figures."""
    rng = random.Random(hand * 4 + list(Game).index(rules.game))
    trumps = (int(Suit.SPADES),) if rules.game == Game.SPADES else (0, 1, 2, 3)
    simulated = simulated_tricks(hand, seat, rules, leader=leader, worlds=48, rng=rng,
                                 trumps=trumps)
    return {Suit(trump).letter: round(statistics.fmean(tricks), 1)
            for trump, tricks in simulated.items()}
