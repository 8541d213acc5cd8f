"""One deal as a state machine: redeal requests, auction, trump, announcements, play, scoring.

``deal.legal_actions(seat)`` lists what a seat may do now; ``deal.apply(seat, action)`` does it or
raises `IllegalAction` with the reason and the legal alternatives. A deal is fully determined by
its `DealStart` and its ordered action log, so `Deal.replay` rebuilds any state.
"""

from __future__ import annotations

import copy
import dataclasses
import random
from collections.abc import Iterable, Sequence
from typing import Any

from .actions import Action, ActionKind, Announce, Bid, ChooseTrump, Pass, Play, RequestRedeal
from .cards import ALL_CARDS, Card, Rank, Suit, cards_of, mask_of
from .errors import IllegalAction, Reason
from .observation import Observation
from .play import PlayState, next_seat_table
from .public import Phase, Trick
from .rules import AllPass, TableRules
from .scoring import DealScore, partner_of, score_deal
from .shuffle import deck_from_hands, hands_from_deck, shuffled_deck

MAX_TRICKS = 13
# Jacks, queens, kings and aces: a hand with none of them may ask for a weak-hand redeal.
HIGH_CARDS = mask_of(card for card in ALL_CARDS if card.rank > Rank.TEN)


@dataclasses.dataclass(frozen=True, slots=True)
class DealStart:
    """Everything a deal starts from. ``deck`` is the shuffled order the hands were dealt from
    (kept so the deal can be verified afterwards); hand-built test deals have none."""

    rules: TableRules
    dealer: int
    hands: tuple[int, int, int, int]
    number: int = 1
    deck: tuple[int, ...] | None = None

    @classmethod
    def shuffle(
        cls, rules: TableRules, dealer: int, number: int = 1, rng: random.Random | None = None
    ) -> DealStart:
        deck = shuffled_deck(rng)
        next_seat = next_seat_table(rules.direction == "clockwise")
        hands = hands_from_deck(deck, dealer, next_seat)
        return cls(rules, dealer, tuple(hands), number, tuple(deck))  # type: ignore[arg-type]

    @classmethod
    def from_cards(
        cls, rules: TableRules, dealer: int, hands: Sequence[Iterable[Card]], number: int = 1
    ) -> DealStart:
        masks = tuple(mask_of(hand) for hand in hands)
        if len(masks) != 4 or any(m.bit_count() != 13 for m in masks):
            raise ValueError("a deal needs four hands of 13 cards")
        if masks[0] | masks[1] | masks[2] | masks[3] != (1 << 52) - 1:
            raise ValueError("the four hands must hold the 52 cards exactly once")
        return cls(rules, dealer, masks, number)

    def with_deck(self) -> DealStart:
        """This start with the deck order its hands would have been dealt from: chosen hands
        (an imported deal) get a deck whose commitment is made and revealed like a shuffle's."""
        next_seat = next_seat_table(self.rules.direction == "clockwise")
        deck = deck_from_hands(self.hands, self.dealer, next_seat)
        return dataclasses.replace(self, deck=tuple(deck))

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(),
            "dealer": self.dealer,
            "number": self.number,
            "hands": [[str(card) for card in cards_of(hand)] for hand in self.hands],
            "deck": None if self.deck is None else [str(ALL_CARDS[i]) for i in self.deck],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DealStart:
        hands = tuple(mask_of(Card.parse(text) for text in hand) for hand in data["hands"])
        deck = data.get("deck")
        return cls(
            TableRules.from_dict(data["rules"]),
            int(data["dealer"]),
            hands,  # type: ignore[arg-type]
            int(data.get("number", 1)),
            None if deck is None else tuple(Card.parse(text).index for text in deck),
        )


class Deal:
    """The rules of one deal. Seats are 0..3; "next" follows the table's direction."""

    def __init__(self, start: DealStart) -> None:
        self.start = start
        self.rules = start.rules
        self.dealer = start.dealer
        self.number = start.number
        self.next_seat = next_seat_table(start.rules.direction == "clockwise")
        self.log: list[tuple[int, Action]] = []
        self.auction: list[tuple[int, int | None]] = []  # (seat, bid) with None for a pass
        self.passed = [False] * 4
        self.high_bid: int | None = None
        self.high_bidder: int | None = None
        self.declarer: int | None = None
        self.bid: int | None = None
        self.trump: Suit | None = None
        self.announcements: list[int | None] = [None] * 4
        self.play: PlayState | None = None
        self.redeal_requested_by: int | None = None
        self.score: DealScore | None = None
        first = self.next_seat[self.dealer]
        if self.rules.has_auction:
            self.phase = Phase.AUCTION
            self.turn: int | None = first
        elif self.rules.spades_announcements:
            self.phase = Phase.ANNOUNCEMENTS
            self.turn = first
        else:
            self._start_play(Suit.SPADES, leader=first)

    @classmethod
    def new(
        cls, rules: TableRules, dealer: int, number: int = 1, rng: random.Random | None = None
    ) -> Deal:
        """A freshly shuffled deal (`secrets` unless a test passes ``rng``)."""
        return cls(DealStart.shuffle(rules, dealer, number, rng))

    @classmethod
    def replay(cls, start: DealStart, log: Iterable[tuple[int, Action]]) -> Deal:
        """Rebuild a deal from its start and action log, validating every action again."""
        deal = cls(start)
        for seat, action in log:
            deal.apply(seat, action)
        return deal

    def copy(self) -> Deal:
        """An independent copy for looking ahead (the start and rules are shared, the position
        is not)."""
        clone = copy.copy(self)
        clone.log = list(self.log)
        clone.auction = list(self.auction)
        clone.passed = list(self.passed)
        clone.announcements = list(self.announcements)
        clone.play = None if self.play is None else self.play.copy()
        return clone

    # --- what is where -------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase in (Phase.FINISHED, Phase.REDEALT)

    @property
    def dummy(self) -> int | None:
        """The declarer's partner whose hand lies face up (`partnership_dummy`), once trumps are
        named."""
        if self.rules.partnership_dummy and self.declarer is not None and self.trump is not None:
            return partner_of(self.declarer)
        return None

    @property
    def to_act(self) -> int | None:
        """The seat that must submit the next action: the declarer plays for the dummy."""
        if self.turn is not None and self.turn == self.dummy:
            return self.declarer
        return self.turn

    def hand_mask(self, seat: int) -> int:
        return self.play.hands[seat] if self.play is not None else self.start.hands[seat]

    def hand(self, seat: int) -> list[Card]:
        return cards_of(self.hand_mask(seat))

    @property
    def tricks_won(self) -> list[int]:
        return list(self.play.tricks_won) if self.play is not None else [0, 0, 0, 0]

    @property
    def trump_broken(self) -> bool:
        return self.play is not None and self.play.broken

    def completed_tricks(self) -> list[Trick]:
        if self.play is None:
            return []
        return [self._trick(leader, cards, winner) for leader, cards, winner in self.play.completed]

    def current_trick(self) -> Trick | None:
        if self.play is None or self.phase != Phase.PLAY:
            return None
        return self._trick(self.play.trick_leader, tuple(self.play.trick), None)

    def _trick(self, leader: int, cards: Sequence[int], winner: int | None) -> Trick:
        plays = []
        seat = leader
        for index in cards:
            plays.append((seat, ALL_CARDS[index]))
            seat = self.next_seat[seat]
        return Trick(leader, tuple(plays), winner)

    # --- legal actions -------------------------------------------------------------------

    def legal_actions(self, seat: int) -> list[Action]:
        """Everything ``seat`` may do now (empty when it is not this seat's move)."""
        _check_seat(seat)
        actions: list[Action] = []
        if self.to_act == seat:
            actions.extend(self._turn_actions())
        if self._may_request_redeal(seat):
            actions.append(RequestRedeal())
        return actions

    def legal_cards(self) -> list[Card]:
        """Cards the seat to move may play (empty outside the play phase)."""
        if self.phase != Phase.PLAY or self.play is None:
            return []
        return cards_of(self.play.legal_mask())

    def refusals(self) -> dict[Card, Reason]:
        """Why each card in the hand of the seat to move may not be played now."""
        if self.phase != Phase.PLAY or self.play is None:
            return {}
        hand = self.play.hands[self.play.turn]
        legal = self.play.legal_mask()
        return {card: self._refusal_reason(card) for card in cards_of(hand & ~legal)}

    def _turn_actions(self) -> list[Action]:
        match self.phase:
            case Phase.AUCTION:
                lowest = max(self.rules.min_bid, (self.high_bid or 0) + 1)
                return [*(Bid(n) for n in range(lowest, MAX_TRICKS + 1)), Pass()]
            case Phase.TRUMP:
                return [ChooseTrump(suit) for suit in Suit]
            case Phase.ANNOUNCEMENTS:
                return [Announce(n) for n in range(MAX_TRICKS + 1)]
            case Phase.PLAY:
                return [Play(card) for card in self.legal_cards()]
        return []

    def _may_request_redeal(self, seat: int) -> bool:
        """Before the auction (in Koz Maça: before the first announcement or card), any seat
        whose hand has no card above a ten."""
        return (
            self.rules.weak_hand_redeal
            and not self.log
            and not self.start.hands[seat] & HIGH_CARDS
        )

    # --- applying ------------------------------------------------------------------------

    def apply(self, seat: int, action: Action) -> None:
        """Apply ``action`` for ``seat`` or raise `IllegalAction`; a refused action changes
        nothing."""
        _check_seat(seat)
        if action.kind == ActionKind.REDEAL:
            self._request_redeal(seat, action)
            return
        expected = _PHASE_OF_ACTION[action.kind]
        if self.phase != expected:
            raise IllegalAction(Reason.WRONG_PHASE, self.legal_actions(seat))
        if action.kind in (ActionKind.BID, ActionKind.PASS) and self.passed[seat]:
            raise IllegalAction(Reason.ALREADY_PASSED, self.legal_actions(seat))
        if self.to_act != seat:
            raise IllegalAction(Reason.NOT_YOUR_TURN, self.legal_actions(seat))
        match action:
            case Bid(tricks=tricks):
                self._check_bid(seat, tricks)
                self._record(seat, action)
                self._after_call(seat, tricks)
            case Pass():
                self._record(seat, action)
                self.passed[seat] = True
                self._after_call(seat, None)
            case ChooseTrump(suit=suit):
                self._record(seat, action)
                assert self.declarer is not None
                self._start_play(suit, leader=self.declarer)
            case Announce(tricks=tricks):
                self._announce(seat, tricks, action)
            case Play(card=card):
                self._play(seat, card, action)

    def _record(self, seat: int, action: Action) -> None:
        self.log.append((seat, action))

    def _request_redeal(self, seat: int, action: Action) -> None:
        if not self._may_request_redeal(seat):
            raise IllegalAction(Reason.REDEAL_NOT_ALLOWED, self.legal_actions(seat))
        self._record(seat, action)
        self.redeal_requested_by = seat
        self._end_without_play()

    def _announce(self, seat: int, tricks: int, action: Action) -> None:
        """Koz Maça: the play starts once all four seats have said their tricks."""
        if not 0 <= tricks <= MAX_TRICKS:
            raise IllegalAction(Reason.ANNOUNCEMENT_OUT_OF_RANGE, self.legal_actions(seat))
        self._record(seat, action)
        self.announcements[seat] = tricks
        if all(n is not None for n in self.announcements):
            self._start_play(Suit.SPADES, leader=self.next_seat[self.dealer])
        else:
            self.turn = self.next_seat[seat]

    def _check_bid(self, seat: int, tricks: int) -> None:
        if tricks > MAX_TRICKS:
            raise IllegalAction(Reason.BID_TOO_HIGH, self.legal_actions(seat))
        if tricks < self.rules.min_bid or (self.high_bid is not None and tricks <= self.high_bid):
            raise IllegalAction(Reason.BID_TOO_LOW, self.legal_actions(seat))

    def _after_call(self, seat: int, tricks: int | None) -> None:
        self.auction.append((seat, tricks))
        if tricks is not None:
            self.high_bid, self.high_bidder = tricks, seat
        passes = sum(self.passed)
        if passes == 4:
            if self.rules.all_pass == AllPass.REDEAL:
                self._end_without_play()
            else:
                self._set_contract(self.dealer, self.rules.all_pass_bid or self.rules.min_bid)
        elif passes == 3 and self.high_bidder is not None:
            self._set_contract(self.high_bidder, self.high_bid or 0)
        else:
            following = self.next_seat[seat]
            while self.passed[following]:
                following = self.next_seat[following]
            self.turn = following

    def _set_contract(self, declarer: int, bid: int) -> None:
        self.declarer, self.bid = declarer, bid
        self.phase = Phase.TRUMP
        self.turn = declarer

    def _start_play(self, trump: Suit, leader: int) -> None:
        self.trump = trump
        self.phase = Phase.PLAY
        self.play = PlayState(self.start.hands, int(trump), leader, self.rules)
        self.turn = leader

    def _end_without_play(self) -> None:
        self.phase = Phase.REDEALT
        self.turn = None

    def _play(self, seat: int, card: Card, action: Action) -> None:
        play = self.play
        assert play is not None
        if not play.hands[play.turn] >> card.index & 1:
            raise IllegalAction(Reason.CARD_NOT_IN_HAND, self.legal_actions(seat))
        if not play.legal_mask() >> card.index & 1:
            raise IllegalAction(self._refusal_reason(card), self.legal_actions(seat))
        self._record(seat, action)
        play.play(card.index)
        if play.finished:
            self.phase = Phase.FINISHED
            self.turn = None
            self.score = score_deal(
                self.rules,
                play.tricks_won,
                declarer=self.declarer,
                bid=self.bid,
                announcements=self.announcements if self.rules.spades_announcements else None,
            )
        else:
            self.turn = play.turn

    def _refusal_reason(self, card: Card) -> Reason:
        """The first obligation of RULES.md "Playing a card" that ``card`` breaks."""
        play = self.play
        assert play is not None
        if not play.trick:
            return Reason.TRUMP_NOT_BROKEN
        hand = play.hands[play.turn]
        if hand & play.led_mask:
            return Reason.MUST_BEAT if card.suit == play.led_suit else Reason.MUST_FOLLOW_SUIT
        if card.suit != play.trump:
            return Reason.MUST_TRUMP
        return Reason.MUST_OVERTRUMP

    # --- views ---------------------------------------------------------------------------

    def observation(self, seat: int) -> Observation:
        """What ``seat`` may see: its own hand, a face-up dummy, and the public history."""
        dummy = self.dummy
        own_move = self.to_act == seat and self.turn is not None
        return Observation(
            seat=seat,
            rules=self.rules,
            number=self.number,
            dealer=self.dealer,
            phase=self.phase,
            turn=self.turn,
            to_act=self.to_act,
            hand=tuple(self.hand(seat)),
            hand_sizes=tuple(self.hand_mask(s).bit_count() for s in range(4)),  # type: ignore[arg-type]
            dummy=dummy,
            dummy_hand=None if dummy is None else tuple(cards_of(self.hand_mask(dummy))),
            auction=tuple(self.auction),
            high_bid=self.high_bid,
            declarer=self.declarer,
            bid=self.bid,
            trump=self.trump,
            announcements=tuple(self.announcements),
            trump_broken=self.trump_broken,
            tricks=tuple(self.completed_tricks()),
            current_trick=self.current_trick(),
            tricks_won=tuple(self.tricks_won),  # type: ignore[arg-type]
            legal_actions=tuple(self.legal_actions(seat)),
            refusals=tuple(self.refusals().items()) if own_move else (),
            redeal_requested_by=self.redeal_requested_by,
            score=self.score,
        )


def _check_seat(seat: int) -> None:
    if not (isinstance(seat, int) and 0 <= seat <= 3):
        raise ValueError(f"seats are 0..3, not {seat!r}")


_PHASE_OF_ACTION = {
    ActionKind.BID: Phase.AUCTION,
    ActionKind.PASS: Phase.AUCTION,
    ActionKind.TRUMP: Phase.TRUMP,
    ActionKind.ANNOUNCE: Phase.ANNOUNCEMENTS,
    ActionKind.PLAY: Phase.PLAY,
}
