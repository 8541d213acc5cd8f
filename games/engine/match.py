"""A match: an agreed number of deals, the dealer passing on, totals and the final ranking."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from .actions import Action
from .deal import Deal, DealStart
from .play import next_seat_table
from .public import Phase
from .rules import TableRules
from .scoring import ranking
from .shuffle import secure_choice

MAX_DEALS = 52


def following_deal(
    rules: TableRules, dealer: int, number: int, thrown_in: bool
) -> tuple[int, int]:
    """(dealer, number) of the deal after one that ended: a thrown-in deal is dealt again by the
    same dealer under the same number; otherwise the next seat deals the next number."""
    if thrown_in:
        return (dealer, number)
    return (next_seat_table(rules.direction == "clockwise")[dealer], number + 1)


class Match:
    """Deals in order; a thrown-in deal is dealt again by the same dealer under the same number."""

    def __init__(
        self,
        rules: TableRules,
        deal_count: int,
        *,
        first_dealer: int | None = None,
        rng: random.Random | None = None,
        start: bool = True,
    ) -> None:
        if not 1 <= deal_count <= MAX_DEALS:
            raise ValueError(f"a match has 1 to {MAX_DEALS} deals")
        if first_dealer is not None and first_dealer not in range(4):
            raise ValueError("the first dealer is a seat 0..3")
        self.rules = rules
        self.deal_count = deal_count
        self.first_dealer = secure_choice(4, rng) if first_dealer is None else first_dealer
        self._rng = rng
        self.deals: list[Deal] = []  # every deal dealt, thrown-in ones included
        if start:
            self.deals.append(Deal.new(rules, self.first_dealer, 1, rng))

    @classmethod
    def replay(
        cls,
        rules: TableRules,
        deal_count: int,
        first_dealer: int,
        deals: Iterable[tuple[DealStart, Sequence[tuple[int, Action]]]],
    ) -> Match:
        """Rebuild a match from each deal's start and action log, checking the dealer order."""
        match = cls(rules, deal_count, first_dealer=first_dealer, start=False)
        for start, log in deals:
            expected = match.next_deal_parameters()
            if expected is None or (start.dealer, start.number) != expected:
                raise ValueError(f"deal {start.number} does not follow the match's dealer order")
            match.deals.append(Deal.replay(start, log))
        return match

    @property
    def current(self) -> Deal:
        return self.deals[-1]

    @property
    def finished_deals(self) -> list[Deal]:
        return [deal for deal in self.deals if deal.phase == Phase.FINISHED]

    @property
    def is_over(self) -> bool:
        return len(self.finished_deals) == self.deal_count

    def next_deal_parameters(self) -> tuple[int, int] | None:
        """(dealer, number) of the deal to deal next, or None when the match is over."""
        if not self.deals:
            return (self.first_dealer, 1)
        last = self.deals[-1]
        if not last.is_over or self.is_over:
            return None
        return following_deal(
            self.rules, last.dealer, last.number, thrown_in=last.phase == Phase.REDEALT
        )

    def apply(self, seat: int, action: Action) -> None:
        """Apply to the current deal, dealing the next one when it ends."""
        self.current.apply(seat, action)
        parameters = self.next_deal_parameters()
        if parameters is not None:
            dealer, number = parameters
            self.deals.append(Deal.new(self.rules, dealer, number, self._rng))

    @property
    def totals(self) -> list[int]:
        totals = [0, 0, 0, 0]
        for deal in self.finished_deals:
            assert deal.score is not None
            for seat, points in enumerate(deal.score.points):
                totals[seat] += points
        return totals

    def ranking(self) -> tuple[int, int, int, int]:
        """Places after the deals so far (final once `is_over`)."""
        finished = self.finished_deals
        last_tricks = finished[-1].tricks_won if finished else [0, 0, 0, 0]
        return ranking(self.totals, last_tricks, partnership=self.rules.is_partnership)
