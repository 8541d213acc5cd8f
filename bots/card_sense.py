"""Card sense: the cards a good player does not weigh.

A legal card is dominated by a lower legal card of its own suit when the lower one does
everything it would in this trick and keeps the higher one for later (whatever the unseen cards
are, this trick goes the same way; what is given up is the rare later play that needs the
higher card gone: unblocking a suit, or escaping a throw-in):

- **equivalent cards**: every card still in play ranked between them is in the same hand
  (touching ranks, or ranks made adjacent by the cards played), so the two are one choice;
- **a card that does not take the trick's lead**: a lower one of its suit leaves the trick
  exactly as it would (the lowest loser);
- **a sure winner**: a lower card of its suit that wins the trick as surely (the cheapest
  winner);
- in the partnership game, **a card that overtakes a partner's sure winner** while a card that
  does not is legal: the trick is the team's either way.

Hard searches only the cards left (`candidates`), Medium's card is replaced by the card that
dominates it (`dominators`), and the arena counts what a player did anyway (`waste`).
Everything here reads the seat's own view (`Knowledge`), so it cannot depend on hidden cards.
"""

from __future__ import annotations

from games.engine.cards import SUIT_MASKS, indices_of
from games.engine.play import ABOVE, NO_CARD, PlayState

from .knowledge import Knowledge
from .policy import lowest, winning_cards

# A card that does not take the trick while a lower one of its suit was legal: into a trick
# already lost, or under a card that stays ahead of it.
HIGHER_INTO_LOST_TRICK = "higher card into a lost trick"
OVERPAID_WINNER = "overpaid winner"
OVERTOOK_PARTNER = "overtook a partner's sure winner"
WASTE_KINDS = (HIGHER_INTO_LOST_TRICK, OVERPAID_WINNER, OVERTOOK_PARTNER)


def _later_seats(state: PlayState) -> list[int]:
    """The seats still to play to the current trick after the seat to move."""
    seats, seat = [], state.turn
    for _ in range(3 - len(state.trick)):
        seat = state.next_seat[seat]
        seats.append(seat)
    return seats


def _may_hold(knowledge: Knowledge, seat: int) -> int:
    if seat in knowledge.known:
        return knowledge.known[seat]
    position = knowledge.hidden.index(seat)
    return knowledge.unseen & ~knowledge.forbidden[position]


def _may_beat(state: PlayState, knowledge: Knowledge, seat: int, card: int) -> bool:
    """Whether ``seat``, later in this trick, may beat ``card`` once it leads the trick. A hidden
    seat may be void in the led suit whenever it may hold a trump; a seen hand is checked."""
    cards = _may_hold(knowledge, seat)
    trumps = cards & state.trump_mask
    led = SUIT_MASKS[state.led_suit]
    if card // 13 == state.trump:
        if state.led_suit != state.trump and seat in knowledge.known and cards & led:
            return False  # must follow suit
        return bool(trumps & ABOVE[card])
    if cards & ABOVE[card]:
        return True
    void = seat not in knowledge.known or not cards & led
    return bool(void and trumps)


def _threats(state: PlayState, partnership: bool) -> list[int]:
    partner = (state.turn + 2) % 4
    return [seat for seat in _later_seats(state) if not (partnership and seat == partner)]


def sure_winners(state: PlayState, knowledge: Knowledge, partnership: bool) -> int:
    """The legal cards that take the trick's lead now and that no later opponent may beat.
    None when leading: this counts only following cards."""
    if not state.trick:
        return 0
    threats = _threats(state, partnership)
    result = 0
    wins = winning_cards(state, state.legal_mask())
    while wins:
        bit = wins & -wins
        wins ^= bit
        card = bit.bit_length() - 1
        if not any(_may_beat(state, knowledge, seat, card) for seat in threats):
            result |= bit
    return result


def partner_sure_winner(state: PlayState, knowledge: Knowledge, partnership: bool) -> bool:
    """In the partnership game: the partner's card leads the trick and no opponent still to
    play may beat it."""
    if not (partnership and state.trick and state.trick_winner == (state.turn + 2) % 4):
        return False
    best = state.best_trump if state.best_trump != NO_CARD else state.best_led
    return not any(_may_beat(state, knowledge, seat, best)
                   for seat in _threats(state, partnership))


def _in_play(state: PlayState, knowledge: Knowledge) -> int:
    """Cards not yet in a completed trick: unseen, seen in hands, or in the current trick."""
    cards = knowledge.unseen
    for hand in knowledge.known.values():
        cards |= hand
    for card in state.trick:
        cards |= 1 << card
    return cards


def equivalent_groups(state: PlayState, knowledge: Knowledge) -> list[int]:
    """The legal cards in groups of equivalent ones: cards of a suit with no card still in
    play ranked between them except the hand's own."""
    legal = state.legal_mask()
    hand = state.hands[state.turn]
    in_play = _in_play(state, knowledge)
    groups: list[int] = []
    for suit_mask in SUIT_MASKS:
        cards = legal & suit_mask
        previous = NO_CARD
        while cards:
            bit = cards & -cards
            cards ^= bit
            card = bit.bit_length() - 1
            if previous >= 0 and not in_play & ABOVE[previous] & ~ABOVE[card] & ~bit & ~hand:
                groups[-1] |= bit
            else:
                groups.append(bit)
            previous = card
    return groups


def dominators(state: PlayState, knowledge: Knowledge, partnership: bool) -> dict[int, int]:
    """Each dominated legal card (equivalent ones aside), with the card that dominates it:
    the lowest card of its suit when it does not take the lead or wins surely; a card that
    does not overtake a partner's sure winner."""
    if not state.trick:
        return {}
    legal = state.legal_mask()
    taking = winning_cards(state, legal)
    losers = legal & ~taking
    result: dict[int, int] = {}
    if losers and partner_sure_winner(state, knowledge, partnership):
        # Any card that does not take the lead keeps the partner's trick: the least useful.
        cheapest = lowest(losers, state.trump)
        for card in indices_of(taking):
            result[card] = cheapest
    for group in (losers, sure_winners(state, knowledge, partnership)):
        for suit_mask in SUIT_MASKS:
            in_suit = group & suit_mask
            low = in_suit & -in_suit
            for card in indices_of(in_suit & ~low):
                result.setdefault(card, low.bit_length() - 1)
    return result


def candidates(state: PlayState, knowledge: Knowledge, partnership: bool,
               preferred: int) -> list[int]:
    """The legal cards worth searching: one card of each group of equivalent ones no other
    card dominates. A group plays ``preferred`` when it holds it (so a player shows the card
    the obvious player would), else its lowest card when following and its highest when
    leading (the top of a sequence)."""
    dominated = 0
    for card in dominators(state, knowledge, partnership):
        dominated |= 1 << card
    chosen = []
    for group in equivalent_groups(state, knowledge):
        members = group & ~dominated
        if not members:
            continue
        if members >> preferred & 1:
            chosen.append(preferred)
        elif state.trick:
            chosen.append((members & -members).bit_length() - 1)
        else:
            chosen.append(members.bit_length() - 1)
    return chosen


def waste(state: PlayState, knowledge: Knowledge, partnership: bool, card: int) -> str | None:
    """What the arena counts against a player that plays ``card`` here, if anything."""
    if not state.trick:
        return None
    legal = state.legal_mask()
    bit = 1 << card
    lower_in_suit = legal & SUIT_MASKS[card // 13] & (bit - 1)
    taking = winning_cards(state, legal)
    if partner_sure_winner(state, knowledge, partnership) and bit & taking and legal & ~taking:
        return OVERTOOK_PARTNER
    if not bit & taking and lower_in_suit:
        return HIGHER_INTO_LOST_TRICK
    sure = sure_winners(state, knowledge, partnership)
    if bit & sure and lower_in_suit & sure:
        return OVERPAID_WINNER
    return None
