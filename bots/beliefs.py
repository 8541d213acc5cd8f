"""What the auction says about the hidden hands, as a weight on each sampled world.

Bids and passes are not hard constraints like the play inferences, but they are strong hints:
a seat that bid seven rarely holds a weak hand, one that passed rarely holds a strong one, and
a declarer names a suit it is long in. A world is weighted by how plausible these calls are
for the hands it deals (each seat's hand as it was at the auction: what it holds now in the
world plus what it has played since).
"""

from __future__ import annotations

import math

from games.engine import Game, Observation

from .evaluation import quick_tricks

SLOPE = 0.8  # tricks of surprise per e-fold of implausibility


def _plausible(margin: float) -> float:
    """Near 1 when ``margin`` (tricks in favour of the call) is positive, falling off below."""
    return 1.0 / (1.0 + math.exp(-margin / SLOPE))


def plays_so_far(observation: Observation) -> list[tuple[int, int]]:
    """Every card played in the deal so far, in order, as (seat, card index)."""
    tricks = list(observation.tricks)
    if observation.current_trick is not None:
        tricks.append(observation.current_trick)
    return [(seat, card.index) for trick in tricks for seat, card in trick.plays]


def played_by_seat(observation: Observation) -> list[int]:
    played = [0, 0, 0, 0]
    for seat, card in plays_so_far(observation):
        played[seat] |= 1 << card
    return played


def auction_weight(
    observation: Observation, world: list[int], hidden: tuple[int, ...], played: list[int]
) -> float:
    """Relative plausibility of ``world`` given every call of the auction."""
    rules = observation.rules
    if not rules.has_auction or not observation.auction:
        return 1.0
    support = 3.0 if rules.game == Game.PARTNERSHIP else 0.0
    weight = 1.0
    best: dict[int, float] = {}
    for seat in hidden:
        hand = world[seat] | played[seat]
        best[seat] = max(quick_tricks(hand, suit) for suit in range(4))
    high = 0
    for seat, bid in observation.auction:
        required = max(rules.min_bid, high + 1)
        if seat in best:
            if bid is None:
                weight *= _plausible(required - 0.5 - (best[seat] + support))
            else:
                weight *= _plausible(best[seat] + support + 1.0 - bid)
        if bid is not None:
            high = bid
    declarer, trump = observation.declarer, observation.trump
    if declarer in best and trump is not None:
        hand = world[declarer] | played[declarer]
        named = quick_tricks(hand, int(trump))
        weight *= _plausible(named - best[declarer] + 0.75)
    return weight
