"""Dealing the unseen cards to the hidden seats uniformly among the layouts that respect every
inference: exact sampling by counting, so no layout is favoured (greedy placement would be)."""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Sequence

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
        self._memo: dict[tuple[int, tuple[int, ...]],
                         tuple[list[tuple[int, ...]], list[int]]] = {}
        self.consistent = self._count(0, tuple(knowledge.sizes)) > 0
        if not self.consistent:
            # Cannot happen when the inferences are right; never leave a bot without a world.
            everyone = tuple(range(seats))
            self.groups = [(everyone, list(indices_of(knowledge.unseen)))]
            self._memo.clear()

    def _count(self, group: int, capacities: tuple[int, ...]) -> int:
        if group == len(self.groups):
            return 0 if any(capacities) else 1
        _, cumulative = self._options(group, capacities)
        return cumulative[-1] if cumulative else 0

    def sample(self, rng: random.Random) -> list[int]:
        """Hands (masks) for all four seats: known ones as seen, hidden ones sampled."""
        hands = [0, 0, 0, 0]
        for seat, mask in self.knowledge.known.items():
            hands[seat] = mask
        capacities = tuple(self.knowledge.sizes)
        for group, (_, cards) in enumerate(self.groups):
            splits, cumulative = self._options(group, capacities)
            # Weights are exact big integers; draw an integer below their sum to stay exact.
            split = splits[bisect.bisect_right(cumulative, rng.randrange(cumulative[-1]))]
            shuffled = list(cards)
            rng.shuffle(shuffled)
            start = 0
            for position, amount in enumerate(split):
                for card in shuffled[start:start + amount]:
                    hands[self.knowledge.hidden[position]] |= 1 << card
                start += amount
            capacities = tuple(c - s for c, s in zip(capacities, split, strict=True))
        return hands

    def _options(self, group: int, capacities: tuple[int, ...]
                 ) -> tuple[list[tuple[int, ...]], list[int]]:
        """The ways to deal ``group`` with ``capacities`` left that can be completed, and their
        running counts of completed layouts."""
        key = (group, capacities)
        if key not in self._memo:
            allowed, cards = self.groups[group]
            splits, cumulative, total = [], [], 0
            for split in _splits(len(cards), allowed, capacities):
                rest = tuple(c - s for c, s in zip(capacities, split, strict=True))
                weight = _multinomial(len(cards), split) * self._count(group + 1, rest)
                if weight:
                    total += weight
                    splits.append(split)
                    cumulative.append(total)
            self._memo[key] = splits, cumulative
        return self._memo[key]


def _splits(
    count: int, allowed: Sequence[int], capacities: Sequence[int]
) -> list[tuple[int, ...]]:
    """Ways to deal ``count`` cards to the ``allowed`` seats within their capacities."""
    if not allowed:
        return [tuple(0 for _ in capacities)] if count == 0 else []
    first, rest = allowed[0], allowed[1:]
    if not rest:
        if count > capacities[first]:
            return []
        return [tuple(count if s == first else 0 for s in range(len(capacities)))]
    splits = []
    for amount in range(min(count, capacities[first]) + 1):
        for split in _splits(count - amount, rest, capacities):
            splits.append(tuple(amount if s == first else part for s, part in enumerate(split)))
    return splits


def _multinomial(count: int, split: Sequence[int]) -> int:
    result = math.factorial(count)
    for part in split:
        result //= math.factorial(part)
    return result
