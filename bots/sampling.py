"""Dealing the unseen cards to the hidden seats uniformly among the layouts that respect every
inference: exact sampling by counting, so no layout is favoured (greedy placement would be)."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from itertools import product

from games.engine.cards import indices_of

from .knowledge import Knowledge


class WorldSampler:
    """Samples hands for the hidden seats of a `Knowledge`.

    Cards are grouped by the set of hidden seats allowed to hold them (at most 7 groups for 3
    seats); `_count` is the number of layouts completing the groups from ``group`` on with
    ``capacities`` cards still to deal per seat, so each group's split can be drawn with its
    exact probability.
    """

    def __init__(self, knowledge: Knowledge) -> None:
        self.knowledge = knowledge
        seats = len(knowledge.hidden)
        groups: dict[tuple[int, ...], list[int]] = {}
        for card in indices_of(knowledge.unseen):
            allowed = tuple(
                position for position in range(seats)
                if not knowledge.forbidden[position] >> card & 1
            )
            groups.setdefault(allowed, []).append(card)
        self.groups = list(groups.items())
        self._memo: dict[tuple[int, tuple[int, ...]], int] = {}
        self.consistent = self._count(0, tuple(knowledge.sizes)) > 0
        if not self.consistent:
            # Cannot happen when the inferences are right; never leave a bot without a world.
            everyone = tuple(range(seats))
            self.groups = [(everyone, list(indices_of(knowledge.unseen)))]
            self._memo.clear()

    def _count(self, group: int, capacities: tuple[int, ...]) -> int:
        key = (group, capacities)
        if key in self._memo:
            return self._memo[key]
        if group == len(self.groups):
            total = 1 if not any(capacities) else 0
        else:
            allowed, cards = self.groups[group]
            total = 0
            for split in _splits(len(cards), allowed, capacities):
                rest = tuple(c - s for c, s in zip(capacities, split, strict=True))
                total += _multinomial(len(cards), split) * self._count(group + 1, rest)
        self._memo[key] = total
        return total

    def sample(self, rng: random.Random) -> list[int]:
        """Hands (masks) for all four seats: known ones as seen, hidden ones sampled."""
        hands = [0, 0, 0, 0]
        for seat, cards in self.knowledge.known.items():
            hands[seat] = cards
        capacities = tuple(self.knowledge.sizes)
        for group, (allowed, cards) in enumerate(self.groups):
            splits = list(_splits(len(cards), allowed, capacities))
            weights = [
                _multinomial(len(cards), split)
                * self._count(group + 1, tuple(c - s for c, s in zip(capacities, split,
                                                                         strict=True)))
                for split in splits
            ]
            split = _weighted_choice(splits, weights, rng)
            shuffled = list(cards)
            rng.shuffle(shuffled)
            start = 0
            for position, amount in enumerate(split):
                for card in shuffled[start:start + amount]:
                    hands[self.knowledge.hidden[position]] |= 1 << card
                start += amount
            capacities = tuple(c - s for c, s in zip(capacities, split, strict=True))
        return hands


def _splits(
    count: int, allowed: Sequence[int], capacities: Sequence[int]
) -> list[tuple[int, ...]]:
    """Ways to deal ``count`` cards to the ``allowed`` seats within their capacities."""
    seats = len(capacities)
    ranges = [range(min(count, capacities[s]) + 1) if s in allowed else range(1)
              for s in range(seats)]
    return [split for split in product(*ranges) if sum(split) == count]


def _multinomial(count: int, split: Sequence[int]) -> int:
    result = math.factorial(count)
    for part in split:
        result //= math.factorial(part)
    return result


def _weighted_choice(options: list[tuple[int, ...]], weights: list[int],
                     rng: random.Random) -> tuple[int, ...]:
    # Weights are exact big integers; draw an integer below their sum to stay exact.
    target = rng.randrange(sum(weights))
    for option, weight in zip(options, weights, strict=True):
        if target < weight:
            return option
        target -= weight
    raise AssertionError("unreachable")
