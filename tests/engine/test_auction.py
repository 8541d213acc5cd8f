"""RULES.md "The auction", trump choice, Koz Maça announcements and weak-hand redeals."""

import pytest

from games.engine import (
    Announce,
    Bid,
    ChooseTrump,
    Deal,
    IllegalAction,
    Pass,
    Phase,
    Play,
    Reason,
    RequestRedeal,
    Suit,
)

from .helpers import make_deal


def calls(deal: Deal, *moves: str) -> Deal:
    """Apply auction calls in turn: ``"5"`` bids five, ``"p"`` passes."""
    for move in moves:
        seat = deal.to_act
        assert seat is not None
        deal.apply(seat, Pass() if move == "p" else Bid(int(move)))
    return deal


def reason(deal: Deal, seat: int, action) -> Reason:
    with pytest.raises(IllegalAction) as caught:
        deal.apply(seat, action)
    return caught.value.reason


class TestOrder:
    def test_next_seat_after_dealer_speaks_first_anticlockwise(self) -> None:
        deal = make_deal({}, dealer=0)
        seats = []
        for _ in range(4):
            seats.append(deal.to_act)
            deal.apply(deal.to_act, Pass())
        assert seats == [1, 2, 3, 0]

    def test_clockwise(self) -> None:
        deal = make_deal({}, dealer=0, direction="clockwise")
        seats = []
        for _ in range(4):
            seats.append(deal.to_act)
            deal.apply(deal.to_act, Pass())
        assert seats == [3, 2, 1, 0]

    def test_not_your_turn(self) -> None:
        assert reason(make_deal({}, dealer=0), 2, Bid(5)) == Reason.NOT_YOUR_TURN


class TestBids:
    def test_min_bid_default_four(self) -> None:
        deal = make_deal({})
        assert Bid(4) in deal.legal_actions(1) and Bid(3) not in deal.legal_actions(1)
        assert reason(deal, 1, Bid(3)) == Reason.BID_TOO_LOW

    def test_min_bid_five(self) -> None:
        deal = make_deal({}, min_bid=5)
        assert reason(deal, 1, Bid(4)) == Reason.BID_TOO_LOW
        calls(deal, "5")

    def test_bid_must_be_higher(self) -> None:
        deal = calls(make_deal({}), "6")
        assert reason(deal, 2, Bid(6)) == Reason.BID_TOO_LOW
        assert deal.legal_actions(2)[0] == Bid(7)

    def test_above_thirteen(self) -> None:
        assert reason(make_deal({}), 1, Bid(14)) == Reason.BID_TOO_HIGH

    def test_thirteen_cannot_be_topped(self) -> None:
        deal = calls(make_deal({}), "13")
        assert deal.legal_actions(2) == [Pass()]
        calls(deal, "p", "p", "p")
        assert (deal.declarer, deal.bid, deal.phase) == (1, 13, Phase.TRUMP)

    def test_passed_player_may_not_bid_again(self) -> None:
        deal = calls(make_deal({}), "p", "5", "6", "7")
        assert deal.to_act == 2  # seat 1 passed, so it is skipped
        assert reason(deal, 1, Bid(8)) == Reason.ALREADY_PASSED

    def test_three_passes_after_a_bid_end_the_auction(self) -> None:
        deal = calls(make_deal({}), "5", "p", "6", "p", "p")
        assert (deal.declarer, deal.bid) == (3, 6)
        assert deal.to_act == 3 and deal.phase == Phase.TRUMP

    def test_dealer_may_still_bid_after_three_passes(self) -> None:
        deal = calls(make_deal({}), "p", "p", "p")
        assert deal.to_act == 0 and Bid(4) in deal.legal_actions(0)
        calls(deal, "5")
        assert (deal.declarer, deal.bid) == (0, 5)

    def test_auction_history(self) -> None:
        deal = calls(make_deal({}), "5", "p", "p", "p")
        assert deal.auction == [(1, 5), (2, None), (3, None), (0, None)]


class TestAllPass:
    def test_dealer_takes_at_all_pass_bid(self) -> None:
        deal = calls(make_deal({}, dealer=2), "p", "p", "p", "p")
        assert (deal.declarer, deal.bid, deal.phase) == (2, 4, Phase.TRUMP)

    def test_custom_all_pass_bid(self) -> None:
        deal = calls(make_deal({}, dealer=2, min_bid=5, all_pass_bid=4), "p", "p", "p", "p")
        assert (deal.declarer, deal.bid) == (2, 4)

    def test_partnership_dealer_takes_seven(self) -> None:
        deal = calls(make_deal({}, game="partnership"), "p", "p", "p", "p")
        assert (deal.declarer, deal.bid) == (0, 7)

    def test_redeal(self) -> None:
        deal = calls(make_deal({}, all_pass="redeal"), "p", "p", "p", "p")
        assert deal.phase == Phase.REDEALT and deal.is_over and deal.to_act is None
        assert deal.legal_actions(0) == []


class TestTrump:
    def test_declarer_names_any_suit_and_leads(self) -> None:
        deal = calls(make_deal({}), "5", "p", "p", "p")
        assert deal.legal_actions(1) == [ChooseTrump(suit) for suit in Suit]
        assert reason(deal, 2, ChooseTrump(Suit.CLUBS)) == Reason.NOT_YOUR_TURN
        deal.apply(1, ChooseTrump(Suit.CLUBS))
        assert deal.trump == Suit.CLUBS and deal.phase == Phase.PLAY and deal.to_act == 1

    def test_bid_after_auction_is_wrong_phase(self) -> None:
        deal = calls(make_deal({}), "5", "p", "p", "p")
        assert reason(deal, 1, Bid(6)) == Reason.WRONG_PHASE


class TestSpades:
    def test_no_auction_spades_trump_next_seat_leads(self) -> None:
        deal = make_deal({}, game="spades", dealer=2)
        assert deal.phase == Phase.PLAY and deal.trump == Suit.SPADES
        assert deal.to_act == 3 and deal.declarer is None
        assert reason(deal, 3, Bid(5)) == Reason.WRONG_PHASE

    def test_spades_may_not_be_led_before_broken(self) -> None:
        deal = make_deal({3: "AS 2H"}, game="spades", dealer=2)
        assert all(not card.endswith("S") for card in map(str, deal.legal_cards()))

    def test_announcements_in_turn_then_play(self) -> None:
        deal = make_deal({}, game="spades", dealer=1, spades_announcements=True)
        assert deal.phase == Phase.ANNOUNCEMENTS and deal.to_act == 2
        assert deal.legal_actions(2) == [Announce(n) for n in range(14)]
        for seat, number in ((2, 3), (3, 0), (0, 4), (1, 2)):
            deal.apply(seat, Announce(number))
        assert deal.announcements == [4, 2, 3, 0]
        assert deal.phase == Phase.PLAY and deal.to_act == 2

    def test_announcement_out_of_range(self) -> None:
        deal = make_deal({}, game="spades", spades_announcements=True)
        assert reason(deal, 1, Announce(14)) == Reason.ANNOUNCEMENT_OUT_OF_RANGE


WEAK = "TS 9S 8S 7S TH 9H 8H 7H TD 9D 8D 7D 6C"  # nothing above a ten


class TestWeakHandRedeal:
    def test_off_by_default(self) -> None:
        deal = make_deal({2: WEAK})
        assert RequestRedeal() not in deal.legal_actions(2)
        assert reason(deal, 2, RequestRedeal()) == Reason.REDEAL_NOT_ALLOWED

    def test_weak_hand_may_ask_before_the_auction(self) -> None:
        deal = make_deal({2: WEAK}, weak_hand_redeal=True)
        assert deal.legal_actions(2) == [RequestRedeal()]  # not its turn, but it may ask
        deal.apply(2, RequestRedeal())
        assert deal.phase == Phase.REDEALT and deal.redeal_requested_by == 2

    def test_strong_hand_may_not(self) -> None:
        deal = make_deal({2: "JS"}, weak_hand_redeal=True)
        assert reason(deal, 2, RequestRedeal()) == Reason.REDEAL_NOT_ALLOWED

    def test_not_once_the_auction_has_begun(self) -> None:
        deal = calls(make_deal({2: WEAK}, weak_hand_redeal=True), "5")
        assert RequestRedeal() not in deal.legal_actions(2)
        assert reason(deal, 2, RequestRedeal()) == Reason.REDEAL_NOT_ALLOWED

    def test_spades_before_the_first_card_only(self) -> None:
        deal = make_deal({1: WEAK}, game="spades", dealer=2, weak_hand_redeal=True)
        assert RequestRedeal() in deal.legal_actions(1)
        deal.apply(3, Play(deal.legal_cards()[0]))
        assert reason(deal, 1, RequestRedeal()) == Reason.REDEAL_NOT_ALLOWED

    def test_spades_with_announcements_before_the_first_announcement(self) -> None:
        deal = make_deal(
            {1: WEAK}, game="spades", dealer=2, weak_hand_redeal=True, spades_announcements=True
        )
        deal.apply(1, RequestRedeal())
        assert deal.phase == Phase.REDEALT


class TestSeats:
    def test_seat_out_of_range(self) -> None:
        deal = make_deal({})
        with pytest.raises(ValueError):
            deal.legal_actions(4)
        with pytest.raises(ValueError):
            deal.apply(-1, Pass())
