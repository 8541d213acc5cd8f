"""RULES.md "Playing a card": the worked examples, then every play rule both ways."""

import pytest

from games.engine import Card, IllegalAction, Phase, Play, Reason

from .helpers import legal, make_deal, play, to_play

# The worked example: hearts trump. Anna 0 deals, Ben 1 declares and leads, Carla 2, Dan 3.
BEN = "AC KC JC TC 9C AS KS QS JS TS 9S 8S 7S"
CARLA = "QC 8C 7C 6C 5C 4C 3C 2C 6S 5S 4S 3S 2S"
DAN = "3H 4H 5H 6H AD KD QD JD TD 9D 8D 7D 6D"
ANNA = "2H 7H 8H 9H TH JH QH KH AH 5D 4D 3D 2D"


def worked_example():
    deal = make_deal({0: ANNA, 1: BEN, 2: CARLA, 3: DAN}, dealer=0)
    return to_play(deal, declarer=1, trump="H")


def refusal(deal, card: str) -> IllegalAction:
    with pytest.raises(IllegalAction) as caught:
        deal.apply(deal.to_act, Play(Card.parse(card)))
    return caught.value


class TestWorkedExamples:
    def test_first_example_trick(self) -> None:
        deal = play(worked_example(), "9C")
        assert legal(deal) == {"QC"}
        assert refusal(deal, "4C").reason == Reason.MUST_BEAT
        assert refusal(deal, "6S").reason == Reason.MUST_FOLLOW_SUIT
        play(deal, "QC")
        assert legal(deal) == {"3H", "4H", "5H", "6H"}
        assert refusal(deal, "AD").reason == Reason.MUST_TRUMP
        play(deal, "3H")
        assert legal(deal) == {"7H", "8H", "9H", "TH", "JH", "QH", "KH", "AH"}
        error = refusal(deal, "2H")
        assert error.reason == Reason.MUST_OVERTRUMP
        assert {str(c) for c in error.legal_cards} == legal(deal)
        assert refusal(deal, "5D").reason == Reason.MUST_TRUMP
        play(deal, "7H")
        last = deal.completed_tricks()[-1]
        assert last.winner == 0  # Anna
        assert [(seat, str(card)) for seat, card in last.plays] == [
            (1, "9C"), (2, "QC"), (3, "3H"), (0, "7H"),
        ]
        assert deal.to_act == 0 and deal.trump_broken

    def test_second_example_must_beat_then_must_trump(self) -> None:
        deal = make_deal(
            {
                0: "4S 3S 2S JC TC 9C 8C 7C 6C 5C 4C 3C 2C",
                1: "AH QH JH TH 8H 7H 6H 5H 4H 3H 2H AC KC",
                2: "KH 9H AD KD QD JD TD 9D 8D 7D 6D 5D 4D",
                3: "3D 2D AS KS QS JS TS 9S 8S 7S 6S 5S QC",
            },
            dealer=0,
        )
        play(to_play(deal, declarer=1, trump="S"), "QH")
        assert legal(deal) == {"KH"}
        assert refusal(deal, "9H").reason == Reason.MUST_BEAT
        play(deal, "KH")
        assert legal(deal) == {"AS", "KS", "QS", "JS", "TS", "9S", "8S", "7S", "6S", "5S"}
        assert refusal(deal, "QC").reason == Reason.MUST_TRUMP


class TestFollowBeforeTrump:
    def test_may_not_trump_while_holding_the_led_suit(self) -> None:
        deal = play(worked_example(), "9C")
        assert refusal(deal, "6S").reason == Reason.MUST_FOLLOW_SUIT
        deal = make_deal({1: "9C", 2: "4C 2H"})
        play(to_play(deal, 1, "H"), "9C")
        assert refusal(deal, "2H").reason == Reason.MUST_FOLLOW_SUIT


class TestTurnAndHand:
    def test_not_your_turn(self) -> None:
        deal = worked_example()
        with pytest.raises(IllegalAction) as caught:
            deal.apply(2, Play(Card.parse("QC")))
        assert caught.value.reason == Reason.NOT_YOUR_TURN
        assert caught.value.legal == ()

    def test_card_not_in_hand(self) -> None:
        deal = worked_example()
        assert refusal(deal, "QC").reason == Reason.CARD_NOT_IN_HAND

    def test_play_during_auction_is_wrong_phase(self) -> None:
        deal = make_deal({1: BEN})
        with pytest.raises(IllegalAction) as caught:
            deal.apply(1, Play(Card.parse("9C")))
        assert caught.value.reason == Reason.WRONG_PHASE
        assert deal.phase == Phase.AUCTION and deal.log == []

    def test_refused_card_changes_nothing(self) -> None:
        deal = play(worked_example(), "9C")
        before = deal.observation(2).to_dict()
        refusal(deal, "4C")
        assert deal.observation(2).to_dict() == before and len(deal.log) == 6


class TestTrumpLead:
    HANDS = {1: "2H 3H AS KS QS JS TS 9S 8S 7S 6S 5S 4S"}

    def test_after_broken_forbids_leading_trump(self) -> None:
        deal = to_play(make_deal(self.HANDS), declarer=1, trump="H")
        assert not legal(deal) & {"2H", "3H"}
        assert refusal(deal, "2H").reason == Reason.TRUMP_NOT_BROKEN

    def test_anytime_allows_leading_trump(self) -> None:
        deal = to_play(make_deal(self.HANDS, trump_lead="anytime"), declarer=1, trump="H")
        assert {"2H", "3H"} <= legal(deal)

    def test_only_trumps_may_lead_trump(self) -> None:
        deal = to_play(
            make_deal({1: "AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H"}), declarer=1, trump="H"
        )
        assert len(legal(deal)) == 13

    def test_trump_counts_as_broken_only_after_the_trick(self) -> None:
        deal = make_deal({0: ANNA, 1: BEN, 2: CARLA, 3: DAN})
        play(to_play(deal, declarer=1, trump="H"), "9C", "QC", "3H")
        assert not deal.trump_broken
        play(deal, "7H")
        assert deal.trump_broken and {"2H", "AH"} <= legal(deal)

    def test_akq_off_forbids_honours(self) -> None:
        deal = to_play(make_deal({1: "AH KH QH 2C 3C"}), declarer=1, trump="H")
        assert not legal(deal) & {"AH", "KH", "QH"}

    def test_akq_on_allows_ace_king_queen_only(self) -> None:
        deal = make_deal({1: "AH KH QH 2H 2C 3C"}, akq_trump_lead=True)
        to_play(deal, declarer=1, trump="H")
        assert {"AH", "KH", "QH"} <= legal(deal) and "2H" not in legal(deal)

    def test_akq_on_low_trump_still_refused(self) -> None:
        deal = make_deal({1: "AH KH QH 2H 2C 3C"}, akq_trump_lead=True)
        to_play(deal, declarer=1, trump="H")
        assert refusal(deal, "2H").reason == Reason.TRUMP_NOT_BROKEN

    def test_akq_on_needs_all_three(self) -> None:
        deal = make_deal({1: "AH KH 2C 3C"}, voids={1: "H"}, akq_trump_lead=True)
        to_play(deal, declarer=1, trump="H")
        assert not legal(deal) & {"AH", "KH"}


class TestMustBeat:
    HANDS = {1: "9C AS", 2: "QC 4C"}

    def test_on(self) -> None:
        deal = play(to_play(make_deal(self.HANDS), 1, "H"), "9C")
        assert legal(deal) == {"QC"} | ({"KC", "AC", "JC", "TC"} & legal(deal))
        assert "4C" not in legal(deal)

    def test_off(self) -> None:
        deal = play(to_play(make_deal(self.HANDS, must_beat_in_suit=False), 1, "H"), "9C")
        assert {"QC", "4C"} <= legal(deal)

    def test_cannot_beat_may_play_any_card_of_the_suit(self) -> None:
        deal = make_deal({1: "AC", 2: "QC 4C"})
        play(to_play(deal, 1, "H"), "AC")
        assert {"QC", "4C"} <= legal(deal)

    def test_trump_led_must_beat_highest_trump(self) -> None:
        deal = make_deal({1: "5H AS", 2: "2H AH"}, trump_lead="anytime")
        play(to_play(deal, 1, "H"), "5H")
        assert "AH" in legal(deal) and "2H" not in legal(deal)

    def test_trump_led_without_must_beat(self) -> None:
        deal = make_deal({1: "5H AS", 2: "2H AH"}, trump_lead="anytime", must_beat_in_suit=False)
        play(to_play(deal, 1, "H"), "5H")
        assert {"AH", "2H"} <= legal(deal)


class TestMustBeatAfterTrumped:
    # Ben leads 9C, Carla (void in clubs) trumps, Dan holds KC and 2C.
    HANDS = {1: "9C AS", 2: "2H AD", 3: "KC 2C"}
    VOIDS = {2: "C", 0: ""}

    def test_off_by_default_any_club_after_trumped(self) -> None:
        deal = play(to_play(make_deal(self.HANDS, voids=self.VOIDS), 1, "H"), "9C", "2H")
        assert {"KC", "2C"} <= legal(deal)

    def test_on_still_must_beat(self) -> None:
        deal = make_deal(self.HANDS, voids=self.VOIDS, must_beat_after_trumped=True)
        play(to_play(deal, 1, "H"), "9C", "2H")
        assert "KC" in legal(deal) and "2C" not in legal(deal)
        assert refusal(deal, "2C").reason == Reason.MUST_BEAT


class TestMustTrump:
    HANDS = {1: "9C AS", 2: "2H AD"}
    VOIDS = {2: "C"}

    def test_on(self) -> None:
        deal = play(to_play(make_deal(self.HANDS, voids=self.VOIDS), 1, "H"), "9C")
        assert all(card.endswith("H") for card in legal(deal))
        assert refusal(deal, "AD").reason == Reason.MUST_TRUMP

    def test_off_may_discard(self) -> None:
        deal = make_deal(self.HANDS, voids=self.VOIDS, must_trump=False)
        play(to_play(deal, 1, "H"), "9C")
        assert {"2H", "AD"} <= legal(deal)

    def test_no_suit_no_trump_plays_anything(self) -> None:
        deal = make_deal({1: "9C AS", 2: "AD 2S"}, voids={2: "CH"})
        play(to_play(deal, 1, "H"), "9C")
        assert len(legal(deal)) == 13


class TestOvertrump:
    # Ben leads 9C; Carla void in clubs trumps 8H; Dan void in clubs holds 7H and KH.
    HANDS = {1: "9C", 2: "8H AD", 3: "7H KH 2D"}
    VOIDS = {2: "C", 3: "C"}

    def deal(self, **rules):
        deal = make_deal(self.HANDS, voids=self.VOIDS, **rules)
        return play(to_play(deal, 1, "H"), "9C", "8H")

    def test_on_must_overtrump(self) -> None:
        deal = self.deal()
        assert "KH" in legal(deal) and "7H" not in legal(deal) and "2D" not in legal(deal)
        assert refusal(deal, "7H").reason == Reason.MUST_OVERTRUMP

    def test_off_any_trump(self) -> None:
        deal = self.deal(must_overtrump=False)
        assert {"7H", "KH"} <= legal(deal) and "2D" not in legal(deal)

    def test_must_trump_off_does_not_lift_the_overtrump(self) -> None:
        deal = self.deal(must_trump=False)
        assert "KH" in legal(deal) and not legal(deal) & {"7H", "2D"}

    def test_must_trump_off_discard_when_no_trump_in_trick(self) -> None:
        deal = make_deal({1: "9C", 2: "AD", 3: "7H KH 2D"}, voids={2: "CH", 3: "C"},
                         must_trump=False)
        play(to_play(deal, 1, "H"), "9C", "AD")  # Carla has neither clubs nor hearts
        assert {"7H", "KH", "2D"} <= legal(deal)


class TestCannotOvertrump:
    # Carla trumps with AH; Dan holds only low hearts and a diamond.
    HANDS = {1: "9C", 2: "AH AD", 3: "7H 2D"}
    VOIDS = {2: "C", 3: "C"}

    def deal(self, **rules):
        deal = make_deal(self.HANDS, voids=self.VOIDS, **rules)
        return play(to_play(deal, 1, "H"), "9C", "AH")

    def test_on_still_must_trump(self) -> None:
        deal = self.deal()
        assert "7H" in legal(deal) and "2D" not in legal(deal)
        assert refusal(deal, "2D").reason == Reason.MUST_TRUMP

    def test_off_any_card(self) -> None:
        deal = self.deal(must_trump_when_cannot_overtrump=False)
        assert {"7H", "2D"} <= legal(deal)

    def test_must_trump_off_still_must_trump_when_it_cannot_overtrump(self) -> None:
        deal = self.deal(must_trump=False)
        assert "7H" in legal(deal) and "2D" not in legal(deal)


class TestTrickWinner:
    def test_highest_card_of_led_suit_without_trump(self) -> None:
        deal = make_deal({1: "9C", 2: "QC", 3: "AD", 0: "KC"}, voids={3: "CH"})
        play(to_play(deal, 1, "H"), "9C", "QC", "AD", "KC")
        assert deal.completed_tricks()[0].winner == 0
        assert deal.to_act == 0

    def test_lowest_trump_beats_ace(self) -> None:
        deal = play(worked_example(), "9C", "QC", "3H", "7H")
        assert deal.completed_tricks()[0].winner == 0
