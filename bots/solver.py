"""The rest of a deal searched in one sampled world, where every hand is known: the best score
the deciding seat can reach when each other seat plays the greedy card.

The Hard player averages this over its sampled worlds for each card it may play. Play-outs in
which the deciding seat, too, plays greedily judge a card by what Medium would do next; searching
its own later choices instead (the others stay greedy, as the field it is judged against and a
plain model of people) finds the end plays, unblocks and ducks that greedy play misses. A search
that assumes the three others combine against the seat measured worse: in a game where each
seat counts its own tricks they do not, and against a weak hand every card looks equally lost.

Compiled with numba over the same 52-bit masks as `PlayState`. Two reductions keep it small:
cards of the deciding seat with no live card between them are one choice, and positions at the
start of a trick are remembered in a table. The score is any function of the side's final trick
count (``values[t]``), so one search serves every game and scoring rule.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numba import njit
from numba.core import config as numba_config

from games.engine.play import NO_CARD, PlayState, honours_mask

# numba's on-disk cache notices a change to a compiled function's own file only, and the card
# reading's compiled code includes this file's functions: a folder per version of the compiled
# sources, so no process ever loads code compiled from other sources. (Set before the
# functions below are defined, which is when numba picks their cache's folder.)
_COMPILED_SOURCES = ("solver.py", "card_reading.py", "joint_search.py")
_SOURCES_DIGEST = hashlib.sha256(
    b"".join((Path(__file__).parent / name).read_bytes() for name in _COMPILED_SOURCES)
).hexdigest()[:16]
numba_config.CACHE_DIR = os.path.join(
    os.environ.get("NUMBA_CACHE_DIR") or Path(__file__).parent / "__pycache__" / "numba",
    _SOURCES_DIGEST,
)

FREE_TRUMP_LEAD = 1
AKQ_LEAD = 2
MUST_BEAT = 4
BEAT_AFTER_TRUMPED = 8
MUST_TRUMP = 16
MUST_OVERTRUMP = 32
TRUMP_WHEN_CANNOT_OVERTRUMP = 64

_TABLE_BITS = 18
_TABLE_SIZE = 1 << _TABLE_BITS


@njit(cache=True)
def _suit_mask(suit: int) -> int:
    return np.int64(0x1FFF) << (13 * suit)


@njit(cache=True)
def _above(card: int) -> int:
    return _suit_mask(card // 13) & ~((np.int64(2) << card) - 1)


# The highest rank present in each 13-bit suit pattern.
_HIGHEST = np.array([max(0, value.bit_length() - 1) for value in range(1 << 13)], dtype=np.int64)


@njit(cache=True)
def legal_cards(hand: int, n: int, led_suit: int, best_led: int, best_trump: int,
                trump: int, broken: bool, flags: int, akq: int) -> int:
    """`PlayState.legal_mask` for compiled code; the two must agree (tested)."""
    trump_mask = _suit_mask(trump)
    if n == 0:
        if flags & FREE_TRUMP_LEAD or broken:
            return hand
        others = hand & ~trump_mask
        if others == 0:
            return hand
        if flags & AKQ_LEAD and hand & akq == akq:
            return others | akq
        return others
    follow = hand & _suit_mask(led_suit)
    if follow:
        if flags & MUST_BEAT and (best_trump < 0 or led_suit == trump
                                  or flags & BEAT_AFTER_TRUMPED):
            higher = follow & _above(best_led)
            if higher:
                return higher
        return follow
    trumps = hand & trump_mask
    if trumps == 0:
        return hand
    if best_trump >= 0 and flags & MUST_OVERTRUMP:
        higher = trumps & _above(best_trump)
        if higher:
            return higher
        return trumps if flags & TRUMP_WHEN_CANNOT_OVERTRUMP else hand
    return trumps if flags & MUST_TRUMP else hand


@njit(cache=True)
def _slot(hands: np.ndarray, leader: int, tricks: int) -> int:
    key = (hands[0] * np.int64(0x1E3779B97F4A7C15) ^ hands[1] * np.int64(0x632BE59BD9B4E019)
           ^ hands[2] * np.int64(0x3C6EF372FE94F82B) ^ hands[3] * np.int64(0x2545F4914F6CDD1D)
           ^ (leader * 16 + tricks) * np.int64(0x27BB2EE687B0B0FD))
    return (key >> 29) & (_TABLE_SIZE - 1)


# --- the greedy player, compiled ---------------------------------------------------------------


@njit(cache=True)
def _keep_value(card: int, trump: int) -> int:
    return card % 13 + (13 if card // 13 == trump else 0)


@njit(cache=True)
def _lowest(cards: int, trump: int) -> int:
    best, best_value = -1, 1 << 30
    for card in range(52):
        if cards >> card & 1:
            value = _keep_value(card, trump)
            if value < best_value:
                best, best_value = card, value
    return best


@njit(cache=True)
def _highest(cards: int, trump: int) -> int:
    best, best_value = -1, -1
    for card in range(52):
        if cards >> card & 1:
            value = _keep_value(card, trump)
            if value > best_value:
                best, best_value = card, value
    return best


@njit(cache=True)
def _masters(cards: int, others: int) -> int:
    result = np.int64(0)
    for suit in range(4):
        mine = cards & _suit_mask(suit)
        if mine:
            theirs = (others >> (13 * suit)) & 0x1FFF
            if theirs:
                top_other = 13 * suit + _HIGHEST[theirs]
                result |= mine & ~((np.int64(2) << top_other) - 1)
            else:
                result |= mine
    return result


@njit(cache=True)
def greedy_choice(hands, turn, n, led_suit, best_led, best_trump, winner, legal, trump,
                  partnership):
    """`bots.policy.greedy_card` for compiled code, every hand known; the two agree (tested)."""
    if not legal & (legal - 1):
        return _highest_card(legal)
    others = (hands[0] | hands[1] | hands[2] | hands[3]) & ~hands[turn]
    trump_mask = _suit_mask(trump)
    if n == 0:
        side = legal & ~trump_mask
        cashable = _masters(side, others)
        if cashable:
            return _highest(cashable, trump)
        if side:
            longest, longest_count = -1, -1
            for suit in range(4):
                if side & _suit_mask(suit):
                    count = bit_count(hands[turn] & _suit_mask(suit))
                    if count > longest_count:
                        longest, longest_count = suit, count
            return _lowest(side & _suit_mask(longest), trump)
        top = _masters(legal, others)
        return _highest(top, trump) if top else _lowest(legal, trump)
    if partnership and winner == (turn + 2) % 4:
        return _lowest(legal, trump)
    if best_trump >= 0:
        wins = legal & trump_mask & _above(best_trump)
    else:
        wins = legal & _above(best_led)
        if led_suit != trump:
            wins |= legal & trump_mask
    if not wins:
        return _lowest(legal, trump)
    if n == 3:
        return _lowest(wins, trump)
    safe = _masters(wins, others) if best_trump < 0 else np.int64(0)
    if safe & ~trump_mask:
        return _lowest(safe & ~trump_mask, trump)
    if wins & trump_mask and not wins & ~trump_mask:
        return _lowest(wins, trump)
    if n == 2:
        return _lowest(wins, trump)
    return _lowest(legal, trump)


@njit(cache=True)
def after_card(n, led_suit, best_led, best_trump, winner, seat, card, trump):
    """The trick's (led suit, best card of it, best trump, winner) after ``seat`` plays
    ``card`` as the trick's ``n``-th card (from 0); -1 stands for none."""
    suit = card // 13
    if n == 0:
        return suit, card, card if suit == trump else -1, seat
    if suit == trump:
        if card > best_trump:
            return led_suit, card if suit == led_suit else best_led, card, seat
    elif suit == led_suit and card > best_led:
        return led_suit, card, best_trump, seat if best_trump < 0 else winner
    return led_suit, best_led, best_trump, winner


@njit(cache=True)
def bit_count(value: int) -> int:
    count = 0
    while value:
        value &= value - 1
        count += 1
    return count


@njit(cache=True)
def _highest_card(cards: int) -> int:
    for suit_step in range(4):
        suit = 3 - suit_step
        ranks = (cards >> (13 * suit)) & 0x1FFF
        if ranks:
            return 13 * suit + _HIGHEST[ranks]
    return -1


@njit(cache=True)
def _respond(hands, turn, n, led_suit, best_led, best_trump, winner, broken, trick_cards,
             side_tricks, remaining, controlled, side, values, trump, flags, akq, next_seat,
             partnership, table_hands, table_info, table_value, generation, budget):
    """The best score the ``controlled`` seats (a mask) reach when every other seat plays the
    greedy card: their later choices are searched, the others' are not. Each position visited
    takes one from ``budget[0]``; once it is below zero the answer is meaningless (the caller
    drops it) and nothing more is remembered in the table."""
    budget[0] -= 1
    if budget[0] < 0:
        return np.int64(0)
    slot = -1
    info = 0
    if n == 0:
        if remaining == 0:
            return values[side_tricks]
        slot = _slot(hands, turn, side_tricks)
        info = generation << 8 | side_tricks << 3 | turn << 1 | (1 if broken else 0)
        if (table_info[slot] == info and table_hands[slot, 0] == hands[0]
                and table_hands[slot, 1] == hands[1] and table_hands[slot, 2] == hands[2]
                and table_hands[slot, 3] == hands[3]):
            return table_value[slot]
    hand = hands[turn]
    legal = legal_cards(hand, n, led_suit, best_led, best_trump, trump, broken, flags, akq)
    if (controlled >> turn) & 1:
        candidates = legal
        live = hands[0] | hands[1] | hands[2] | hands[3] | trick_cards
    else:
        candidates = np.int64(1) << greedy_choice(hands, turn, n, led_suit, best_led,
                                                  best_trump, winner, legal, trump, partnership)
        live = np.int64(0)
    best = -(1 << 30)
    for suit in range(4):
        ranks = (candidates >> (13 * suit)) & 0x1FFF
        while ranks:
            rank = _HIGHEST[ranks]
            ranks ^= 1 << rank
            card = 13 * suit + rank
            bit = np.int64(1) << card
            higher_live = live & _above(card)
            if higher_live and (higher_live & -higher_live) & legal:
                continue  # the next live card up is ours too: the same move
            new_led, new_best_led, new_best_trump, new_winner = after_card(
                n, led_suit, best_led, best_trump, winner, turn, card, trump)
            hands[turn] = hand ^ bit
            if n == 3:
                # Typed, not literal, arguments: the recursion then stays one compiled
                # function, which numba's on-disk cache can load (numba issue 6061).
                none = np.int64(-1)
                value = _respond(hands, new_winner, np.int64(0), none, none, none, new_winner,
                                 broken or new_best_trump >= 0, np.int64(0),
                                 side_tricks + ((side >> new_winner) & 1), remaining - 1,
                                 controlled, side, values, trump, flags, akq, next_seat,
                                 partnership, table_hands, table_info, table_value, generation,
                                 budget)
            else:
                value = _respond(hands, next_seat[turn], n + 1, new_led, new_best_led,
                                 new_best_trump, new_winner, broken, trick_cards | bit,
                                 side_tricks, remaining, controlled, side, values, trump,
                                 flags, akq, next_seat, partnership, table_hands, table_info,
                                 table_value, generation, budget)
            hands[turn] = hand
            best = max(best, value)
    if slot >= 0 and budget[0] >= 0:
        table_info[slot] = info
        table_hands[slot, 0] = hands[0]
        table_hands[slot, 1] = hands[1]
        table_hands[slot, 2] = hands[2]
        table_hands[slot, 3] = hands[3]
        table_value[slot] = best
    return best


@njit(cache=True)
def next_state(turn, n, led_suit, best_led, best_trump, winner, broken, trick_cards,
                side_tricks, remaining, card, trump, side, next_seat):
    """The position after ``turn`` plays ``card``: a new trick's start when it completes one."""
    new_led, new_best_led, new_best_trump, new_winner = after_card(
        n, led_suit, best_led, best_trump, winner, turn, card, trump)
    if n == 3:
        none = np.int64(-1)
        return (new_winner, np.int64(0), none, none, none, new_winner,
                broken or new_best_trump >= 0, np.int64(0),
                side_tricks + ((side >> new_winner) & 1), remaining - 1)
    return (next_seat[turn], n + 1, new_led, new_best_led, new_best_trump, new_winner, broken,
            trick_cards | (np.int64(1) << card), side_tricks, remaining)


@njit(cache=True)
def _greedy_tricks(hands, leader, trump, flags, akq, next_seat, partnership):
    """Each seat's tricks when every seat plays the greedy card from a deal's first lead."""
    h = hands.copy()
    tricks = np.zeros(4, dtype=np.int64)
    none = np.int64(-1)
    turn, n, led_suit, best_led, best_trump, winner = leader, np.int64(0), none, none, none, leader
    broken = False
    while h[0] | h[1] | h[2] | h[3]:
        legal = legal_cards(h[turn], n, led_suit, best_led, best_trump, trump, broken, flags,
                            akq)
        card = greedy_choice(h, turn, n, led_suit, best_led, best_trump, winner, legal, trump,
                             partnership)
        h[turn] ^= np.int64(1) << card
        completes = n == 3
        (turn, n, led_suit, best_led, best_trump, winner, broken, _, _,
         _) = next_state(turn, n, led_suit, best_led, best_trump, winner, broken, np.int64(0),
                         np.int64(0), np.int64(13), card, trump, np.int64(0), next_seat)
        if completes:
            tricks[winner] += 1
    return tricks


def rollout(state: PlayState, partnership: bool) -> list[int]:
    """Each seat's tricks when every seat plays the greedy card (`bots.policy.greedy_card`,
    every hand known) from ``state``, a deal's first lead: the play-out that judges Hard's
    calls and the bid estimate, compiled."""
    assert not state.trick and not any(state.tricks_won) and not state.broken
    tricks = _greedy_tricks(np.array(state.hands, dtype=np.int64), np.int64(state.turn),
                            np.int64(state.trump), np.int64(rule_flags(state)),
                            np.int64(honours_mask(state.trump)),
                            np.array(state.next_seat, dtype=np.int64), partnership)
    return [int(t) for t in tricks]


def rule_flags(state: PlayState) -> int:
    return (
        FREE_TRUMP_LEAD * state._free_trump_lead
        | AKQ_LEAD * state._akq_lead
        | MUST_BEAT * state._must_beat
        | BEAT_AFTER_TRUMPED * state._beat_after_trumped
        | MUST_TRUMP * state._must_trump
        | MUST_OVERTRUMP * state._must_overtrump
        | TRUMP_WHEN_CANNOT_OVERTRUMP * state._trump_when_cannot_overtrump
    )


# Positions a search may visit when its caller sets no bound: more than any search needs.
UNBOUNDED = 1 << 62


class Solver:
    """Owns the position table; one per process is enough (the search is not re-entrant, and a
    bot decides one move at a time)."""

    def __init__(self) -> None:
        self._hands = np.zeros((_TABLE_SIZE, 4), dtype=np.int64)
        self._info = np.zeros(_TABLE_SIZE, dtype=np.int64)
        self._value = np.zeros(_TABLE_SIZE, dtype=np.int64)
        self._generation = 0

    def best_response(self, state: PlayState, controlled: Sequence[int], side: Sequence[int],
                      values: Sequence[int], partnership: bool) -> int:
        """The best score the deciding player reaches from ``state`` when every seat it does not
        control (its own, and a dummy it plays) plays the greedy card, `bots.policy.greedy_card`
        knowing every hand. ``side`` are the seats whose tricks count for it and ``values[t]``
        its score for ``t`` such tricks in the whole deal."""
        value, _ = self.bounded_response(state, controlled, side, values, partnership,
                                         UNBOUNDED, self.forget())
        assert value is not None
        return value

    def forget(self) -> int:
        """A new generation of the table, which empties it for searches of that generation
        without touching its 2**18 rows (the rows of earlier ones stay until overwritten)."""
        self._generation = self._generation % 0xFFFFFF + 1
        return self._generation

    def bounded_response(self, state: PlayState, controlled: Sequence[int], side: Sequence[int],
                         values: Sequence[int], partnership: bool, nodes: int,
                         generation: int) -> tuple[int | None, int]:
        """`best_response` visiting at most ``nodes`` positions (None when that is not enough),
        and how many of them are left over; with the positions remembered under ``generation``
        (from `forget`): a caller asking about one player (the same ``controlled``, ``side``
        and ``values``) with the same generation has each position already searched looked
        up, not searched again."""
        trick_cards = 0
        for card in state.trick:
            trick_cards |= 1 << card
        cards_left = sum(hand.bit_count() for hand in state.hands) + len(state.trick)
        budget = np.array([nodes], dtype=np.int64)
        value = int(_respond(
            np.array(state.hands, dtype=np.int64), state.turn, len(state.trick),
            state.led_suit if state.trick else -1, state.best_led if state.trick else -1,
            state.best_trump if state.trick and state.best_trump != NO_CARD else -1,
            state.trick_winner, state.broken, np.int64(trick_cards),
            sum(state.tricks_won[s] for s in set(side)), cards_left // 4,
            sum(1 << s for s in set(controlled)),
            sum(1 << s for s in set(side)), np.array(values, dtype=np.int64), state.trump,
            rule_flags(state), np.int64(honours_mask(state.trump)),
            np.array(state.next_seat, dtype=np.int64), partnership,
            self._hands, self._info, self._value, generation, budget,
        ))
        left = int(budget[0])
        return (value, left) if left >= 0 else (None, 0)
