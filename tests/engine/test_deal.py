"""Observations, the partnership dummy, replay and serialisation, and whole matches."""

import random

import pytest

from games.engine import (
    ActionParseError,
    Announce,
    Bid,
    Card,
    ChooseTrump,
    Deal,
    DealStart,
    Game,
    IllegalAction,
    Match,
    Pass,
    Phase,
    Play,
    Reason,
    RequestRedeal,
    Suit,
    TableRules,
    action_from_dict,
    parse_action,
)

from .helpers import make_deal, play, to_play


def random_finish(deal: Deal, rng: random.Random) -> Deal:
    while not deal.is_over:
        seat = deal.to_act
        deal.apply(seat, rng.choice(deal.legal_actions(seat)))
    return deal


class TestActions:
    @pytest.mark.parametrize(
        "action",
        [Bid(5), Pass(), ChooseTrump(Suit.HEARTS), Announce(0), Play(Card.parse("TS")),
         RequestRedeal()],
    )
    def test_round_trips(self, action) -> None:
        assert parse_action(str(action)) == action
        assert action_from_dict(action.to_dict()) == action

    def test_parse_accepts_loose_input(self) -> None:
        assert parse_action("play 10h") == Play(Card.parse("TH"))
        assert parse_action("TRUMP s") == ChooseTrump(Suit.SPADES)

    @pytest.mark.parametrize("text", ["", "bid", "bid x", "play ZZ", "fold", "pass 3"])
    def test_parse_errors(self, text) -> None:
        with pytest.raises(ActionParseError):
            parse_action(text)


class TestObservation:
    def test_shows_own_hand_only(self) -> None:
        deal = Deal.new(TableRules.create(), dealer=0, rng=random.Random(1))
        for seat in range(4):
            view = deal.observation(seat)
            assert set(view.hand) == set(deal.hand(seat))
            assert view.dummy_hand is None and view.hand_sizes == (13, 13, 13, 13)
            assert "deck" not in view.to_dict()

    def test_legal_actions_and_refusals_only_for_the_seat_to_move(self) -> None:
        deal = make_deal(
            {0: "2H 7H 8H 9H TH JH QH KH AH 5D 4D 3D 2D",
             1: "AC KC JC TC 9C AS KS QS JS TS 9S 8S 7S",
             2: "QC 8C 7C 6C 5C 4C 3C 2C 6S 5S 4S 3S 2S"},
        )
        play(to_play(deal, declarer=1, trump="H"), "9C")
        view = deal.observation(2)
        assert [str(a) for a in view.legal_actions] == ["play QC"]
        refused = dict((str(card), reason) for card, reason in view.refusals)
        assert refused["4C"] == Reason.MUST_BEAT and refused["6S"] == Reason.MUST_FOLLOW_SUIT
        assert len(refused) == 12
        assert deal.observation(3).legal_actions == () and deal.observation(3).refusals == ()
        current = view.to_dict()["current_trick"]
        assert current == {"leader": 1, "cards": [{"seat": 1, "card": "9C"}], "winner": None}

    def test_last_trick_stays_visible(self) -> None:
        deal = to_play(make_deal({}), declarer=1, trump="H")
        rng = random.Random(4)
        for _ in range(4):
            deal.apply(deal.to_act, rng.choice(deal.legal_actions(deal.to_act)))
        view = deal.observation(0)
        assert view.last_trick is not None and len(view.last_trick.plays) == 4
        assert view.current_trick is not None and view.current_trick.plays == ()
        assert sum(view.tricks_won) == 1


class TestPartnershipDummy:
    def deal(self, dummy: bool) -> Deal:
        deal = make_deal({}, game="partnership", dealer=0, partnership_dummy=dummy)
        return to_play(deal, declarer=1, trump="H", bid=8)

    def test_off_partners_never_see_each_other(self) -> None:
        deal = self.deal(dummy=False)
        assert deal.dummy is None
        assert all(deal.observation(seat).dummy_hand is None for seat in range(4))

    def test_on_dummy_face_up_and_declarer_plays_it(self) -> None:
        deal = self.deal(dummy=True)
        assert deal.dummy == 3
        for seat in range(4):
            assert set(deal.observation(seat).dummy_hand) == set(deal.hand(3))
        deal.apply(1, deal.legal_actions(1)[0])  # declarer leads
        deal.apply(2, deal.legal_actions(2)[0])
        assert deal.turn == 3 and deal.to_act == 1
        assert deal.legal_actions(3) == []
        with pytest.raises(IllegalAction) as caught:
            deal.apply(3, Play(deal.legal_cards()[0]))
        assert caught.value.reason == Reason.NOT_YOUR_TURN
        deal.apply(1, Play(deal.legal_cards()[0]))
        assert deal.observation(1).hand_sizes[3] == 12

    def test_dummy_hidden_during_auction(self) -> None:
        deal = make_deal({}, game="partnership", partnership_dummy=True)
        deal.apply(1, Bid(8))
        assert deal.observation(0).dummy_hand is None


class TestReplay:
    @pytest.mark.parametrize("game", list(Game))
    def test_replay_reproduces_the_state(self, game) -> None:
        rng = random.Random(7)
        deal = random_finish(Deal.new(TableRules.create(game), dealer=1, rng=rng), rng)
        again = Deal.replay(deal.start, deal.log)
        for seat in range(4):
            assert again.observation(seat) == deal.observation(seat)
        assert again.score == deal.score

    def test_start_and_log_serialise(self) -> None:
        rng = random.Random(8)
        deal = random_finish(Deal.new(TableRules.create("spades"), dealer=3, rng=rng), rng)
        start = DealStart.from_dict(deal.start.to_dict())
        log = [(seat, action_from_dict(action.to_dict())) for seat, action in deal.log]
        assert start == deal.start
        assert Deal.replay(start, log).score == deal.score

    def test_replay_refuses_a_tampered_log(self) -> None:
        rng = random.Random(9)
        deal = random_finish(Deal.new(TableRules.create(), dealer=0, rng=rng), rng)
        log = list(deal.log)
        log[-1], log[-2] = log[-2], log[-1]
        with pytest.raises(IllegalAction):
            Deal.replay(deal.start, log)

    def test_deck_deals_one_card_at_a_time_from_the_next_seat(self) -> None:
        start = DealStart.shuffle(TableRules.create(), dealer=2, rng=random.Random(3))
        assert start.deck is not None
        assert start.hands[3] >> start.deck[0] & 1 and start.hands[0] >> start.deck[1] & 1

    def test_seeded_shuffles_repeat_and_unseeded_differ(self) -> None:
        rules = TableRules.create()
        assert DealStart.shuffle(rules, 0, rng=random.Random(5)) == DealStart.shuffle(
            rules, 0, rng=random.Random(5)
        )
        assert DealStart.shuffle(rules, 0).deck != DealStart.shuffle(rules, 0).deck


class TestMatch:
    def play_out(self, match: Match, rng: random.Random) -> Match:
        while not match.is_over:
            seat = match.current.to_act
            match.apply(seat, rng.choice(match.current.legal_actions(seat)))
        return match

    def test_dealer_passes_to_the_next_seat(self) -> None:
        match = self.play_out(Match(TableRules.create(), 4, first_dealer=1, rng=random.Random(2)),
                              random.Random(2))
        assert [deal.dealer for deal in match.finished_deals] == [1, 2, 3, 0]
        assert [deal.number for deal in match.finished_deals] == [1, 2, 3, 4]
        assert match.totals == [sum(d.score.points[s] for d in match.deals) for s in range(4)]

    def test_clockwise_dealer_order(self) -> None:
        rules = TableRules.create(direction="clockwise")
        match = self.play_out(Match(rules, 3, first_dealer=1, rng=random.Random(2)),
                              random.Random(2))
        assert [deal.dealer for deal in match.finished_deals] == [1, 0, 3]

    def test_thrown_in_deal_is_dealt_again_by_the_same_dealer(self) -> None:
        match = Match(TableRules.create(all_pass="redeal"), 2, first_dealer=0,
                      rng=random.Random(1))
        for seat in (1, 2, 3, 0):
            match.apply(seat, Pass())
        assert match.deals[0].phase == Phase.REDEALT
        assert (match.current.dealer, match.current.number) == (0, 1)
        assert match.current.start.hands != match.deals[0].start.hands

    def test_replay_checks_dealer_order(self) -> None:
        rng = random.Random(6)
        match = self.play_out(Match(TableRules.create(), 2, first_dealer=0, rng=rng), rng)
        records = [(deal.start, deal.log) for deal in match.deals]
        again = Match.replay(match.rules, 2, 0, records)
        assert again.totals == match.totals and again.is_over
        with pytest.raises(ValueError):
            Match.replay(match.rules, 2, 1, records)

    def test_ranking_and_deal_count(self) -> None:
        rng = random.Random(3)
        match = self.play_out(Match(TableRules.create("partnership"), 1, rng=rng), rng)
        ranks = match.ranking()
        assert ranks[0] == ranks[2] and ranks[1] == ranks[3] and set(ranks) <= {1, 2}
        with pytest.raises(ValueError):
            Match(TableRules.create(), 53)
