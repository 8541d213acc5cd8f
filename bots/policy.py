"""A fast greedy card player on the lean `PlayState`: the Medium player's card play, and the
definition of the compiled greedy card (`bots.solver`) that Hard looks ahead and judges its
calls with.

``others`` is the set of cards the deciding seat believes the other seats may still hold (in a
sampled world: exactly their cards). Card choice follows a few solid habits: cash masters,
win as cheaply as possible, never overtake a partner who is winning, and throw the least
useful card when the trick is lost.
"""

from __future__ import annotations

from games.engine.cards import SUIT_MASKS, indices_of
from games.engine.play import ABOVE, NO_CARD, PlayState


def keep_value(index: int, trump: int) -> int:
    """Usefulness for keeping: trumps above everything, then rank."""
    return index % 13 + (13 if index // 13 == trump else 0)


def lowest(mask: int, trump: int) -> int:
    return min(indices_of(mask), key=lambda index: keep_value(index, trump))


def highest(mask: int, trump: int) -> int:
    return max(indices_of(mask), key=lambda index: keep_value(index, trump))


def winning_cards(state: PlayState, legal: int) -> int:
    """Legal cards that would take the lead of the current trick now."""
    if state.best_trump != NO_CARD:
        return legal & state.trump_mask & ABOVE[state.best_trump]
    wins = legal & ABOVE[state.best_led]
    if state.led_suit != state.trump:
        wins |= legal & state.trump_mask
    return wins


def masters(cards: int, others: int) -> int:
    """Cards of ``cards`` that no card in ``others`` can beat in their own suit."""
    result = 0
    for suit in range(4):
        mine = cards & SUIT_MASKS[suit]
        if mine:
            top_other = (others & SUIT_MASKS[suit]).bit_length() - 1
            result |= mine & ~((2 << top_other) - 1) if top_other >= 0 else mine
    return result


def greedy_card(state: PlayState, others: int, partnership: bool) -> int:
    seat = state.turn
    legal = state.legal_mask()
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    trump = state.trump
    if not state.trick:
        return _lead(state, legal, others)
    if partnership and state.trick_winner == (seat + 2) % 4:
        return lowest(legal, trump)
    wins = winning_cards(state, legal)
    if not wins:
        return lowest(legal, trump)
    if len(state.trick) == 3:
        return lowest(wins, trump)
    safe = masters(wins, others) if state.best_trump == NO_CARD else 0
    if safe & ~state.trump_mask:
        return lowest(safe & ~state.trump_mask, trump)
    if wins & state.trump_mask and not wins & ~state.trump_mask:
        return lowest(wins, trump)  # ruff as cheaply as possible
    if len(state.trick) == 2:
        return lowest(wins, trump)  # third hand plays to win
    return lowest(legal, trump)  # second hand low


def _lead(state: PlayState, legal: int, others: int) -> int:
    trump = state.trump
    side = legal & ~state.trump_mask
    cashable = masters(side, others)
    if cashable:
        return highest(cashable, trump)
    if side:
        hand = state.hands[state.turn]
        longest = max(
            (suit for suit in range(4) if side & SUIT_MASKS[suit]),
            key=lambda suit: (hand & SUIT_MASKS[suit]).bit_count(),
        )
        return lowest(side & SUIT_MASKS[longest], trump)
    top = masters(legal, others)
    return highest(top, trump) if top else lowest(legal, trump)


def play_out(state: PlayState, partnership: bool, until_tricks: int) -> None:
    """Play greedily until no more than ``until_tricks`` tricks are left (the current one
    counts as left while any card of it is still to play)."""
    hands = state.hands
    held = sum(hand.bit_count() for hand in hands)
    while held + len(state.trick) > 4 * until_tricks:
        seat = state.turn
        others = (hands[0] | hands[1] | hands[2] | hands[3]) & ~hands[seat]
        state.play(greedy_card(state, others, partnership))
        held -= 1
