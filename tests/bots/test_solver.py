"""The compiled endgame search against a plain search over `PlayState` and the Python greedy
player, under random table rules, positions and score lines."""

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from bots.policy import greedy_card, play_out
from bots.solver import Solver, greedy_choice, rollout
from games.engine import Game, TableRules
from games.engine.cards import indices_of
from games.engine.play import NO_CARD, PlayState
from tests.engine.test_properties import table_rules

SOLVER = Solver()


def best_response(state: PlayState, controlled: set[int], side: set[int], values: list[int],
                  partnership: bool) -> int:
    """The definition: the controlled seats try every legal card, the others play greedily."""
    if state.finished:
        return values[sum(state.tricks_won[s] for s in side)]
    if state.turn in controlled:
        cards = indices_of(state.legal_mask())
    else:
        hands = state.hands
        others = (hands[0] | hands[1] | hands[2] | hands[3]) & ~hands[state.turn]
        cards = [greedy_card(state, others, partnership)]
    outcomes = []
    for card in cards:
        after = state.copy()
        after.play(card)
        outcomes.append(best_response(after, controlled, side, values, partnership))
    return max(outcomes)


def position(rules: TableRules, seed: int, tricks_left: int, extra_cards: int) -> PlayState:
    """A random deal played greedily to ``tricks_left`` tricks, then a few random cards."""
    rng = random.Random(seed)
    deck = list(range(52))
    rng.shuffle(deck)
    hands = [sum(1 << card for card in deck[13 * seat:13 * seat + 13]) for seat in range(4)]
    state = PlayState(hands, rng.randrange(4), rng.randrange(4), rules)
    play_out(state, rules.game == Game.PARTNERSHIP, tricks_left)
    for _ in range(extra_cards if tricks_left > 1 else 0):
        state.play(rng.choice(indices_of(state.legal_mask())))
    return state


@settings(max_examples=300, deadline=None)
@given(rules=table_rules(), seed=st.integers(0, 2**32), tricks_left=st.integers(1, 4),
       extra_cards=st.integers(0, 3), seat=st.integers(0, 3), dummy=st.booleans())
def test_search_equals_its_definition(rules: TableRules, seed: int, tricks_left: int,
                                      extra_cards: int, seat: int, dummy: bool) -> None:
    state = position(rules, seed, tricks_left, extra_cards)
    partnership = rules.game == Game.PARTNERSHIP
    side = {seat, (seat + 2) % 4} if partnership else {seat}
    controlled = side if partnership and dummy else {seat}
    # Any score line: not monotone, as with Koz Maça's announcements.
    values = [random.Random(seed).randrange(-60, 60) for _ in range(14)]
    expected = best_response(state, controlled, side, values, partnership)
    assert SOLVER.best_response(state, sorted(controlled), sorted(side), values,
                                partnership) == expected


@settings(max_examples=200, deadline=None)
@given(rules=table_rules(), seed=st.integers(0, 2**32), tricks_left=st.integers(1, 13),
       extra_cards=st.integers(0, 3))
def test_compiled_greedy_card_is_the_greedy_card(rules: TableRules, seed: int, tricks_left: int,
                                                 extra_cards: int) -> None:
    state = position(rules, seed, tricks_left, extra_cards)
    partnership = rules.game == Game.PARTNERSHIP
    hands = state.hands
    others = (hands[0] | hands[1] | hands[2] | hands[3]) & ~hands[state.turn]
    best_trump = state.best_trump if state.trick and state.best_trump != NO_CARD else -1
    compiled = greedy_choice(np.array(hands, dtype=np.int64), state.turn, len(state.trick),
                             state.led_suit if state.trick else -1,
                             state.best_led if state.trick else -1, best_trump,
                             state.trick_winner, state.legal_mask(), state.trump, partnership)
    assert compiled == greedy_card(state, others, partnership)


@settings(max_examples=200, deadline=None)
@given(rules=table_rules(), seed=st.integers(0, 2**32), leader=st.integers(0, 3),
       trump=st.integers(0, 3))
def test_compiled_rollout_is_the_greedy_play_out(rules: TableRules, seed: int, leader: int,
                                                 trump: int) -> None:
    deck = list(range(52))
    random.Random(seed).shuffle(deck)
    hands = [sum(1 << card for card in deck[13 * seat:13 * seat + 13]) for seat in range(4)]
    partnership = rules.game == Game.PARTNERSHIP
    compiled = rollout(PlayState(list(hands), trump, leader, rules), partnership)
    state = PlayState(list(hands), trump, leader, rules)
    play_out(state, partnership, 0)
    assert compiled == state.tricks_won


def test_play_out_stops_with_the_asked_tricks_left() -> None:
    state = position(TableRules.create("spades"), 3, 5, 0)
    assert not state.trick
    assert sum(state.tricks_won) == 8
    assert all(hand.bit_count() == 5 for hand in state.hands)
