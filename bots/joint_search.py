"""The Expert player's search: its next choices made once for all the worlds it cannot tell
apart, not once per world.

Perfect-information Monte Carlo (Hard) judges a card by searching each sampled world on its
own, as if the player would know the world at every later choice: it credits itself with
guesses it cannot make ("strategy fusion"). This search keeps the sampled worlds together
(αμ, Cazenave and Ventos 2019, with the others played by the greedy player as in Hard's
search): at each of the deciding player's next ``joint_moves`` choices (its own cards or its
dummy's) it must play one card in every world it cannot tell apart there. Worlds part only
where the others' cards differ, which is what the player sees. Past those choices each world
is judged as Hard judges it: greedy play to the last tricks, then the exact search
(`bots.solver`). With ``joint_moves`` 0 it is Hard's search exactly.

The score of a set of worlds is its weighted sum, so a choice is the card with the best sum
over the worlds that share it; no Pareto fronts are needed because the others' play in a world
is fixed (the greedy card), not a choice of theirs.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from games.engine.play import NO_CARD, PlayState, honours_mask

from .solver import (
    _HIGHEST,
    _TABLE_SIZE,
    UNBOUNDED,
    _above,
    _respond,
    bit_count,
    greedy_choice,
    legal_cards,
    next_state,
    rule_flags,
)


@njit(cache=True)
def world_value(hands, turn, n, led_suit, best_led, best_trump, winner, broken, trick_cards,
                side_tricks, remaining, controlled, side, values, trump, flags, akq, next_seat,
                partnership, endgame_tricks, table_hands, table_info, table_value, generation):
    """Hard's judgement of one world from here: every seat plays the greedy card while more
    than ``endgame_tricks`` tricks are left, then the controlled seats' choices are searched
    exactly against greedy others."""
    h = hands.copy()
    while bit_count(h[0] | h[1] | h[2] | h[3]) + n > 4 * endgame_tricks:
        legal = legal_cards(h[turn], n, led_suit, best_led, best_trump, trump, broken, flags,
                            akq)
        card = greedy_choice(h, turn, n, led_suit, best_led, best_trump, winner, legal, trump,
                             partnership)
        h[turn] ^= np.int64(1) << card
        (turn, n, led_suit, best_led, best_trump, winner, broken, trick_cards, side_tricks,
         remaining) = next_state(turn, n, led_suit, best_led, best_trump, winner, broken,
                                  trick_cards, side_tricks, remaining, card, trump, side,
                                  next_seat)
    if n == 0 and remaining == 0:
        return values[side_tricks]
    return _respond(h, turn, n, led_suit, best_led, best_trump, winner, broken, trick_cards,
                    side_tricks, remaining, controlled, side, values, trump, flags, akq,
                    next_seat, partnership, table_hands, table_info, table_value, generation,
                    np.array([UNBOUNDED], dtype=np.int64))


@njit(cache=True)
def _joint(worlds, weights, members, turn, n, led_suit, best_led, best_trump, winner, broken,
           trick_cards, side_tricks, remaining, joint_moves, controlled, side, values, trump,
           flags, akq, next_seat, partnership, endgame_tricks, table_hands, table_info,
           table_value, generation):
    """The best weighted sum of scores over the ``members`` worlds (rows of ``worlds``, all
    alike to the deciding player so far) when its next ``joint_moves`` choices are one card
    for all of them."""
    if n == 0 and remaining == 0:
        total = 0.0
        for w in members:
            total += weights[w]
        return total * values[side_tricks]
    mine = (controlled >> turn) & 1
    # A world left alone is still searched as a group would be (its own cards all tried)
    # until the exact search takes over, so splitting never changes how a world is judged.
    endgame = bit_count(worlds[members[0], 0] | worlds[members[0], 1] | worlds[members[0], 2]
                        | worlds[members[0], 3]) + n <= 4 * endgame_tricks
    if mine and (joint_moves == 0 or (len(members) == 1 and endgame)):
        total = 0.0
        for w in members:
            total += weights[w] * world_value(
                worlds[w], turn, n, led_suit, best_led, best_trump, winner, broken,
                trick_cards, side_tricks, remaining, controlled, side, values, trump, flags,
                akq, next_seat, partnership, endgame_tricks, table_hands, table_info,
                table_value, generation)
        return total
    if mine:
        first = members[0]
        hand = worlds[first, turn]
        legal = legal_cards(hand, n, led_suit, best_led, best_trump, trump, broken, flags, akq)
        live = (worlds[first, 0] | worlds[first, 1] | worlds[first, 2] | worlds[first, 3]
                | trick_cards)
        best = -1e300
        for suit in range(4):
            ranks = (legal >> (13 * suit)) & 0x1FFF
            while ranks:
                rank = _HIGHEST[ranks]
                ranks ^= 1 << rank
                card = np.int64(13 * suit + rank)
                higher_live = live & _above(card)
                if higher_live and (higher_live & -higher_live) & legal:
                    continue  # the next live card up is ours too: the same move
                for w in members:
                    worlds[w, turn] = hand ^ (np.int64(1) << card)
                state = next_state(turn, n, led_suit, best_led, best_trump, winner, broken,
                                    trick_cards, side_tricks, remaining, card, trump, side,
                                    next_seat)
                value = _joint(worlds, weights, members, state[0], state[1], state[2],
                               state[3], state[4], state[5], state[6], state[7], state[8],
                               state[9], joint_moves - 1, controlled, side, values, trump,
                               flags, akq, next_seat, partnership, endgame_tricks,
                               table_hands, table_info, table_value, generation)
                for w in members:
                    worlds[w, turn] = hand
                best = max(best, value)
        return best
    # Another seat: its greedy card in each world; the worlds part by the card it shows.
    count = len(members)
    cards = np.empty(count, dtype=np.int64)
    for i in range(count):
        w = members[i]
        legal = legal_cards(worlds[w, turn], n, led_suit, best_led, best_trump, trump, broken,
                            flags, akq)
        cards[i] = greedy_choice(worlds[w], turn, n, led_suit, best_led, best_trump, winner,
                                 legal, trump, partnership)
    total = 0.0
    done = np.zeros(count, dtype=np.bool_)
    for i in range(count):
        if done[i]:
            continue
        card = cards[i]
        size = 0
        for j in range(i, count):
            if cards[j] == card:
                size += 1
        group = np.empty(size, dtype=np.int64)
        k = 0
        for j in range(i, count):
            if cards[j] == card:
                group[k] = members[j]
                done[j] = True
                k += 1
        bit = np.int64(1) << card
        for w in group:
            worlds[w, turn] ^= bit
        state = next_state(turn, n, led_suit, best_led, best_trump, winner, broken,
                            trick_cards, side_tricks, remaining, card, trump, side, next_seat)
        total += _joint(worlds, weights, group, state[0], state[1], state[2], state[3],
                        state[4], state[5], state[6], state[7], state[8], state[9],
                        joint_moves, controlled, side, values, trump, flags, akq, next_seat,
                        partnership, endgame_tricks, table_hands, table_info, table_value,
                        generation)
        for w in group:
            worlds[w, turn] ^= bit
    return total


@njit(cache=True)
def _root_scores(worlds, weights, moves, turn, n, led_suit, best_led, best_trump, winner,
                 broken, trick_cards, side_tricks, remaining, joint_moves, controlled, side,
                 values, trump, flags, akq, next_seat, partnership, endgame_tricks,
                 table_hands, table_info, table_value, generation):
    scores = np.empty(len(moves), dtype=np.float64)
    members = np.arange(len(worlds), dtype=np.int64)
    for i in range(len(moves)):
        card = moves[i]
        bit = np.int64(1) << card
        for w in members:
            worlds[w, turn] ^= bit
        state = next_state(turn, n, led_suit, best_led, best_trump, winner, broken,
                            trick_cards, side_tricks, remaining, card, trump, side, next_seat)
        scores[i] = _joint(worlds, weights, members, state[0], state[1], state[2], state[3],
                           state[4], state[5], state[6], state[7], state[8], state[9],
                           joint_moves, controlled, side, values, trump, flags, akq,
                           next_seat, partnership, endgame_tricks, table_hands, table_info,
                           table_value, generation)
        for w in members:
            worlds[w, turn] ^= bit
    return scores


class JointSearch:
    """Owns the position table of the exact search; one per process (not re-entrant)."""

    def __init__(self) -> None:
        self._hands = np.zeros((_TABLE_SIZE, 4), dtype=np.int64)
        self._info = np.zeros(_TABLE_SIZE, dtype=np.int64)
        self._value = np.zeros(_TABLE_SIZE, dtype=np.int64)
        self._generation = 0

    def mean_scores(self, start: PlayState, worlds: Sequence[Sequence[int]],
                    weights: Sequence[float], moves: Sequence[int], *, controlled: Sequence[int],
                    side: Sequence[int], values: Sequence[int], partnership: bool,
                    joint_moves: int, endgame_tricks: int) -> list[float]:
        """Each of ``moves`` (cards of the seat to move in ``start``) judged over ``worlds``
        (all four hands each, as held now): the weighted mean score when the player's next
        ``joint_moves`` choices are one card for the worlds it cannot tell apart."""
        # One table generation for the whole decision: a position's value depends only on
        # its hands and tricks, the same in every world and after every move.
        self._generation = self._generation % 0xFFFFFF + 1
        trick_cards = 0
        for card in start.trick:
            trick_cards |= 1 << card
        cards_left = sum(hand.bit_count() for hand in worlds[0]) + len(start.trick)
        weights_array = np.array(weights, dtype=np.float64)
        scores = _root_scores(
            np.array(worlds, dtype=np.int64).reshape(-1, 4), weights_array,
            np.array(moves, dtype=np.int64), np.int64(start.turn), np.int64(len(start.trick)),
            np.int64(start.led_suit if start.trick else -1),
            np.int64(start.best_led if start.trick else -1),
            np.int64(start.best_trump if start.trick and start.best_trump != NO_CARD else -1),
            np.int64(start.trick_winner), start.broken, np.int64(trick_cards),
            np.int64(sum(start.tricks_won[s] for s in set(side))), np.int64(cards_left // 4),
            np.int64(joint_moves), np.int64(sum(1 << s for s in set(controlled))),
            np.int64(sum(1 << s for s in set(side))), np.array(values, dtype=np.int64),
            np.int64(start.trump), np.int64(rule_flags(start)),
            np.int64(honours_mask(start.trump)), np.array(start.next_seat, dtype=np.int64),
            partnership, np.int64(endgame_tricks), self._hands, self._info, self._value,
            np.int64(self._generation),
        )
        total = float(weights_array.sum())
        return [float(score) / total for score in scores]
