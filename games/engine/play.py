"""The lean core of the play phase: 13 tricks over 52-bit hand masks.

`PlayState` knows nothing of auctions, reasons or display; it answers "which cards may the seat
to move play" and applies a card in a handful of integer operations. `Deal` wraps it with
validation, reasons and history; the benchmark and the bots' rollouts use it directly.
"""

from __future__ import annotations

from .cards import SUIT_MASKS, Rank
from .rules import TableRules, TrumpLead

# Cards of the same suit ranked above each card.
ABOVE: tuple[int, ...] = tuple(
    SUIT_MASKS[index // 13] & ~((2 << index) - 1) for index in range(52)
)
NO_CARD = -1


def next_seat_table(clockwise: bool) -> tuple[int, int, int, int]:
    """``table[seat]`` is the next seat in the table's direction."""
    return (3, 0, 1, 2) if clockwise else (1, 2, 3, 0)


def honours_mask(suit: int) -> int:
    """Ace, king and queen of ``suit``: the `akq_trump_lead` exception."""
    base = 13 * suit
    return (1 << base + Rank.ACE) | (1 << base + Rank.KING) | (1 << base + Rank.QUEEN)


class PlayState:
    """Thirteen tricks from given hands, trump and first leader.

    ``trump`` is a suit index 0..3. ``hands`` is copied. Completed tricks are kept as
    ``(leader, (card, card, card, card), winner)`` with cards in play order.
    """

    __slots__ = (
        "_akq",
        "_akq_lead",
        "_beat_after_trumped",
        "_free_trump_lead",
        "_must_beat",
        "_must_overtrump",
        "_must_trump",
        "_trump_when_cannot_overtrump",
        "best_led",
        "best_trump",
        "broken",
        "completed",
        "hands",
        "led_mask",
        "led_suit",
        "next_seat",
        "trick",
        "trick_leader",
        "trick_winner",
        "tricks_won",
        "trump",
        "trump_mask",
        "turn",
    )

    def __init__(
        self, hands: list[int] | tuple[int, ...], trump: int, leader: int, rules: TableRules
    ) -> None:
        self.hands = list(hands)
        self.trump = trump
        self.trump_mask = SUIT_MASKS[trump]
        self.next_seat = next_seat_table(rules.direction == "clockwise")
        self.turn = leader
        self.trick_leader = leader
        self.trick: list[int] = []
        self.completed: list[tuple[int, tuple[int, ...], int]] = []
        self.tricks_won = [0, 0, 0, 0]
        self.broken = False
        self.led_suit = NO_CARD
        self.led_mask = 0
        self.best_led = NO_CARD
        self.best_trump = NO_CARD
        self.trick_winner = leader
        self._free_trump_lead = rules.trump_lead == TrumpLead.ANYTIME
        self._akq_lead = rules.akq_trump_lead
        self._akq = honours_mask(trump)
        self._must_beat = rules.must_beat_in_suit
        self._beat_after_trumped = rules.must_beat_after_trumped
        self._must_trump = rules.must_trump
        self._must_overtrump = rules.must_overtrump
        self._trump_when_cannot_overtrump = rules.must_trump_when_cannot_overtrump

    @classmethod
    def resume(
        cls,
        hands: list[int] | tuple[int, ...],
        trump: int,
        rules: TableRules,
        *,
        trick_leader: int,
        trick: list[int] | tuple[int, ...] = (),
        broken: bool = False,
        tricks_won: list[int] | tuple[int, ...] = (0, 0, 0, 0),
    ) -> PlayState:
        """A position in the middle of a deal: ``hands`` are the cards still held, ``trick`` the
        cards already played to the current trick (from ``trick_leader`` on). Used to look ahead
        from a seat's view of the game; `completed` holds only the tricks played from here."""
        held = list(hands)
        seat = trick_leader
        next_seat = next_seat_table(rules.direction == "clockwise")
        for card in trick:
            held[seat] |= 1 << card
            seat = next_seat[seat]
        state = cls(held, trump, trick_leader, rules)
        state.broken = broken
        for card in trick:
            state.play(card)
        state.tricks_won = list(tricks_won)
        return state

    def copy(self) -> PlayState:
        """An independent copy for looking ahead (the rules are shared, the position is not)."""
        clone = object.__new__(PlayState)
        for name in PlayState.__slots__:
            setattr(clone, name, getattr(self, name))
        clone.hands = list(self.hands)
        clone.trick = list(self.trick)
        clone.completed = list(self.completed)
        clone.tricks_won = list(self.tricks_won)
        return clone

    @property
    def finished(self) -> bool:
        hands = self.hands
        return not self.trick and not (hands[0] | hands[1] | hands[2] | hands[3])

    @property
    def trumped(self) -> bool:
        """A trump lies in a trick whose led suit is not trumps."""
        return self.best_trump != NO_CARD and self.led_suit != self.trump

    def legal_mask(self) -> int:
        """The cards the seat to move may play, in the order of RULES.md "Playing a card"."""
        hand = self.hands[self.turn]
        if not self.trick:
            if self._free_trump_lead or self.broken:
                return hand
            return self._lead_before_trumps_broken(hand)
        follow = hand & self.led_mask
        if follow:
            if self._must_beat and (
                self.best_trump == NO_CARD
                or self.led_suit == self.trump
                or self._beat_after_trumped
            ):
                higher = follow & ABOVE[self.best_led]
                if higher:
                    return higher
            return follow
        trumps = hand & self.trump_mask
        if not trumps:
            return hand
        if self.best_trump != NO_CARD and self._must_overtrump:
            # Step 4 binds whenever a trump lies in the trick, whatever `must_trump` says.
            higher = trumps & ABOVE[self.best_trump]
            if higher:
                return higher
            return trumps if self._trump_when_cannot_overtrump else hand
        return trumps if self._must_trump else hand

    def _lead_before_trumps_broken(self, hand: int) -> int:
        """Anything but a trump, unless ``hand`` holds only trumps; with `akq_trump_lead`, the
        ace, king and queen of trumps too when the hand holds all three. Off the hot path: most
        leads come after trumps are broken or where trumps may be led at any time."""
        others = hand & ~self.trump_mask
        if not others:
            return hand
        if self._akq_lead and hand & self._akq == self._akq:
            return others | self._akq
        return others

    def play(self, card: int) -> None:
        """Play ``card`` (an index) for the seat to move. The caller has checked it is legal."""
        seat = self.turn
        self.hands[seat] &= ~(1 << card)
        suit = card // 13
        trick = self.trick
        if not trick:
            self.led_suit = suit
            self.led_mask = SUIT_MASKS[suit]
            self.best_led = card
            self.best_trump = card if suit == self.trump else NO_CARD
            self.trick_winner = seat
        elif suit == self.trump:
            if card > self.best_trump:
                self.best_trump = card
                self.trick_winner = seat
                if suit == self.led_suit:
                    self.best_led = card
        elif suit == self.led_suit and card > self.best_led:
            self.best_led = card
            if self.best_trump == NO_CARD:
                self.trick_winner = seat
        trick.append(card)
        if len(trick) < 4:
            self.turn = self.next_seat[seat]
            return
        winner = self.trick_winner
        self.completed.append((self.trick_leader, tuple(trick), winner))
        self.tricks_won[winner] += 1
        if self.best_trump != NO_CARD:
            self.broken = True
        self.trick = []
        self.trick_leader = winner
        self.turn = winner
