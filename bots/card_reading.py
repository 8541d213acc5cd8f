"""Card reading: which of the layouts that respect the rules' inferences the plays so far make
likely.

The strict rules forbid some cards to some seats (`bots.knowledge`); how the others chose among
their legal cards says more. A seat that leads low from a suit while holding a master elsewhere,
or ducks a trick it could win cheaply, plays unlike the greedy player (`bots.policy`), and most
players, people included, mostly play the obvious card. A layout's plausibility falls by a
factor for each card played in it that the greedy player would not have played.

Exactly sampled layouts rarely explain every play (a few in a hundred, midway through a deal),
so each is refined by a short Metropolis walk: swap two hidden cards between two seats that may
hold them, keep the swap by the ratio of plausibilities. The swap is its own reverse, so the
walk keeps the uniform measure over consistent layouts, reweighted by plausibility.
"""

from __future__ import annotations

import random

import numpy as np
from numba import njit

from games.engine import Game, Observation
from games.engine.play import PlayState, honours_mask

from .beliefs import played_by_seat, plays_so_far
from .knowledge import Knowledge
from .solver import after_card, bit_count, greedy_choice, legal_cards, rule_flags


@njit(cache=True)
def _greedy_mismatches(hands, seats, cards, judged, trump, flags, akq, partnership):
    """How many plays by the ``judged`` seats (a mask) differ from the greedy card, replaying
    the deal from ``hands`` (each seat's cards before the first trick; changed in place)."""
    n, led_suit, best_led, best_trump, winner = 0, -1, -1, -1, -1
    broken = False
    mismatches = 0
    for i in range(len(seats)):
        seat, card = seats[i], cards[i]
        if (judged >> seat) & 1:
            legal = legal_cards(hands[seat], n, led_suit, best_led, best_trump, trump,
                                broken, flags, akq)
            if greedy_choice(hands, seat, n, led_suit, best_led, best_trump, winner, legal,
                             trump, partnership) != card:
                mismatches += 1
        led_suit, best_led, best_trump, winner = after_card(n, led_suit, best_led, best_trump,
                                                            winner, seat, card, trump)
        hands[seat] ^= np.int64(1) << card
        n += 1
        if n == 4:
            broken = broken or best_trump >= 0
            n, led_suit, best_led, best_trump, winner = 0, -1, -1, -1, -1
    return mismatches


@njit(cache=True)
def _nth_card(cards, n):
    for card in range(52):
        if cards >> card & 1:
            if n == 0:
                return card
            n -= 1
    return -1


@njit(cache=True)
def _refine(worlds, played, forbidden, hidden, seats, cards, trump, flags, akq, partnership,
            surprise, steps, seed):
    """Walk each layout of ``worlds`` (rows of four hands, changed in place) ``steps`` swaps;
    returns each final layout's count of surprising plays."""
    np.random.seed(seed)
    judged = 0
    for seat in hidden:
        judged |= 1 << seat
    result = np.zeros(worlds.shape[0], dtype=np.int64)
    start = np.zeros(4, dtype=np.int64)
    for world in range(worlds.shape[0]):
        hands = worlds[world]
        for seat in range(4):
            start[seat] = hands[seat] | played[seat]
        current = _greedy_mismatches(start, seats, cards, judged, trump, flags, akq,
                                     partnership)
        for _ in range(steps if len(hidden) > 1 and current > 0 else 0):
            first = np.random.randint(len(hidden))
            second = np.random.randint(len(hidden) - 1)
            if second >= first:
                second += 1
            a, b = hidden[first], hidden[second]
            size_a, size_b = bit_count(hands[a]), bit_count(hands[b])
            if size_a == 0 or size_b == 0:
                continue
            x = _nth_card(hands[a], np.random.randint(size_a))
            y = _nth_card(hands[b], np.random.randint(size_b))
            if forbidden[b] >> x & 1 or forbidden[a] >> y & 1:
                continue
            swap = (np.int64(1) << x) | (np.int64(1) << y)
            hands[a] ^= swap
            hands[b] ^= swap
            for seat in range(4):
                start[seat] = hands[seat] | played[seat]
            proposed = _greedy_mismatches(start, seats, cards, judged, trump, flags, akq,
                                          partnership)
            if proposed <= current or np.random.random() < surprise ** (proposed - current):
                current = proposed
            else:
                hands[a] ^= swap
                hands[b] ^= swap
        result[world] = current
    return result


def refine(observation: Observation, knowledge: Knowledge, worlds: list[list[int]],
           surprise: float, steps: int, rng: random.Random) -> list[int]:
    """Move each layout of ``worlds`` (all four hands now, sampled from ``knowledge``; changed
    in place) toward the plays so far: ``steps`` Metropolis swaps of hidden cards each, a play
    the greedy player would not have made costing a factor ``surprise``. Returns each final
    layout's number of such plays."""
    plays = plays_so_far(observation)
    if not plays:
        return [0] * len(worlds)
    trump = int(observation.trump)  # type: ignore[arg-type]
    rules_of_play = PlayState([0, 0, 0, 0], trump, 0, observation.rules)
    forbidden = [0, 0, 0, 0]
    for seat, cards in zip(knowledge.hidden, knowledge.forbidden, strict=True):
        forbidden[seat] = cards
    array = np.array(worlds, dtype=np.int64).reshape(-1, 4)
    counts = _refine(
        array, np.array(played_by_seat(observation), dtype=np.int64),
        np.array(forbidden, dtype=np.int64), np.array(knowledge.hidden, dtype=np.int64),
        np.array([seat for seat, _ in plays], dtype=np.int64),
        np.array([card for _, card in plays], dtype=np.int64), trump, rule_flags(rules_of_play),
        np.int64(honours_mask(trump)), observation.rules.game == Game.PARTNERSHIP, surprise,
        steps, rng.getrandbits(32),
    )
    for world, row in zip(worlds, array.tolist(), strict=True):
        world[:] = row
    return counts.tolist()


def warm_up() -> None:
    """Compile the walk now rather than during a first decision."""
    one_card_each = np.array([[1 << (13 * seat) for seat in range(4)]], dtype=np.int64)
    _refine(one_card_each, np.zeros(4, dtype=np.int64), np.zeros(4, dtype=np.int64),
            np.array([1, 2], dtype=np.int64), np.array([1], dtype=np.int64),
            np.array([13], dtype=np.int64), 0, 0, np.int64(0), False, 0.5, 1, 1)
